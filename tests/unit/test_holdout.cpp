// The selection-quality analysis on synthetic databases: which sizes are held out, how a choice
// is scored, and the `hone selection-quality` command.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "runtime/holdout.hpp"
#include "runtime_test_util.hpp"
#include "temp_dir.hpp"

using namespace hone;
using namespace rt_test;

namespace {

// Times of three configurations along N: A is best small, B best large, C close to the best
// everywhere; VEC=4 needs N % 4 == 0.
std::vector<std::pair<params, double>> times_at(int64_t n) {
    const double x = std::log2(static_cast<double>(n));  // 10 .. 20
    const double a = 10 + (x - 10) * 1.0, b = 20 - (x - 10) * 1.0, best = std::min(a, b);
    return {{va(64, 1), a}, {va(256, 4), b}, {va(128, 2), best * 1.03 + 0.01}};
}

}  // namespace

TEST_CASE("hold-out: every other size in one dimension, scored by the held-out run") {
    temp_dir t;
    const spec s = load_synthetic(spec_1d());
    std::vector<tuned_entry> entries;
    {
        results_store db(t.file("ladder.db"));
        for (int e = 10; e <= 20; e += 2)
            add_run(db, s, "NVIDIA H100 80GB HBM3", fmt::format("N={}", int64_t{1} << e),
                    times_at(int64_t{1} << e));
    }
    entries = read_tuned(t.file("ladder.db"));
    const runtime::holdout_report r = runtime::evaluate_holdout(s, entries);
    CHECK(r.tuned == 6);
    CHECK(r.held_out == 3);  // 2^12, 2^16, 2^20 (ranks 1, 3, 5)
    REQUIRE(r.rows.size() == 3);
    CHECK(r.rows[0].problem == "N=4096");
    CHECK(r.rows[2].problem == "N=1048576");
    for (const auto& row : r.rows) {
        CAPTURE(row.problem);
        CHECK(row.hone_fraction > 0);
        CHECK(row.hone_fraction <= 1.0);
        CHECK(row.volume_fraction > 0);
    }
    // At 2^16 (midway between 2^14 and 2^18): A = 16, B = 14, C = 14.43: B is the optimum.
    // hone interpolates 2^14 (A best: 14 vs B 16) and 2^18 (B best) and takes C (1.03x at
    // both), scoring 14 / 14.43; nearest volume takes 2^14's best, A: 14 / 16.
    const runtime::holdout_row& mid = r.rows[1];
    CHECK(mid.problem == "N=65536");
    CHECK(mid.best_key == "BLOCK=256,VEC=4");
    CHECK(mid.hone_key == "BLOCK=128,VEC=2");
    CHECK(mid.hone_fraction == doctest::Approx(14.0 / (14.0 * 1.03 + 0.01)));
    CHECK(mid.volume_fraction == doctest::Approx(14.0 / 16.0).epsilon(0.02));
    CHECK(r.hone.n == 3);
    CHECK(r.hone.within_95 == 3);
    CHECK(r.hone.worst >= 0.95);
    CHECK(r.volume.within_95 < 3);
    const std::string md = runtime::holdout_markdown(r);
    CHECK(md.find("| hone (interpolated relative time, valid at the size) | 3/3 (100.0%) |") !=
          std::string::npos);
}

TEST_CASE("hold-out in two dimensions: a checkerboard of the tuned grid") {
    const spec s = load_synthetic(spec_2d());
    std::vector<tuned_entry> entries;
    for (int64_t m : {256, 512, 1024})
        for (int64_t n : {256, 512, 1024})
            entries.push_back(entry(s, "NVIDIA H100 80GB HBM3", {{"M", m}, {"N", n}},
                                    {{tile(32), 1.0}, {tile(16), 1.1}}));
    const runtime::holdout_report r = runtime::evaluate_holdout(s, entries);
    CHECK(r.tuned == 9);
    CHECK(r.held_out == 4);  // (256,512), (512,256), (512,1024), (1024,512)
    for (const auto& row : r.rows) CHECK(row.hone_fraction == doctest::Approx(1.0));
}

TEST_CASE("hone selection-quality: markdown and JSON; errors") {
    temp_dir t;
    t.write("va.yaml", spec_1d());
    const spec s = load_spec(t.file("va.yaml"));
    {
        results_store db(t.file("ladder.db"));
        for (int e = 10; e <= 20; e += 2)
            add_run(db, s, "NVIDIA H100 80GB HBM3", fmt::format("N={}", int64_t{1} << e),
                    times_at(int64_t{1} << e));
        results_store one(t.file("one.db"));
        add_run(one, s, "NVIDIA H100 80GB HBM3", "N=1024", times_at(1024));
    }
    cli_output r =
        hone_cli(fmt::format("selection-quality {} {}", t.file("va.yaml"), t.file("ladder.db")));
    CHECK(r.rc == 0);
    CHECK(r.output.find("3 held-out of 6 tuned sizes") != std::string::npos);
    r = hone_cli(
        fmt::format("selection-quality {} {} --json", t.file("va.yaml"), t.file("ladder.db")));
    CHECK(r.rc == 0);
    const auto j = nlohmann::json::parse(r.output);
    CHECK(j["held_out"] == 3);
    CHECK(j["hone"]["within_95"] == 3);
    CHECK(j["rows"].size() == 3);
    r = hone_cli(fmt::format("selection-quality {} {}", t.file("va.yaml"), t.file("one.db")));
    CHECK(r.rc == 2);
    CHECK(r.output.find("no held-out size") != std::string::npos);
    CHECK(hone_cli(fmt::format("selection-quality {}", t.file("va.yaml"))).rc == 2);
    // A wisdom file works too (each size's best few only); a damaged one is bad input.
    CHECK(
        hone_cli(fmt::format("export {} --wisdom {}", t.file("ladder.db"), t.file("w.json"))).rc ==
        0);
    r = hone_cli(fmt::format("selection-quality {} {}", t.file("va.yaml"), t.file("w.json")));
    CHECK(r.rc == 0);
    CHECK(r.output.find("3 held-out of 6 tuned sizes") != std::string::npos);
    t.write("bad.json",
            "{\n  \"format\": \"hone-wisdom\",\n  \"version\": 1,\n  \"entries\": [}\n");
    r = hone_cli(fmt::format("selection-quality {} {}", t.file("va.yaml"), t.file("bad.json")));
    CHECK(r.rc == 2);
    CHECK(r.output.find("bad.json:4:15: not valid JSON") != std::string::npos);
    r = hone_cli(
        fmt::format("selection-quality {} {} --arch sm_1", t.file("va.yaml"), t.file("ladder.db")));
    CHECK(r.rc == 2);
    CHECK(r.output.find("no device attributes known for sm_1") != std::string::npos);
}
