// Entry file <dir>/<key[0:2]>/<key>.bin:
//   8 bytes "HONECBIN", u32 format version, u32 zero, u64 payload length,
//   32 bytes payload digest (hex), payload = CBOR {key, result fields} (compile_json.hpp).
// Integers little-endian. Several hone processes may share one cache: entries appear by
// rename() (atomic), readers and the evictor tolerate entries vanishing under them.
#include "compile/compile_cache.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/digest.hpp"
#include "compile/compile_json.hpp"
#include "hone/error.hpp"

namespace hone {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view magic = "HONECBIN";
constexpr uint32_t format_version = 1;
constexpr std::size_t digest_chars = 32;
constexpr std::size_t header_bytes = 8 + 4 + 4 + 8 + digest_chars;
// A temp file this old belongs to a writer that died before its rename.
constexpr auto stale_temp_age = std::chrono::hours(1);

void put_le(std::string& out, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t get_le(std::string_view in, std::size_t at, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t(static_cast<uint8_t>(in[at + i])) << (8 * i);
    return v;
}

bool valid_key(const std::string& key) {
    return key.size() >= 3 && std::all_of(key.begin(), key.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

std::string encode(const std::string& key, const compile_result& r) {
    nlohmann::json j = r;
    j.erase("from_cache");
    j["key"] = key;
    const std::vector<uint8_t> cbor = nlohmann::json::to_cbor(j);
    const std::string_view payload(reinterpret_cast<const char*>(cbor.data()), cbor.size());
    std::string out(magic);
    put_le(out, format_version, 4);
    put_le(out, 0, 4);
    put_le(out, payload.size(), 8);
    out += digest_hex(payload);
    out += payload;
    return out;
}

// nullopt for anything but an intact entry of this format for this key.
std::optional<compile_result> decode(std::string_view bytes, const std::string& key) {
    if (bytes.size() < header_bytes || bytes.substr(0, 8) != magic) return std::nullopt;
    if (get_le(bytes, 8, 4) != format_version) return std::nullopt;
    const std::string_view payload = bytes.substr(header_bytes);
    if (get_le(bytes, 16, 8) != payload.size()) return std::nullopt;
    if (bytes.substr(24, digest_chars) != digest_hex(payload)) return std::nullopt;
    try {
        const nlohmann::json j = nlohmann::json::from_cbor(payload);
        if (j.value("key", "") != key) return std::nullopt;
        compile_result r = j.get<compile_result>();
        if (!r.ok) return std::nullopt;
        return r;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

std::optional<std::string> read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_file(const fs::path& p, std::string_view data) {
    const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        throw env_error(fmt::format("cannot create {}: {}", p.string(), std::strerror(errno)));
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t w = ::write(fd, data.data() + done, data.size() - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) break;
        done += static_cast<std::size_t>(w);
    }
    // No fsync: after a crash an entry may be short or empty, which get() detects (checksum)
    // and recompiles; an fsync per compile cost ~2 s over a 576-configuration run.
    const int err = done < data.size() ? errno : 0;
    ::close(fd);
    if (err != 0) {
        ::unlink(p.c_str());
        throw env_error(fmt::format("cannot write {}: {}", p.string(), std::strerror(err)));
    }
}

fs::path entry_path(const std::string& dir, const std::string& key) {
    return fs::path(dir) / key.substr(0, 2) / (key + ".bin");
}

struct entry {
    fs::path path;
    uint64_t bytes = 0;
    fs::file_time_type used;
};

// Entries of the cache, removing temp files left by dead writers on the way.
std::vector<entry> scan(const std::string& dir) {
    std::vector<entry> out;
    std::error_code ec;
    const auto now = fs::file_time_type::clock::now();
    for (const auto& sub : fs::directory_iterator(dir, ec)) {
        if (!sub.is_directory(ec) || sub.path().filename().string().size() != 2) continue;
        for (const auto& f : fs::directory_iterator(sub.path(), ec)) {
            entry e{f.path(), f.file_size(ec), f.last_write_time(ec)};
            if (ec) continue;  // removed meanwhile
            if (e.path.extension() == ".bin") {
                out.push_back(std::move(e));
            } else if (e.path.extension() == ".tmp" && now - e.used > stale_temp_age) {
                fs::remove(e.path, ec);
            }
        }
    }
    return out;
}

}  // namespace

compile_cache::compile_cache(std::string dir, uint64_t max_bytes)
    : dir_(std::move(dir)), max_bytes_(max_bytes) {
    std::error_code ec;
    if (dir_.empty()) throw env_error("the compile cache directory is empty");
    fs::create_directories(dir_, ec);
    if (ec || !fs::is_directory(dir_)) {
        throw env_error(fmt::format("cannot create the compile cache {}: {}", dir_, ec.message()));
    }
}

std::string compile_cache::default_dir() {
    const auto env = [](const char* name) {
        const char* v = std::getenv(name);
        return std::string(v ? v : "");
    };
    if (!env("HONE_CACHE_DIR").empty()) return env("HONE_CACHE_DIR");
    if (!env("XDG_CACHE_HOME").empty()) return env("XDG_CACHE_HOME") + "/hone";
    if (!env("HOME").empty()) return env("HOME") + "/.cache/hone";
    throw env_error("no compile cache directory: set HONE_CACHE_DIR or HOME");
}

bool compile_cache::contains(const std::string& key) const {
    std::error_code ec;
    return valid_key(key) && fs::exists(entry_path(dir_, key), ec);
}

std::optional<compile_result> compile_cache::get(const std::string& key) {
    if (!valid_key(key)) return std::nullopt;
    const fs::path p = entry_path(dir_, key);
    const std::optional<std::string> bytes = read_file(p);
    if (!bytes) return std::nullopt;
    std::optional<compile_result> r = decode(*bytes, key);
    if (!r) {
        std::error_code ec;
        fs::remove(p, ec);
        return std::nullopt;
    }
    ::utimensat(AT_FDCWD, p.c_str(), nullptr, 0);  // mtime = last use, for LRU eviction
    r->from_cache = true;
    return r;
}

void compile_cache::put(const std::string& key, const compile_result& r) {
    if (!r.ok || !valid_key(key)) return;
    static std::atomic<uint64_t> serial{0};
    const fs::path p = entry_path(dir_, key);
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    // Unique per process and per call: concurrent writers never share a temp file.
    const fs::path tmp = p.parent_path() / fmt::format(".{}.{}.{}.tmp", key, ::getpid(), ++serial);
    write_file(tmp, encode(key, r));
    if (::rename(tmp.c_str(), p.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw env_error(fmt::format("cannot store {}: {}", p.string(), std::strerror(err)));
    }
    // Scanning the folder on every put made a cold run quadratic in its size: keep a running
    // estimate and scan when it passes the cap, or every rescan_every puts (other processes
    // write here too).
    constexpr uint64_t rescan_every = 256;
    if (!estimate_known_ || ++puts_since_scan_ >= rescan_every) {
        evict();
    } else {
        estimated_bytes_ += fs::file_size(p, ec);
        if (ec || estimated_bytes_ > max_bytes_) evict();
    }
}

void compile_cache::evict() {
    std::vector<entry> entries = scan(dir_);
    uint64_t total = 0;
    for (const auto& e : entries) total += e.bytes;
    estimate_known_ = true;
    puts_since_scan_ = 0;
    estimated_bytes_ = total;
    if (total <= max_bytes_) return;
    std::sort(entries.begin(), entries.end(), [](const entry& a, const entry& b) {
        return a.used != b.used ? a.used < b.used : a.path < b.path;
    });
    std::error_code ec;
    for (const auto& e : entries) {
        if (total <= max_bytes_) break;
        fs::remove(e.path, ec);
        total -= e.bytes;
    }
    estimated_bytes_ = total;
}

}  // namespace hone
