// Capture files: written and read back, matched by glob, refused when damaged; a folder that
// cannot be written is an env_error (the handle reports it once and goes on); `hone tune
// --captures` argument errors.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "hone/error.hpp"
#include "runtime/capture.hpp"
#include "runtime_test_util.hpp"
#include "temp_dir.hpp"

using namespace hone;
using namespace rt_test;
namespace fs = std::filesystem;

namespace {

runtime::capture_record sample(const std::string& config = "/apps/configs/vector_add.yaml") {
    runtime::capture_record r;
    r.config = config;
    r.kernel = "vector_add<{VEC}, {STRIDED}>";
    r.problem = {{"N", 1000}};
    r.device_name = "NVIDIA H100 80GB HBM3";
    r.arch = "sm_90";
    r.uuid = "GPU-1";
    return r;
}

}  // namespace

TEST_CASE("capture: glob on the kernel's name without template arguments, or the full name") {
    CHECK(runtime::capture_matches("*", "vector_add<{VEC}, {STRIDED}>"));
    CHECK(runtime::capture_matches("vector_add", "vector_add<{VEC}, {STRIDED}>"));
    CHECK(runtime::capture_matches("vector_*", "vector_add<{VEC}, {STRIDED}>"));
    CHECK(runtime::capture_matches("sgemm", "sgemm"));
    CHECK_FALSE(runtime::capture_matches("sgemm", "vector_add<{VEC}, {STRIDED}>"));
    CHECK_FALSE(runtime::capture_matches("", "sgemm"));
}

TEST_CASE("capture: one JSON per (config, kernel, sizes) and the inputs, read back") {
    temp_dir t;
    runtime::capture_record r = sample();
    CHECK(runtime::capture_stem(r) == "vector_add.vector_add.N=1000");
    r.inputs = {{"a", "float", 4, 16, ""}, {"b", "float", 4, 16, ""}};
    std::vector<std::size_t> read;
    runtime::write_capture(t.path.string(), r, [&](std::size_t i, void* dst) {
        read.push_back(i);
        const float v[4] = {1.f * i, 2, 3, 4};
        std::memcpy(dst, v, sizeof v);
    });
    CHECK(read == std::vector<std::size_t>{0, 1});
    CHECK(fs::exists(t.path / "vector_add.vector_add.N=1000.json"));
    CHECK(fs::file_size(t.path / "vector_add.vector_add.N=1000.b.bin") == 16);
    // Another size of the same kernel, without inputs.
    runtime::capture_record r2 = sample();
    r2.problem = {{"N", 2000}};
    runtime::write_capture(t.path.string(), r2, nullptr);
    const auto back = runtime::read_captures(t.path.string());
    REQUIRE(back.size() == 2);
    CHECK(back[0].config == r.config);
    CHECK(back[0].kernel == r.kernel);
    CHECK(back[0].problem == r.problem);
    CHECK(back[0].device_name == r.device_name);
    REQUIRE(back[0].inputs.size() == 2);
    CHECK(back[0].inputs[1].buffer == "b");
    CHECK(back[0].inputs[1].bytes == 16);
    CHECK(back[0].inputs[1].file == (t.path / "vector_add.vector_add.N=1000.b.bin").string());
    CHECK(back[1].problem[0].second == 2000);
    CHECK(back[1].inputs.empty());
    // Nothing temporary is left.
    for (const auto& e : fs::directory_iterator(t.path))
        CHECK(e.path().string().find(".tmp") == std::string::npos);
}

TEST_CASE("capture: a folder that cannot be created or written is an env_error naming it") {
    temp_dir t;
    t.write("file", "x");
    CHECK_THROWS_WITH_AS(runtime::write_capture(t.file("file"), sample(), nullptr),
                         doctest::Contains("capture folder"), env_error);
    CHECK_THROWS_WITH_AS(runtime::write_capture(t.file("file") + "/sub", sample(), nullptr),
                         doctest::Contains("cannot be created"), env_error);
}

TEST_CASE("capture: damaged, foreign or incomplete capture files are input errors") {
    temp_dir t;
    CHECK_THROWS_WITH_AS(runtime::read_captures(t.file("none")),
                         doctest::Contains("no such folder"), input_error);
    t.write("a.json", "{\n  \"format\": \"hone-capture\",\n  oops\n}");
    try {
        runtime::read_captures(t.path.string());
        FAIL("accepted");
    } catch (const input_error& e) {
        CHECK(e.pos().line == 3);
        CHECK(e.pos().column == 3);
        CHECK(e.message().find("not valid JSON") != std::string::npos);
    }
    t.write("a.json", R"({"format": "hone-wisdom", "version": 1})");
    CHECK_THROWS_WITH_AS(runtime::read_captures(t.path.string()),
                         doctest::Contains("not a hone capture file"), input_error);
    t.write("a.json", R"({"format": "hone-capture", "version": 7})");
    CHECK_THROWS_WITH_AS(runtime::read_captures(t.path.string()),
                         doctest::Contains("capture version 7"), input_error);
    t.write(
        "a.json",
        R"({"format": "hone-capture", "version": 1, "config": "c.yaml", "kernel": "k", "problem": {"N": "x"}})");
    CHECK_THROWS_WITH_AS(runtime::read_captures(t.path.string()),
                         doctest::Contains("expected an integer"), input_error);
    t.write(
        "a.json",
        R"({"format": "hone-capture", "version": 1, "config": "c.yaml", "kernel": "k", "problem": {"N": 1},
                          "inputs": {"a": {"file": "gone.bin"}}})");
    CHECK_THROWS_WITH_AS(runtime::read_captures(t.path.string()),
                         doctest::Contains("gone.bin is missing"), input_error);
    t.write("a.json", R"({"format": "hone-capture", "version": 1, "kernel": "k", "problem": {}})");
    CHECK_THROWS_WITH_AS(runtime::read_captures(t.path.string()),
                         doctest::Contains("\"config\": expected a string"), input_error);
}

TEST_CASE("hone tune --captures: argument errors and captures of other kernels, exit 2") {
    temp_dir t;
    const std::string cfg = HONE_SOURCE_DIR "/configs/vector_add.yaml";
    cli_output r = hone_cli(fmt::format("tune {} --captures {} --set N=4", cfg, t.path.string()));
    CHECK(r.rc == 2);
    CHECK(r.output.find("excludes") != std::string::npos);
    CHECK(hone_cli(fmt::format("tune {} --captures {} --dry-run", cfg, t.path.string())).rc == 2);
    CHECK(hone_cli(fmt::format("tune {} --captures {} --only X", cfg, t.path.string())).rc == 2);
    CHECK(hone_cli(fmt::format("tune {} --captures", cfg)).rc == 2);
    r = hone_cli(fmt::format("tune {} --captures {}", cfg, t.file("missing")));
    CHECK(r.rc == 2);
    CHECK(r.output.find("no such folder") != std::string::npos);
    r = hone_cli(fmt::format("tune {} --captures {}", cfg, t.path.string()));
    CHECK(r.rc == 2);
    CHECK(r.output.find("no capture of vector_add<{VEC}, {STRIDED}> from vector_add.yaml (the "
                        "folder has no capture file)") != std::string::npos);
    runtime::capture_record other = sample("/x/sgemm.yaml");
    other.kernel = "sgemm";
    runtime::write_capture(t.path.string(), other, nullptr);
    r = hone_cli(fmt::format("tune {} --captures {}", cfg, t.path.string()));
    CHECK(r.rc == 2);
    CHECK(r.output.find("(it has sgemm of sgemm.yaml)") != std::string::npos);
    // A capture of this config naming a size it does not have.
    runtime::capture_record odd = sample("/elsewhere/vector_add.yaml");
    odd.problem = {{"M", 5}};
    runtime::write_capture(t.path.string(), odd, nullptr);
    r = hone_cli(fmt::format("tune {} --captures {}", cfg, t.path.string()));
    CHECK(r.rc == 2);
    CHECK(r.output.find("the captured problem size 'M' is not one of vector_add.yaml's sizes") !=
          std::string::npos);
    // A capture that leaves out one of the config's sizes (sgemm: M, N, K).
    runtime::capture_record partial = sample("/elsewhere/sgemm.yaml");
    partial.kernel = "sgemm";
    partial.problem = {{"M", 256}, {"N", 256}};
    temp_dir t2;
    runtime::write_capture(t2.path.string(), partial, nullptr);
    r = hone_cli(
        fmt::format("tune {}/configs/sgemm.yaml --captures {}", HONE_SOURCE_DIR, t2.path.string()));
    CHECK(r.rc == 2);
    CHECK(r.output.find("the capture does not give sgemm.yaml's problem size 'K'") !=
          std::string::npos);
    // A damaged capture file: its line and column.
    t.write("zz.json", "{\"format\": \"hone-capture\",,}");
    r = hone_cli(fmt::format("tune {} --captures {}", cfg, t.path.string()));
    CHECK(r.rc == 2);
    CHECK(r.output.find("zz.json:1:27: not valid JSON") != std::string::npos);
}
