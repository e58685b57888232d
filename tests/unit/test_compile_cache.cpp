#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/digest.hpp"
#include "compile/compile_cache.hpp"
#include "temp_dir.hpp"

namespace fs = std::filesystem;
using namespace hone;

namespace {

std::string cache_key_of(const std::string& name) {
    return digest_hex(name);
}

compile_result sample_result(const std::string& log, std::size_t cubin_bytes = 1000) {
    compile_result r;
    r.ok = true;
    r.log = log;
    r.cubin.resize(cubin_bytes);
    for (std::size_t i = 0; i < cubin_bytes; ++i) r.cubin[i] = static_cast<uint8_t>(i * 7);
    r.lowered_name = "_Z1kILi4EEvPf";
    r.resources.registers = 24;
    r.resources.spill_store_bytes = 120;
    r.compile_ms = 21.5;
    return r;
}

fs::path entry_file(const compile_cache& c, const std::string& key) {
    return fs::path(c.dir()) / key.substr(0, 2) / (key + ".bin");
}

void set_mtime(const fs::path& p, time_t seconds) {
    const timespec times[2] = {{seconds, 0}, {seconds, 0}};
    REQUIRE(::utimensat(AT_FDCWD, p.c_str(), times, 0) == 0);
}

std::size_t temp_files(const fs::path& dir) {
    std::size_t n = 0;
    for (const auto& f : fs::recursive_directory_iterator(dir)) n += f.path().extension() == ".tmp";
    return n;
}

}  // namespace

TEST_CASE("compile_cache returns what was put, marked from_cache") {
    temp_dir dir;
    compile_cache cache((dir.path / "nested" / "cache").string());
    const std::string key = cache_key_of("a");
    CHECK_FALSE(cache.get(key));
    const compile_result r = sample_result("ptxas info : Used 24 registers");
    cache.put(key, r);
    const auto got = cache.get(key);
    REQUIRE(got);
    CHECK(got->ok);
    CHECK(got->from_cache);
    CHECK(got->cubin == r.cubin);
    CHECK(got->lowered_name == r.lowered_name);
    CHECK(got->log == r.log);
    CHECK(got->resources.registers == 24);
    CHECK(got->resources.spill_store_bytes == 120);
    CHECK(got->compile_ms == r.compile_ms);
    CHECK(temp_files(dir.path) == 0);
}

TEST_CASE("compile_cache stores only successful compiles") {
    temp_dir dir;
    compile_cache cache(dir.path.string());
    compile_result failed = sample_result("error");
    failed.ok = false;
    cache.put(cache_key_of("f"), failed);
    CHECK_FALSE(cache.get(cache_key_of("f")));
}

TEST_CASE("compile_cache drops a corrupted or truncated entry") {
    temp_dir dir;
    compile_cache cache(dir.path.string());
    const std::string key = cache_key_of("c");
    cache.put(key, sample_result("log"));
    const fs::path file = entry_file(cache, key);
    REQUIRE(fs::exists(file));

    SUBCASE("a flipped payload byte") {
        std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(-10, std::ios::end);
        f.put('\x55');
    }
    SUBCASE("cut short") {
        fs::resize_file(file, fs::file_size(file) / 2);
    }
    SUBCASE("another key's entry under this name") {
        const std::string other = cache_key_of("other");
        cache.put(other, sample_result("other"));
        fs::copy_file(entry_file(cache, other), file, fs::copy_options::overwrite_existing);
    }
    CHECK_FALSE(cache.get(key));
    CHECK_FALSE(fs::exists(file));
}

TEST_CASE("compile_cache evicts the least recently used entries above max_bytes") {
    temp_dir dir;
    compile_cache probe((dir.path / "probe").string());
    probe.put(cache_key_of("probe"), sample_result("x"));
    const uint64_t entry_bytes = fs::file_size(entry_file(probe, cache_key_of("probe")));

    compile_cache cache((dir.path / "lru").string(), entry_bytes * 5 / 2);  // room for two
    const std::string k1 = cache_key_of("1"), k2 = cache_key_of("2"), k3 = cache_key_of("3");
    cache.put(k1, sample_result("x"));
    cache.put(k2, sample_result("x"));
    set_mtime(entry_file(cache, k1), 1000000000);
    set_mtime(entry_file(cache, k2), 1000000001);
    CHECK(cache.get(k1));  // k1 becomes the most recently used
    cache.put(k3, sample_result("x"));
    CHECK(fs::exists(entry_file(cache, k1)));
    CHECK_FALSE(fs::exists(entry_file(cache, k2)));
    CHECK(fs::exists(entry_file(cache, k3)));
}

TEST_CASE("compile_cache survives concurrent writers of one key") {
    temp_dir dir;
    const std::string key = cache_key_of("shared");
    pid_t children[2];
    for (int w = 0; w < 2; ++w) {
        children[w] = ::fork();
        REQUIRE(children[w] >= 0);
        if (children[w] == 0) {
            compile_cache cache(dir.path.string());
            int bad = 0;
            for (int i = 0; i < 100; ++i) {
                cache.put(key, sample_result("writer " + std::to_string(w), 4000 + 100 * w));
                const auto got = cache.get(key);
                bad += !got || got->cubin.size() != 4000u + 100 * (got->log == "writer 1");
            }
            ::_exit(bad == 0 ? 0 : 1);
        }
    }
    for (pid_t child : children) {
        int st = 0;
        REQUIRE(::waitpid(child, &st, 0) == child);
        CHECK(WIFEXITED(st));
        CHECK(WEXITSTATUS(st) == 0);
    }
    compile_cache cache(dir.path.string());
    CHECK(cache.get(key));
    CHECK(temp_files(dir.path) == 0);
}

TEST_CASE("compile_cache::default_dir: HONE_CACHE_DIR, then XDG_CACHE_HOME, then HOME") {
    const auto saved = [](const char* name) {
        const char* v = std::getenv(name);
        return v ? std::optional<std::string>(v) : std::nullopt;
    };
    const auto hone_dir = saved("HONE_CACHE_DIR"), xdg = saved("XDG_CACHE_HOME"),
               home = saved("HOME");
    ::setenv("HOME", "/home/u", 1);
    ::setenv("XDG_CACHE_HOME", "/xdg", 1);
    ::setenv("HONE_CACHE_DIR", "/explicit", 1);
    CHECK(compile_cache::default_dir() == "/explicit");
    ::unsetenv("HONE_CACHE_DIR");
    CHECK(compile_cache::default_dir() == "/xdg/hone");
    ::unsetenv("XDG_CACHE_HOME");
    CHECK(compile_cache::default_dir() == "/home/u/.cache/hone");
    const auto restore = [](const char* name, const std::optional<std::string>& v) {
        if (v)
            ::setenv(name, v->c_str(), 1);
        else
            ::unsetenv(name);
    };
    restore("HONE_CACHE_DIR", hone_dir);
    restore("XDG_CACHE_HOME", xdg);
    restore("HOME", home);
}
