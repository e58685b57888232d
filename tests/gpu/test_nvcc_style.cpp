// Kernels written as for nvcc, tuned as a user would: toolkit headers (cuda_fp16.h, cub,
// cuRAND), the standard headers NVRTC lacks, sizes kept out of the macros or left in them beside
// headers that name template parameters alike, 2D launches, a __half scalar argument, a
// __constant__ filter. Every configuration compiles, runs and matches its reference (timed: ok,
// or not_converged where the interval stays wide).
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "gpu_test_util.hpp"
#include "hone/spec.hpp"
#include "hone/tuner.hpp"

using namespace hone;

namespace {

void tune_all_ok(const std::string& config, std::size_t expected) {
    CAPTURE(config);
    spec s = load_spec(source_dir() + "/" + config);
    s.output = "/tmp/hone_gpu_nvcc_style.db";
    std::remove(s.output.c_str());
    tune_options opt;
    opt.use_cache = false;
    const tune_result r = tune(s, opt);
    CHECK(r.evaluated == expected);
    REQUIRE(r.records.size() == expected);
    for (const auto& rec : r.records) {
        CAPTURE(rec.key);
        CAPTURE(rec.message);
        CHECK(has_timing(rec.st));  // ok or not_converged: ran and matched the reference
    }
}

}  // namespace

TEST_CASE("kernels written for nvcc tune, every configuration verified") {
    tune_all_ok("configs/axpy_half.yaml", 36);
    tune_all_ok("tests/gpu/nvcc_style/transpose.yaml", 12);
    tune_all_ok("tests/gpu/nvcc_style/hist.yaml", 8);
    tune_all_ok("tests/gpu/nvcc_style/std_headers.yaml", 4);
    tune_all_ok("tests/gpu/nvcc_style/half_scalar.yaml", 4);
    tune_all_ok("tests/gpu/nvcc_style/constant.yaml", 4);
    tune_all_ok("tests/gpu/nvcc_style/rand_cub.yaml", 4);
}

TEST_CASE("a buffer naming a variable the kernel lacks costs each configuration a launch error") {
    spec s = load_spec(source_dir() + "/tests/gpu/nvcc_style/constant.yaml");
    s.output = "/tmp/hone_gpu_nvcc_symbol.db";
    std::remove(s.output.c_str());
    s.verify.ref = reference_kind::none;
    for (auto& b : s.buffers)
        if (b.name == "taps") b.symbol = "tapz";
    tune_options opt;
    opt.use_cache = false;
    const tune_result r = tune(s, opt);
    REQUIRE(r.records.size() == 4);
    for (const auto& rec : r.records) {
        CAPTURE(rec.message);
        CHECK(rec.st == status::launch_error);
        CHECK(rec.message.find("'tapz'") != std::string::npos);
    }
}

TEST_CASE("args that do not match the kernel's parameters cost each configuration a launch error") {
    // scale_half(const __half* x, __half* y, __half a, float b, int n): five parameters.
    spec s = load_spec(source_dir() + "/tests/gpu/nvcc_style/half_scalar.yaml");
    s.verify.ref = reference_kind::none;
    tune_options opt;
    opt.use_cache = false;
    auto run = [&](const char* db) {
        s.output = db;
        std::remove(s.output.c_str());
        return tune(s, opt);
    };
    s.args.pop_back();  // n missing
    tune_result r = run("/tmp/hone_gpu_nvcc_args_count.db");
    REQUIRE(r.records.size() == 4);
    for (const auto& rec : r.records) {
        CAPTURE(rec.message);
        CHECK(rec.st == status::launch_error);
        CHECK(rec.message.find("the kernel takes 5 parameters (8, 8, 2, 4, 4 bytes) and args gives "
                               "4 (8, 8, 2, 4 bytes)") != std::string::npos);
    }
    s = load_spec(source_dir() + "/tests/gpu/nvcc_style/half_scalar.yaml");
    s.verify.ref = reference_kind::none;
    s.args[3].type = elem_type::f64;  // a double where the kernel takes a float
    r = run("/tmp/hone_gpu_nvcc_args_size.db");
    REQUIRE(r.records.size() == 4);
    for (const auto& rec : r.records) {
        CAPTURE(rec.message);
        CHECK(rec.st == status::launch_error);
        CHECK(rec.message.find("the kernel's parameter 4 is 4 bytes, and args gives it double (8 "
                               "bytes)") != std::string::npos);
    }
}

TEST_CASE(
    "a kernel that syncs its grid tunes with launch.cooperative; a grid too large to be "
    "resident at once is refused before it launches") {
    spec s = load_spec(source_dir() + "/tests/gpu/nvcc_style/grid_sum.yaml");
    REQUIRE(s.launch.cooperative);
    s.output = "/tmp/hone_gpu_grid_sum.db";
    std::remove(s.output.c_str());
    tune_options opt;
    opt.use_cache = false;
    const tune_result r = tune(s, opt);
    REQUIRE(r.records.size() == 6);
    for (const auto& rec : r.records) {
        CAPTURE(rec.key);
        CAPTURE(rec.message);
        if (rec.key.find("BLOCKS_PER_SM=64") != std::string::npos) {
            CHECK(rec.st == status::device_limits);
            CHECK(rec.message.find("a cooperative grid of") != std::string::npos);
        } else {
            CHECK(has_timing(rec.st));  // ran, synced its grid, matched the reference
        }
    }
    // Without the cooperative launch the grid's sync faults, first in the reference: the
    // error says what to set.
    s.launch.cooperative = false;
    std::remove(s.output.c_str());
    try {
        tune(s, opt);
        FAIL("a grid sync without a cooperative launch ran");
    } catch (const env_error& e) {
        CHECK(std::string(e.what()).find("set launch.cooperative: true") != std::string::npos);
    }
}
