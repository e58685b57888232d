// configs/sgemm_large.yaml on a real GPU at small sizes, verified against the naive reference:
// every configuration tried must compute the right C. This is what catches indexing, pipeline
// and split-K bugs that the host emulator (tests/emu) cannot: the real cp.async, shared memory,
// the memory model across blocks, and repeated launches (the split-K counters must come back to
// 0, or a later launch reads them wrong). Few samples each, to stay quick.
#include <doctest/doctest.h>

#include <cstdio>
#include <map>
#include <set>

#include "gpu_test_util.hpp"
#include "hone/spec.hpp"
#include "hone/tuner.hpp"

using namespace hone;

namespace {

spec quick_sgemm(const char* db, const std::map<std::string, int64_t>& sizes) {
    spec s = load_spec(source_dir() + "/configs/sgemm_large.yaml", sizes);
    s.output = db;
    std::remove(db);
    // Several timed launches after the verified one: the split-K counters must survive them.
    s.timing.min_samples = 5;
    s.timing.max_samples = 10;
    s.timing.max_time_s = 0.05;
    s.timing.warmup_ms = 1;
    return s;
}

// Narrows parameter `name` to the given values.
void narrow(spec& s, const std::string& name, std::vector<value> values) {
    for (auto& p : s.params)
        if (p.name == name) p.values = std::move(values);
}

}  // namespace

TEST_CASE("sgemm_large: random configurations of the whole space compute C right at 512^3") {
    spec s = quick_sgemm("/tmp/hone_gpu_sgemm_large.db", {{"M", 512}, {"N", 512}, {"K", 512}});
    s.search.strategy = "random";
    s.search.max_evals = 40;
    s.search.seed = 11;
    const tune_result r = tune(s, tune_options{});
    REQUIRE(r.records.size() == 40);
    std::size_t timed = 0;
    for (const auto& rec : r.records) {
        CAPTURE(rec.key);
        CAPTURE(rec.message);
        // A block too large for the registers may be refused; nothing else may go wrong.
        CHECK((has_timing(rec.st) || rec.st == status::device_limits));
        timed += has_timing(rec.st);
    }
    CHECK(timed >= 30);
}

TEST_CASE("sgemm_large: every load path, pipeline depth, split-K and a partial GROUP_M group") {
    // 5 x 3 tiles of 128 x 64: GROUP_M 4 leaves a group of one tile row; 5 k-tiles per slice
    // at SPLITK 4, so the 4-stage pipeline wraps around.
    spec s =
        quick_sgemm("/tmp/hone_gpu_sgemm_large_variants.db", {{"M", 640}, {"N", 192}, {"K", 320}});
    narrow(s, "BM", {int64_t{128}});
    narrow(s, "BN", {int64_t{64}});
    narrow(s, "BK", {int64_t{16}});
    narrow(s, "WM", {int64_t{64}});
    narrow(s, "WN", {int64_t{32}});
    narrow(s, "TM", {int64_t{8}});
    narrow(s, "TN", {int64_t{8}});
    narrow(s, "GROUP_M", {int64_t{1}, int64_t{4}});
    s.verify.reference_params.clear();  // the reference is compiled with the first values
    s.search.strategy = "exhaustive";
    s.search.max_evals = 0;
    const tune_result r = tune(s, tune_options{});
    // Load paths: registers with 1 or 2 stages, A transposed or not (4); cp.async with 1 to 4
    // stages (4). Times PAD (2), SPLITK (3), GROUP_M (2).
    REQUIRE(r.records.size() == 8 * 2 * 3 * 2);
    std::set<std::string> pipelines;
    for (const auto& rec : r.records) {
        CAPTURE(rec.key);
        CAPTURE(rec.message);
        CHECK(has_timing(rec.st));
        std::string p;
        for (const auto& [name, v] : rec.params)
            if (name == "ASYNC" || name == "STAGES" || name == "A_T" || name == "SPLITK")
                p += name + "=" + std::to_string(std::get<int64_t>(v)) + " ";
        pipelines.insert(p);
    }
    CHECK(pipelines.size() == 8 * 3);
}
