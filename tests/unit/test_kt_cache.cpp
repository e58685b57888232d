// Kernel Tuner cache files: what is read, and every way a file can be refused.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "damaged_input.hpp"
#include "formats/json_file.hpp"
#include "formats/kt_cache.hpp"
#include "hone/error.hpp"
#include "temp_dir.hpp"

using namespace hone;

namespace {

// A small cache of our own making, in Kernel Tuner's layout.
const char* const small_cache = R"({
  "device_name": "NVIDIA GeForce RTX 2080 Ti",
  "kernel_name": "vadd",
  "problem_size": [1024],
  "tune_params_keys": ["block", "vec", "fast"],
  "tune_params": {"block": [32, 64], "vec": [1, 2], "fast": [false, true]},
  "objective": "time",
  "cache": {
    "32,1,False": {"block": 32, "vec": 1, "fast": false, "time": 1.5, "times": [1.4, 1.5, 1.6],
                   "compile_time": 20.5, "verification_time": 1, "benchmark_time": 3,
                   "framework_time": 0.5, "strategy_time": 0, "timestamp": "2024-01-01 10:00:00",
                   "GFLOP/s": 12.5},
    "64,2,True": {"block": 64, "vec": 2, "fast": true, "time": "CompilationFailedConfig",
                  "compile_time": 3},
    "64,1,False": {"block": 64.0, "vec": 1, "fast": false, "time": "InvalidConfig"}
  }
})";

std::string error_of(const std::string& text) {
    try {
        parse_kt_cache(text, "x.json");
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("kt cache: header, parameters, times, failures and metrics are read") {
    const kt_cache c = parse_kt_cache(small_cache, "x.json");
    CHECK(c.device_name == "NVIDIA GeForce RTX 2080 Ti");
    CHECK(c.kernel_name == "vadd");
    CHECK(c.problem_size == "[1024]");
    CHECK(c.param_names == std::vector<std::string>{"block", "vec", "fast"});
    CHECK(c.param_values[2] == std::vector<value>{false, true});
    REQUIRE(c.entries.size() == 3);
    const kt_entry& ok = c.entries[0];
    CHECK(ok.index == std::vector<uint32_t>{0, 0, 0});
    REQUIRE(ok.time_ms);
    CHECK(*ok.time_ms == 1.5);
    CHECK(ok.times_ms == std::vector<double>{1.4, 1.5, 1.6});
    CHECK(ok.compile_time_ms == 20.5);
    CHECK(ok.timestamp == "2024-01-01 10:00:00");
    CHECK(ok.metrics == std::map<std::string, double>{{"GFLOP/s", 12.5}});
    CHECK(c.key(ok) == "32,1,False");
    CHECK_FALSE(c.entries[1].time_ms);
    CHECK(c.entries[1].failure == "CompilationFailedConfig");
    CHECK(c.entries[2].index == std::vector<uint32_t>{1, 0, 0});  // 64.0 matches 64
    CHECK(c.entries[2].failure == "InvalidConfig");
}

TEST_CASE("kt cache: every malformed file is refused with what was expected") {
    CHECK(error_of("{\"cache\": ").find("x.json:1:11: not valid JSON") == 0);
    CHECK(error_of("[1, 2]").find("not a Kernel Tuner cache") != std::string::npos);
    CHECK(error_of(replaced(small_cache, "\"device_name\": \"NVIDIA GeForce RTX 2080 Ti\",", ""))
              .find("no \"device_name\"") != std::string::npos);
    CHECK(error_of(replaced(small_cache, "\"time\": \"InvalidConfig\"", "\"time\": \"Slow\""))
              .find("time is the string \"Slow\"; expected a number or one of InvalidConfig") !=
          std::string::npos);
    // The error points at the record's key.
    CHECK(error_of(replaced(small_cache, "\"time\": \"InvalidConfig\"", "\"time\": \"Slow\""))
              .find("x.json:15:") == 0);
    CHECK(
        error_of(replaced(small_cache, "\"vec\": 2, \"fast\": true", "\"vec\": 3, \"fast\": true"))
            .find("vec = 3 is not one of the values") != std::string::npos);
    CHECK(error_of(replaced(small_cache, "\"tune_params\": {\"block\"",
                            "\"tune_params\": {\"grid\": [1], \"block\""))
              .find("parameter 'grid' of \"tune_params\" is not in \"tune_params_keys\"") !=
          std::string::npos);
    CHECK(error_of(replaced(small_cache, "\"block\": 64, \"vec\": 2,", "\"vec\": 2,"))
              .find("has no value for parameter 'block'") != std::string::npos);
    CHECK(error_of(replaced(small_cache, "\"time\": 1.5,", "")).find("has no \"time\"") !=
          std::string::npos);
}

TEST_CASE("kt cache: gzip'd files are read; a truncated one is refused") {
    temp_dir dir;
    const std::string whole = dir.file("c.json.gz"), cut = dir.file("cut.json.gz");
    write_gzip(whole, small_cache, 0);
    CHECK(read_kt_cache(whole).entries.size() == 3);
    write_gzip(cut, small_cache, 60);
    try {
        read_kt_cache(cut);
        FAIL("a truncated gzip file was read");
    } catch (const input_error& e) {
        CHECK(std::string(e.what()).find("damaged or truncated gzip data") != std::string::npos);
    }
    CHECK_THROWS_AS(read_kt_cache(dir.file("absent.json")), input_error);
}

TEST_CASE("kt cache: a cache left open by its run is read to its last record") {
    // Kernel Tuner writes `record,` as it measures and the closing braces when the run ends.
    const std::string whole = small_cache;
    const std::string head = whole.substr(0, whole.find("    \"64,2,True\""));
    const std::string after_two = whole.substr(0, whole.find("    \"64,1,False\""));
    const std::string records = whole.substr(0, whole.find("\"cache\": {") + 10);
    CHECK_FALSE(parse_kt_cache(whole, "x.json").left_open);
    CHECK_FALSE(closed_open_cache(whole));
    SUBCASE("after a record and its comma") {
        const kt_cache c = parse_kt_cache(head, "x.json");
        CHECK(c.left_open);
        REQUIRE(c.entries.size() == 1);
        CHECK(c.key(c.entries[0]) == "32,1,False");
        CHECK(parse_kt_cache(after_two + "\n\n", "x.json").entries.size() == 2);
    }
    SUBCASE("after a record without its comma, and with no record yet") {
        const std::string no_comma = head.substr(0, head.rfind(','));
        CHECK(parse_kt_cache(no_comma, "x.json").entries.size() == 1);
        const kt_cache empty = parse_kt_cache(records, "x.json");
        CHECK(empty.left_open);
        CHECK(empty.entries.empty());
    }
    SUBCASE("a damaged record of an open cache is refused where the file has it") {
        const std::string bad =
            replaced(after_two, "\"vec\": 2, \"fast\": true", "\"vec\": 3, \"fast\": true");
        CHECK(error_of(bad).find("x.json:13:5:") == 0);
        CHECK(error_of(bad).find("vec = 3 is not one of the values") != std::string::npos);
    }
    SUBCASE("a cut inside a record, or outside \"cache\", stays a syntax error") {
        CHECK_FALSE(closed_open_cache(head + "    \"64,2,True\": {\"block\": 64"));
        CHECK(error_of(head + "    \"64,2,True\": {\"block\": 64").find("not valid JSON") !=
              std::string::npos);
        CHECK(error_of(head + "    \"64,2,Tr").find("not valid JSON") != std::string::npos);
        CHECK_FALSE(closed_open_cache("[{\"a\": 1},"));
        CHECK_FALSE(closed_open_cache("{\"cache\": {\"k\": \"},"));  // inside a string
    }
    SUBCASE("read twice, as the import reads it, to the same records") {
        std::vector<std::string> keys;
        const kt_cache h = scan_kt_cache(after_two, "x.json", [](auto&&...) {});
        scan_kt_records(after_two, "x.json", h,
                        [&](const kt_cache&, const std::string& key, const nlohmann::json&,
                            kt_entry&&) { keys.push_back(key); });
        CHECK(keys == std::vector<std::string>{"32,1,False", "64,2,True"});
    }
}

TEST_CASE("kt cache: the brute-forced spaces in ../shared/spaces read whole") {
    const std::string path =
        std::string(HONE_SOURCE_DIR) + "/../shared/spaces/gemm_RTX_2080_Ti.json.gz";
    if (!std::filesystem::exists(path)) {
        MESSAGE("skipped: " << path << " is not on this machine");
        return;
    }
    const kt_cache c = read_kt_cache(path);
    CHECK(c.kernel_name == "Xgemm");
    CHECK(c.param_names.size() == 15);
    CHECK(c.entries.size() == 17956);
    for (const auto& e : c.entries) CHECK(e.index.size() == 15);
}

TEST_CASE("kt cache: read as a stream of records, in file order, none kept") {
    std::vector<std::string> keys;
    const kt_cache c = scan_kt_cache(
        small_cache, "x.json",
        [&](const kt_cache& h, const std::string& key, const nlohmann::json&, kt_entry&& e) {
            CHECK(h.record_count == 3);
            CHECK(h.key(e) == key);
            keys.push_back(key);
        });
    CHECK(keys == std::vector<std::string>{"32,1,False", "64,2,True", "64,1,False"});
    CHECK(c.entries.empty());  // none is kept
    CHECK(c.param_names == std::vector<std::string>{"block", "vec", "fast"});
    CHECK(c.record_count == 3);
}

TEST_CASE("kt cache: \"cache\" before the header, and given twice") {
    const std::string header =
        R"("device_name": "GPU", "kernel_name": "k", "tune_params_keys": ["x"],
           "tune_params": {"x": [1, 2]})";
    const std::string records =
        R"("cache": {"2": {"x": 2, "time": 2.5}, "1": {"x": 1, "time": 1.5}})";
    const kt_cache c = parse_kt_cache("{" + records + ", " + header + "}", "x.json");
    REQUIRE(c.entries.size() == 2);
    CHECK(c.key(c.entries[0]) == "2");
    CHECK(c.key(c.entries[1]) == "1");
    CHECK(error_of("{" + header + R"(, "cache": {}, )" + records + "}").find("given twice") !=
          std::string::npos);
}
