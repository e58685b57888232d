// Selection tiers and the nearest rule on synthetic tuned entries: exact, nearest (1-D and 2-D,
// interpolated, validity at the new size), architecture, default; stale entries skipped.
#include <doctest/doctest.h>

#include "hone/kernel.hpp"
#include "runtime/select.hpp"
#include "runtime_test_util.hpp"

using namespace hone;
using namespace rt_test;
using runtime::select_config;
using runtime::select_inputs;

namespace {

const std::string gpu = "NVIDIA H100 80GB HBM3";

kernel_selection pick(const spec& s, const std::vector<tuned_entry>& entries,
                      std::vector<int64_t> sizes, const device_attrs& dev = h100()) {
    const select_inputs in{s, entries, kernel_source_hash(s), "spec", "13.0"};
    return select_config(in, dev, sizes);
}

}  // namespace

TEST_CASE("name families: the first word with a digit, vendor words skipped") {
    CHECK(runtime::name_family("NVIDIA H100 80GB HBM3") == "H100");
    CHECK(runtime::name_family("NVIDIA H100 PCIe") == "H100");
    CHECK(runtime::name_family("NVIDIA A100-SXM4-80GB") == "A100");
    CHECK(runtime::name_family("Tesla V100-SXM2-32GB") == "V100");
    CHECK(runtime::name_family("NVIDIA GeForce RTX 4090") == "4090");
    CHECK(runtime::name_family("NVIDIA RTX A6000") == "A6000");
    CHECK(runtime::name_family("NVIDIA GH200 480GB") == "GH200");
    CHECK(runtime::name_family("Mystery") == "Mystery");
}

TEST_CASE("exact: a tuned entry of this device and these sizes, its best valid configuration") {
    const spec s = load_synthetic(spec_1d());
    const std::vector<tuned_entry> entries = {
        entry(s, gpu, {{"N", 1024}}, {{va(128, 4), 1.0}, {va(64, 2), 1.1}}),
        entry(s, gpu, {{"N", 4096}}, {{va(256, 2), 1.0}}),
    };
    const kernel_selection sel = pick(s, entries, {1024});
    CHECK(sel.tier == selection_tier::exact);
    CHECK(sel.key == "BLOCK=128,VEC=4");
    CHECK(sel.tuned_rank == 1);
    CHECK(sel.tuned_time_us == doctest::Approx(10.0));
    CHECK(sel.entry.problem_text() == "N=1024");
    CHECK(sel.kernel == s.kernel.name);
    CHECK(sel.notes.empty());

    SUBCASE("a best configuration that is no longer in the space: the next one, with a note") {
        std::vector<tuned_entry> changed = entries;
        changed[0].configs.insert(changed[0].configs.begin(), tuned_config{va(512, 4), 9, 9, 1.0});
        const kernel_selection s2 = pick(s, changed, {1024});
        CHECK(s2.tier == selection_tier::exact);
        CHECK(s2.key == "BLOCK=128,VEC=4");
        CHECK(s2.tuned_rank == 2);
        REQUIRE(s2.notes.size() == 1);
        CHECK(s2.notes[0].find("BLOCK=512 is not among the spec's values") != std::string::npos);
    }
}

TEST_CASE(
    "nearest, 1-D: linear interpolation of relative time in log2(N) between the bracketing sizes") {
    const spec s = load_synthetic(spec_1d());
    // A is the best at 2^10 and poor at 2^20, B the reverse, C second best at both.
    const params A = va(64, 1), B = va(256, 4), C = va(128, 2);
    const std::vector<tuned_entry> entries = {
        entry(s, gpu, {{"N", 1 << 10}}, {{A, 1.0}, {C, 1.08}, {B, 1.6}}),
        entry(s, gpu, {{"N", 1 << 20}}, {{B, 1.0}, {C, 1.08}, {A, 1.6}}),
    };
    SUBCASE("near the small size: its best") {
        const kernel_selection sel = pick(s, entries, {1 << 11});
        CHECK(sel.tier == selection_tier::nearest);
        CHECK(sel.key == params_key(A));
        // Weights 1/d: 9/10 on 2^10, 1/10 on 2^20.
        REQUIRE(sel.neighbours.size() == 2);
        CHECK(sel.predicted_rel == doctest::Approx(0.9 * 1.0 + 0.1 * 1.6));
        CHECK(sel.entry.problem_text() == "N=1024");  // the nearest neighbour
        CHECK(sel.tuned_rank == 1);
    }
    SUBCASE("midway: the configuration good at both, which no single size ranks first") {
        const kernel_selection sel = pick(s, entries, {1 << 15});
        CHECK(sel.tier == selection_tier::nearest);
        CHECK(sel.key == params_key(C));
        CHECK(sel.predicted_rel == doctest::Approx(1.08));
        // "Nearest volume" takes one neighbour's best, 30% slower at the other.
        const select_inputs in{s, entries, kernel_source_hash(s), "spec", "13.0"};
        const auto vol = runtime::select_nearest_volume(in, h100(), {1 << 15});
        REQUIRE(vol);
        CHECK((vol->key == params_key(A) || vol->key == params_key(B)));
    }
    SUBCASE("near the large size") {
        CHECK(pick(s, entries, {1 << 19}).key == params_key(B));
    }
    SUBCASE("beyond the tuned range: the nearest size alone") {
        const kernel_selection sel = pick(s, entries, {1 << 24});
        CHECK(sel.key == params_key(B));
        REQUIRE(sel.neighbours.size() == 1);
        CHECK(sel.neighbours[0].first == "N=1048576");
        CHECK(sel.neighbours[0].second == doctest::Approx(1.0));
    }
    SUBCASE("a configuration one neighbour does not list counts as that neighbour's worst") {
        // D is 1.0 at 2^20 and missing at 2^10 (worst there: 1.6): 0.5 * 1.6 + 0.5 * 1.0 = 1.3 >
        // C's 1.085.
        std::vector<tuned_entry> more = entries;
        more[1].configs.insert(more[1].configs.begin(), tuned_config{va(128, 4), 10, 10, 1.0});
        for (std::size_t i = 1; i < more[1].configs.size(); ++i) more[1].configs[i].rel += 0.01;
        const kernel_selection sel = pick(s, more, {1 << 15});
        CHECK(sel.key == params_key(C));
    }
}

TEST_CASE("nearest: only configurations valid at the requested size") {
    // N % VEC == 0: at N = 2^15 + 2, VEC = 4 is invalid, VEC = 2 valid.
    const spec s = load_synthetic(spec_1d());
    const std::vector<tuned_entry> entries = {
        entry(s, gpu, {{"N", 1 << 14}}, {{va(128, 4), 1.0}, {va(128, 2), 1.05}, {va(64, 1), 1.3}}),
        entry(s, gpu, {{"N", 1 << 16}}, {{va(128, 4), 1.0}, {va(128, 2), 1.02}, {va(64, 1), 1.4}}),
    };
    CHECK(pick(s, entries, {1 << 15}).key == "BLOCK=128,VEC=4");
    const kernel_selection odd = pick(s, entries, {(1 << 15) + 2});
    CHECK(odd.tier == selection_tier::nearest);
    CHECK(odd.key == "BLOCK=128,VEC=2");
    REQUIRE_FALSE(odd.notes.empty());
    CHECK(odd.notes.back().find("1 configuration with a lower interpolated time is not valid at "
                                "N=32770 (BLOCK=128,VEC=4: constraint 'N % VEC == 0' fails)") !=
          std::string::npos);
    // Nothing tuned is valid at an odd N: the default (the reference, BLOCK=256, VEC=1).
    const kernel_selection none =
        pick(s, {entry(s, gpu, {{"N", 1 << 14}}, {{va(128, 4), 1.0}})}, {(1 << 15) + 1});
    CHECK(none.tier == selection_tier::fallback);
    CHECK(none.key == "BLOCK=256,VEC=1");
}

TEST_CASE(
    "nearest, 2-D: distance in log2 space per dimension, the nearest tuned size in each quadrant") {
    const spec s = load_synthetic(spec_2d());
    auto at = [&](int64_t m, int64_t n, int64_t best, int64_t second) {
        return entry(s, gpu, {{"M", m}, {"N", n}}, {{tile(best), 1.0}, {tile(second), 1.2}});
    };
    SUBCASE("inside a grid of four: all four corners, equal weights at the centre") {
        const std::vector<tuned_entry> grid = {at(256, 256, 16, 32), at(256, 4096, 16, 32),
                                               at(4096, 256, 32, 16), at(4096, 4096, 32, 16)};
        const kernel_selection sel = pick(s, grid, {1024, 1024});
        CHECK(sel.tier == selection_tier::nearest);
        REQUIRE(sel.neighbours.size() == 4);
        for (const auto& [p, w] : sel.neighbours) CHECK(w == doctest::Approx(0.25));
        // 16 and 32 tie at 1.1; the tie goes to the better rank at the nearest neighbour.
        CHECK(sel.predicted_rel == doctest::Approx(1.1));
        // Near one corner, that corner's best.
        CHECK(pick(s, grid, {512, 512}).key == "TILE=16");
        CHECK(pick(s, grid, {2048, 2048}).key == "TILE=32");
        CHECK(pick(s, grid, {2048, 256}).key == "TILE=32");
    }
    SUBCASE("on an edge of the grid: the two sizes of that edge, not the far corners") {
        const std::vector<tuned_entry> grid = {at(256, 256, 16, 32), at(256, 4096, 16, 32),
                                               at(4096, 256, 32, 16), at(4096, 4096, 32, 16)};
        const kernel_selection sel = pick(s, grid, {256, 1024});
        REQUIRE(sel.neighbours.size() == 2);
        CHECK(sel.key == "TILE=16");
        for (const auto& [p, w] : sel.neighbours) CHECK(p.find("M=256,") == 0);
    }
    SUBCASE("shape beats volume: a transposed problem of equal volume is far") {
        // Asked: M=4096, N=64. Tuned: M=64, N=4096 (same volume, other shape) and M=2048, N=64.
        const std::vector<tuned_entry> tuned = {at(64, 4096, 8, 32), at(2048, 64, 32, 8)};
        const kernel_selection sel = pick(s, tuned, {4096, 64});
        CHECK(sel.key == "TILE=32");
        CHECK(sel.entry.problem_text() == "M=2048,N=64");
        const select_inputs in{s, tuned, kernel_source_hash(s), "spec", "13.0"};
        const auto vol = runtime::select_nearest_volume(in, h100(), {4096, 64});
        REQUIRE(vol);
        CHECK(vol->key == "TILE=8");
    }
    SUBCASE("validity per size: a tile that does not divide the new size is passed over") {
        const std::vector<tuned_entry> tuned = {at(1024, 1024, 64, 32), at(4096, 4096, 64, 32)};
        CHECK(pick(s, tuned, {2048, 2048}).key == "TILE=64");
        CHECK(pick(s, tuned, {2048, 2080}).key == "TILE=32");  // 2080 % 64 != 0, 2080 % 32 == 0
    }
}

TEST_CASE("nearest, 3-D: at the centre of a 3 x 3 x 3 grid, the six sizes one step away, equally") {
    const spec s =
        load_spec_text(fmt::format(R"y(kernel: {{source: {}, name: "vector_add<1, false>"}}
problem: {{M: 1024, N: 1024, K: 1024}}
params: {{TILE: [8, 16, 32]}}
buffers: {{c: {{type: float, count: M * N, role: out}}}}
args: [c]
launch: {{grid: [N / TILE, M / TILE], block: [TILE, TILE]}}
)y",
                                   vector_add_source),
                       HONE_SOURCE_DIR "/configs/s3.yaml");
    std::vector<tuned_entry> grid;
    const int64_t values[] = {256, 1024, 4096};
    for (int64_t m : values)
        for (int64_t n : values)
            for (int64_t k : values) {
                if (m == 1024 && n == 1024 && k == 1024) continue;  // the held-out centre
                // TILE=16 is the best at the six faces' centres, 32 everywhere else.
                const int off = (m != 1024) + (n != 1024) + (k != 1024);
                grid.push_back(entry(
                    s, gpu, {{"M", m}, {"N", n}, {"K", k}},
                    off == 1
                        ? std::vector<std::pair<params, double>>{{tile(16), 1.0}, {tile(32), 1.3}}
                        : std::vector<std::pair<params, double>>{{tile(32), 1.0},
                                                                 {tile(16), 1.3}}));
            }
    const kernel_selection sel = pick(s, grid, {1024, 1024, 1024});
    CHECK(sel.tier == selection_tier::nearest);
    REQUIRE(sel.neighbours.size() == 6);
    for (const auto& [p, w] : sel.neighbours) CHECK(w == doctest::Approx(1.0 / 6));
    CHECK(sel.key == "TILE=16");
    CHECK(sel.predicted_rel == doctest::Approx(1.0));
}

TEST_CASE("architecture: another GPU of this name family and architecture; never another family") {
    const spec s = load_synthetic(spec_1d());
    const std::vector<tuned_entry> entries = {
        entry(s, "NVIDIA H100 PCIe", {{"N", 1024}}, {{va(64, 2), 1.0}}),
        entry(s, "NVIDIA A100-SXM4-80GB", {{"N", 1024}}, {{va(128, 1), 1.0}}, "sm_80"),
        entry(s, "NVIDIA H100 PCIe", {{"N", 65536}}, {{va(128, 4), 1.0}}),
    };
    const kernel_selection sel = pick(s, entries, {1024});
    CHECK(sel.tier == selection_tier::architecture);
    CHECK(sel.key == "BLOCK=64,VEC=2");
    CHECK(sel.entry.device_name == "NVIDIA H100 PCIe");
    CHECK(pick(s, entries, {32768}).tier == selection_tier::architecture);
    CHECK(pick(s, entries, {32768}).key == "BLOCK=128,VEC=4");
    // An A100 finds only the A100 entry as its own device: exact.
    device_attrs a100 = *nominal_device("sm_80");
    a100.name = "NVIDIA A100-SXM4-80GB";
    CHECK(pick(s, entries, {1024}, a100).tier == selection_tier::exact);
    // An L40S (sm_89) has nothing: default.
    device_attrs l40 = *nominal_device("sm_89");
    l40.name = "NVIDIA L40S";
    CHECK(pick(s, entries, {1024}, l40).tier == selection_tier::fallback);
    // The device's own entries come first, even at other sizes.
    std::vector<tuned_entry> own = entries;
    own.push_back(entry(s, gpu, {{"N", 4096}}, {{va(256, 1), 1.0}}));
    CHECK(pick(s, own, {1024}).tier == selection_tier::nearest);
}

TEST_CASE("stale entries (the kernel source changed since tuning) are skipped with a note") {
    const spec s = load_synthetic(spec_1d());
    std::vector<tuned_entry> entries = {entry(s, gpu, {{"N", 1024}}, {{va(64, 2), 1.0}}),
                                        entry(s, gpu, {{"N", 4096}}, {{va(128, 4), 1.0}})};
    entries[0].source_hash = "older source";
    const kernel_selection sel = pick(s, entries, {1024});
    CHECK(sel.tier == selection_tier::nearest);  // from the fresh N=4096 entry
    CHECK(sel.key == "BLOCK=128,VEC=4");
    REQUIRE_FALSE(sel.notes.empty());
    CHECK(sel.notes[0].find("1 stale entry skipped") != std::string::npos);
    CHECK(sel.notes[0].find("N=1024") != std::string::npos);
    entries[1].source_hash = "older source";
    const kernel_selection none = pick(s, entries, {1024});
    CHECK(none.tier == selection_tier::fallback);
    bool noted = false;
    for (const auto& n : none.notes)
        noted = noted || n.find("2 stale entries skipped") != std::string::npos;
    CHECK(noted);
}

TEST_CASE("a spec hash other than the current one is used, with a note") {
    const spec s = load_synthetic(spec_1d());
    std::vector<tuned_entry> entries = {entry(s, gpu, {{"N", 1024}}, {{va(64, 2), 1.0}})};
    entries[0].spec_hash = "another";
    const kernel_selection sel = pick(s, entries, {1024});
    CHECK(sel.tier == selection_tier::exact);
    REQUIRE(sel.notes.size() == 1);
    CHECK(sel.notes[0].find("tuned under another spec hash") != std::string::npos);
}

TEST_CASE("entries naming other problem sizes than the spec are skipped") {
    const spec s = load_synthetic(spec_1d());
    const std::vector<tuned_entry> entries = {entry(s, gpu, {{"M", 1024}}, {{va(64, 2), 1.0}})};
    const kernel_selection sel = pick(s, entries, {1024});
    CHECK(sel.tier == selection_tier::fallback);
    bool noted = false;
    for (const auto& n : sel.notes)
        noted = noted || n.find("1 entry names other problem sizes") != std::string::npos;
    CHECK(noted);
}

TEST_CASE("duplicates of one size: the run with this NVRTC, then the newest") {
    const spec s = load_synthetic(spec_1d());
    std::vector<tuned_entry> entries = {entry(s, gpu, {{"N", 1024}}, {{va(64, 2), 1.0}}),
                                        entry(s, gpu, {{"N", 1024}}, {{va(128, 2), 1.0}}),
                                        entry(s, gpu, {{"N", 1024}}, {{va(256, 2), 1.0}})};
    entries[1].tuned_at = "2026-02-01T00:00:00Z";
    entries[2].tuned_at = "2026-03-01T00:00:00Z";
    entries[2].nvrtc_version = "12.8";
    CHECK(pick(s, entries, {1024}).key == "BLOCK=128,VEC=2");
}

TEST_CASE(
    "default: the verify reference when valid, else the first valid configuration, else an error") {
    const spec s = load_synthetic(spec_1d("N % BLOCK == 0"));
    const kernel_selection ref = pick(s, {}, {1024});
    CHECK(ref.tier == selection_tier::fallback);
    CHECK(ref.key == "BLOCK=256,VEC=1");
    CHECK(ref.notes.front() == "no tuned entries for this kernel");
    const kernel_selection first = pick(s, {}, {192});  // 192 % 256 != 0: the first valid
    CHECK(first.key == "BLOCK=64,VEC=1");
    CHECK(first.notes.back() == "the first valid configuration of the space");
    try {
        pick(s, {}, {7});
        FAIL("no configuration is valid at N=7");
    } catch (const input_error& e) {
        CHECK(std::string(e.what()).find("no configuration of the space is valid at N=7") !=
              std::string::npos);
    }
}

TEST_CASE(
    "validity re-evaluates constraints, launch dimensions and buffer counts at the new sizes") {
    const spec s = load_synthetic(spec_2d());
    std::string why;
    const bindings ok = runtime::size_scope(s, {256, 256}, h100());
    CHECK(runtime::valid_config(s, ok, tile(32), &why));
    const bindings bad = runtime::size_scope(s, {256, 200}, h100());
    CHECK_FALSE(runtime::valid_config(s, bad, tile(32), &why));
    CHECK(why == "constraint 'N % TILE == 0' fails");
    CHECK_FALSE(runtime::valid_config(s, ok, {{"TILE", int64_t{32}}, {"X", int64_t{1}}}, &why));
    CHECK(why == "it has 2 parameters, the spec 1");
    CHECK_FALSE(runtime::valid_config(s, ok, {{"X", int64_t{32}}}, &why));
    CHECK(why == "it has no parameter TILE");
    CHECK_FALSE(
        runtime::valid_config(s, ok, {{"TILE", 32.0}}, &why));  // a real is not the integer 32
    // A block of 64 x 64 threads: launch dimensions are valid, the device limit is a constraint's
    // job.
    const spec zero = load_synthetic(spec_1d());
    CHECK_FALSE(
        runtime::valid_config(zero, runtime::size_scope(zero, {0}, h100()), va(64, 1), &why));
}

TEST_CASE("the handle's selection() needs no GPU when given the device") {
    // Through kernel::open with a config file and no tuned results.
    kernel k = kernel::open(HONE_SOURCE_DIR "/tests/gpu/vector_add_small.yaml");
    const kernel_selection sel = k.selection({{"N", 1 << 20}}, h100());
    CHECK(sel.tier == selection_tier::fallback);
    CHECK(sel.key == "BLOCK=256,STRIDED=false,VEC=1");
    CHECK(sel.describe().find("fallback BLOCK=256,STRIDED=false,VEC=1") != std::string::npos);
}
