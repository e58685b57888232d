// The kernel handle on a GPU: launches in the application's context and stream with correct
// results at tuned and untuned sizes, from several threads; selection tiers on the real
// device; stale entries skipped; a kernel that no longer compiles; the example application
// with a synthetic wisdom file; and the capture loop (run, capture, tune the captures, export,
// run again: every size exact); a kernel that syncs its grid, launched cooperatively. All in
// suite in_process: they initialise CUDA here.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <vector>

#include "compile/compile.hpp"
#include "driver/devices.hpp"
#include "driver/resources.hpp"
#include "gpu_test_util.hpp"
#include "hone/kernel.hpp"
#include "hone/spec.hpp"
#include "hone/wisdom.hpp"

using namespace hone;
namespace fs = std::filesystem;

namespace {

struct tmp_dir {
    fs::path path;
    tmp_dir() {
        std::string t = (fs::temp_directory_path() / "hone-gpu-kernel-XXXXXX").string();
        REQUIRE(mkdtemp(t.data()) != nullptr);
        path = t;
    }
    ~tmp_dir() { fs::remove_all(path); }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

using params = std::vector<std::pair<std::string, value>>;

params small(int64_t block, bool strided, int64_t vec) {
    return {{"BLOCK", block}, {"STRIDED", strided}, {"VEC", vec}};
}

tuned_entry entry_for(const spec& s, const std::string& device, const std::string& arch,
                      std::vector<std::pair<std::string, int64_t>> problem,
                      std::vector<params> ranked) {
    tuned_entry e;
    e.kernel = s.kernel.name;
    e.config = s.path;
    e.source_hash = kernel_source_hash(s);
    e.device_name = device;
    e.arch = arch;
    e.problem = std::move(problem);
    double rel = 1.0;
    for (auto& p : ranked) {
        e.configs.push_back({std::move(p), 10 * rel, 10 * rel, rel});
        rel += 0.1;
    }
    e.ranked = e.configs.size();
    return e;
}

// vector_add_small (BLOCK 128|256, STRIDED, VEC 1|4), launched at n through k; checks c = a + b.
void check_vector_add(const kernel& k, CUstream stream, int64_t n, bool all_args = false) {
    CAPTURE(n);
    std::vector<float> a(n), b(n), c(n, -1.f);
    for (int64_t i = 0; i < n; ++i) {
        a[i] = static_cast<float>(i % 1000) * 0.5f;
        b[i] = static_cast<float>(i % 77) - 3.f;
    }
    cu::device_buffer da(n * 4, false), db(n * 4, false), dc(n * 4, false);
    da.upload(a.data());
    db.upload(b.data());
    dc.upload(c.data());
    float* pa = reinterpret_cast<float*>(da.ptr());
    float* pb = reinterpret_cast<float*>(db.ptr());
    float* pc = reinterpret_cast<float*>(dc.ptr());
    if (all_args)
        k.launch(stream, {{"N", n}}, pa, pb, pc, n);
    else
        k.launch(stream, {{"N", n}}, pa, pb, pc);
    REQUIRE(cu::driver().cuStreamSynchronize(stream) == CUDA_SUCCESS);
    dc.download(c.data());
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) wrong += c[i] != a[i] + b[i];
    CHECK(wrong == 0);
}

std::size_t count(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        ++n;
    return n;
}

const std::string small_yaml() {
    return source_dir() + "/tests/gpu/vector_add_small.yaml";
}

}  // namespace

TEST_CASE(
    "the handle launches vector_add in the application's context and stream, at tuned and untuned "
    "sizes" *
    doctest::test_suite("in_process")) {
    cu::primary_context ctx(0);
    const device_info dev = cu::read_device_info(0);
    cu::stream st;
    tmp_dir t;
    const spec s = load_spec(small_yaml());
    write_wisdom(t.file("w.json"), {entry_for(s, dev.attrs.name, dev.attrs.arch(), {{"N", 1 << 20}},
                                              {small(128, true, 4), small(256, false, 4)}),
                                    entry_for(s, dev.attrs.name, dev.attrs.arch(), {{"N", 1 << 16}},
                                              {small(256, false, 1)})});
    kernel_options opt;
    opt.cache_dir = t.file("cache");
    const kernel k = kernel::open(small_yaml(), t.file("w.json"), opt);
    CHECK(k.tuned_entries() == 2);
    CUcontext before = nullptr;
    REQUIRE(cu::driver().cuCtxGetCurrent(&before) == CUDA_SUCCESS);

    check_vector_add(k, st.get(), 1 << 20);
    const kernel_selection exact = k.selection({{"N", 1 << 20}});
    CHECK(exact.tier == selection_tier::exact);
    CHECK(exact.key == "BLOCK=128,STRIDED=true,VEC=4");
    check_vector_add(k, st.get(), (1 << 20) + 3);  // untuned, not a multiple of 4: the tail path
    CHECK(k.selection({{"N", (1 << 20) + 3}}).tier == selection_tier::nearest);
    check_vector_add(k, st.get(), 1 << 16, true);  // every argument given
    CHECK(k.selection({{"N", 1 << 16}}).key == "BLOCK=256,STRIDED=false,VEC=1");
    check_vector_add(k, st.get(), 5000);
    check_vector_add(k, st.get(), 1 << 20);  // the hot path of a size seen before
    CUcontext after = nullptr;
    REQUIRE(cu::driver().cuCtxGetCurrent(&after) == CUDA_SUCCESS);
    CHECK(after == before);

    // No tuned results at all: the spec's verify reference.
    const kernel plain = kernel::open(small_yaml(), "", opt);
    check_vector_add(plain, st.get(), 12345);
    const kernel_selection fb = plain.selection({{"N", 12345}});
    CHECK(fb.tier == selection_tier::fallback);
    CHECK(fb.key == "BLOCK=256,STRIDED=false,VEC=1");
}

TEST_CASE("the handle launches a kernel that syncs its grid cooperatively" *
          doctest::test_suite("in_process")) {
    cu::primary_context ctx(0);
    const device_info dev = cu::read_device_info(0);
    cu::stream st;
    tmp_dir t;
    kernel_options opt;
    opt.cache_dir = t.file("cache");
    // No tuned results: the verify reference (BLOCK 256, one block a multiprocessor).
    const kernel k = kernel::open(source_dir() + "/tests/gpu/nvcc_style/grid_sum.yaml", "", opt);
    const int64_t n = (1 << 20) + 7;
    std::vector<uint32_t> in(n);
    uint32_t want = 0;
    for (int64_t i = 0; i < n; ++i) want += in[i] = static_cast<uint32_t>(i % 1000);
    cu::device_buffer din(n * 4, false), partial(dev.attrs.sm_count * 64 * 4, false),
        dout(4, false);
    din.upload(in.data());
    k.launch(st.get(), {{"N", n}}, reinterpret_cast<uint32_t*>(din.ptr()),
             reinterpret_cast<uint32_t*>(partial.ptr()), reinterpret_cast<uint32_t*>(dout.ptr()));
    REQUIRE(cu::driver().cuStreamSynchronize(st.get()) == CUDA_SUCCESS);
    uint32_t got = 0;
    dout.download(&got);
    CHECK(got == want);
}

TEST_CASE("the handle from several threads at once, each with its own stream" *
          doctest::test_suite("in_process")) {
    cu::primary_context ctx(0);
    const device_info dev = cu::read_device_info(0);
    tmp_dir t;
    const spec s = load_spec(small_yaml());
    write_wisdom(t.file("w.json"), {entry_for(s, dev.attrs.name, dev.attrs.arch(), {{"N", 1 << 18}},
                                              {small(128, false, 4)})});
    kernel_options opt;
    opt.cache_dir = t.file("cache");
    const kernel k = kernel::open(small_yaml(), t.file("w.json"), opt);
    CUcontext primary = nullptr;
    REQUIRE(cu::driver().cuCtxGetCurrent(&primary) == CUDA_SUCCESS);
    constexpr int threads = 8, launches = 40;
    const int64_t sizes[] = {1 << 18, (1 << 18) + 1, 70000};
    std::atomic<int64_t> wrong{0}, errors{0};
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i) {
        pool.emplace_back([&, i] {
            try {
                // Odd threads make the context current as an application would; even ones
                // leave it to the handle (the device's primary context, as the runtime does).
                if (i % 2) cu::check(cu::driver().cuCtxSetCurrent(primary), "cuCtxSetCurrent");
                const int64_t n = sizes[i % 3];
                std::vector<float> a(n), b(n), c(n);
                for (int64_t j = 0; j < n; ++j) {
                    a[j] = static_cast<float>(j % 100 + i);
                    b[j] = static_cast<float>(j % 7);
                }
                std::optional<cu::device_buffer> da, db, dc;
                std::optional<cu::stream> st;
                if (i % 2 ==
                    0) {  // buffers need a context: let the handle's first launch make it current
                    cu::check(cu::driver().cuCtxSetCurrent(primary), "cuCtxSetCurrent");
                }
                da.emplace(n * 4, false);
                db.emplace(n * 4, false);
                dc.emplace(n * 4, false);
                st.emplace();
                da->upload(a.data());
                db->upload(b.data());
                if (i % 2 == 0)
                    cu::check(cu::driver().cuCtxSetCurrent(nullptr), "cuCtxSetCurrent(null)");
                for (int r = 0; r < launches; ++r)
                    k.launch(st->get(), {{"N", n}}, reinterpret_cast<float*>(da->ptr()),
                             reinterpret_cast<float*>(db->ptr()),
                             reinterpret_cast<float*>(dc->ptr()));
                CUcontext now = nullptr;
                cu::check(cu::driver().cuCtxGetCurrent(&now), "cuCtxGetCurrent");
                if (now != primary) ++errors;
                st->synchronize();
                dc->download(c.data());
                for (int64_t j = 0; j < n; ++j) wrong += c[j] != a[j] + b[j];
            } catch (const std::exception& e) {
                std::fprintf(stderr, "thread %d: %s\n", i, e.what());
                ++errors;
            }
        });
    }
    for (auto& th : pool) th.join();
    CHECK(errors.load() == 0);
    CHECK(wrong.load() == 0);
}

TEST_CASE("selection tiers on the real device; stale entries skipped with a warning" *
          doctest::test_suite("in_process")) {
    cu::primary_context ctx(0);
    const device_info dev = cu::read_device_info(0);
    cu::stream st;
    tmp_dir t;
    const spec s = load_spec(small_yaml());
    // A GPU of the same name family and architecture ("<name> Other Board").
    const std::string sibling = dev.attrs.name + " Other Board";
    std::vector<tuned_entry> e = {
        entry_for(s, dev.attrs.name, dev.attrs.arch(), {{"N", 1 << 20}}, {small(256, true, 4)}),
        entry_for(s, dev.attrs.name, dev.attrs.arch(), {{"N", 1 << 16}}, {small(128, false, 4)}),
        entry_for(s, sibling, dev.attrs.arch(), {{"N", 1 << 22}}, {small(128, true, 1)}),
    };
    e[0].source_hash = "the source before an edit";
    write_wisdom(t.file("w.json"), e);
    kernel_options opt;
    opt.cache_dir = t.file("cache");
    const kernel k = kernel::open(small_yaml(), t.file("w.json"), opt);
    CHECK(k.stale_entries() == 1);
    const kernel_selection at20 = k.selection({{"N", 1 << 20}});
    CHECK(at20.tier == selection_tier::nearest);  // the stale exact entry is skipped
    CHECK(at20.key == "BLOCK=128,STRIDED=false,VEC=4");
    bool stale_noted = false;
    for (const auto& n : at20.notes)
        stale_noted = stale_noted || n.find("1 stale entry skipped") != std::string::npos;
    CHECK(stale_noted);
    check_vector_add(k, st.get(), 1 << 20);
    // Only the sibling board's entries: the architecture tier.
    std::vector<tuned_entry> only_sibling = {e[2]};
    write_wisdom(t.file("s.json"), only_sibling);
    const kernel ks = kernel::open(small_yaml(), t.file("s.json"), opt);
    const kernel_selection arch = ks.selection({{"N", 1 << 22}});
    CHECK(arch.tier == selection_tier::architecture);
    CHECK(arch.entry.device_name == sibling);
    check_vector_add(ks, st.get(), 1 << 22);
}

TEST_CASE("a kernel that no longer compiles: a clear error at its first launch, with NVRTC's log" *
          doctest::test_suite("in_process")) {
    cu::primary_context ctx(0);
    cu::stream st;
    tmp_dir t;
    std::string src;
    {
        std::ifstream in(source_dir() + "/kernels_src/vector_add.cu");
        src.assign(std::istreambuf_iterator<char>(in), {});
    }
    src += "\nthis is not C++;\n";
    std::ofstream(t.file("broken.cu")) << src;
    std::string yaml;
    {
        std::ifstream in(small_yaml());
        yaml.assign(std::istreambuf_iterator<char>(in), {});
    }
    yaml.replace(yaml.find("../../kernels_src/vector_add.cu"), 31, t.file("broken.cu"));
    std::ofstream(t.file("broken.yaml")) << yaml;
    kernel_options opt;
    opt.cache_dir = t.file("cache");
    const kernel k = kernel::open(t.file("broken.yaml"), "", opt);
    cu::device_buffer d(4096, false);
    float* p = reinterpret_cast<float*>(d.ptr());
    for (int attempt = 0; attempt < 2; ++attempt) {
        try {
            k.launch(st.get(), {{"N", 1000}}, p, p, p);
            FAIL("launched a kernel that does not compile");
        } catch (const input_error& e) {
            const std::string what = e.what();
            CHECK(what.find("does not compile at N=1000") != std::string::npos);
            CHECK(what.find("error") != std::string::npos);  // NVRTC's log
        }
    }
}

TEST_CASE(
    "the example application with a synthetic wisdom file: every result checked, every tier "
    "printed" *
    doctest::test_suite("in_process")) {
    const device_info dev = cu::read_device_info(0);
    tmp_dir t;
    const spec va = load_spec(source_dir() + "/configs/vector_add.yaml");
    params best = {{"BLOCK", int64_t{256}},
                   {"STRIDED", false},
                   {"IDX_T", std::string("int")},
                   {"VEC", int64_t{4}},
                   {"MEM", std::string("device")},
                   {"MAXREG", int64_t{0}},
                   {"FAST", false}};
    write_wisdom(t.file("w.json"),
                 {entry_for(va, dev.attrs.name, dev.attrs.arch(), {{"N", 1048576}}, {best})});
    const std::string example = binary("tuned_kernels", HONE_EXAMPLE_BINARY);
    const std::string env =
        fmt::format("cd {} && HONE_CACHE_DIR={} HONE_LOG=info", source_dir(), t.file("cache"));
    const run_result r = shell(fmt::format("{} {} --wisdom {}", env, example, t.file("w.json")));
    INFO(r.out);
    CHECK(r.rc == 0);
    CHECK(r.out.find("all results match the reference") != std::string::npos);
    // The tier column (two spaces before it; HONE_LOG's lines have ": exact").
    CHECK(count(r.out, "  exact ") == 1);     // vector_add at 1048576
    CHECK(count(r.out, "  nearest ") == 3);   // vector_add at the other sizes
    CHECK(count(r.out, "  fallback ") == 3);  // SGEMM: no tuned entry
    // HONE_LOG=info: one selection line per (kernel, size), however often it was launched.
    CHECK(count(r.out, "hone: vector_add<{VEC}, {STRIDED}> at N=1000 on") == 1);
    CHECK(count(r.out, "hone: sgemm at M=256,N=256,K=256 on") == 1);
}

TEST_CASE(
    "the capture loop: run, capture sizes and inputs, tune the captures, export, run again exact" *
    doctest::test_suite("in_process")) {
    tmp_dir t;
    const std::string example = binary("tuned_kernels", HONE_EXAMPLE_BINARY);
    const std::string hone = binary("hone", HONE_BINARY);
    const std::string cd = fmt::format("cd {} && HONE_CACHE_DIR={}", source_dir(), t.file("cache"));
    // 1. The application, capturing every kernel with its inputs.
    run_result r =
        shell(fmt::format("{} HONE_CAPTURE='*' HONE_CAPTURE_DIR={} HONE_CAPTURE_INPUTS=1 {}", cd,
                          t.file("cap"), example));
    INFO(r.out);
    REQUIRE(r.rc == 0);
    std::size_t json = 0, bins = 0;
    for (const auto& f : fs::directory_iterator(t.path / "cap")) {
        json += f.path().extension() == ".json";
        bins += f.path().extension() == ".bin";
    }
    CHECK(json == 7);              // 4 vector_add sizes, 3 SGEMM shapes
    CHECK(bins == 4 * 2 + 3 * 3);  // a, b; and a, b, c (inout)
    // 2. Tune what was captured (a few configurations each), into one database.
    r = shell(fmt::format("{} {} tune configs/vector_add.yaml --captures {} -o {} --max-evals 6 -q",
                          cd, hone, t.file("cap"), t.file("t.db")));
    INFO(r.out);
    CHECK(r.rc == 0);
    CHECK(count(r.out, "== capture ") == 4);
    CHECK(count(r.out, "(captured inputs)") == 4);
    r = shell(fmt::format("{} {} tune configs/sgemm.yaml --captures {} -o {} --max-evals 4 -q", cd,
                          hone, t.file("cap"), t.file("t.db")));
    INFO(r.out);
    CHECK(r.rc == 0);
    // 3. Export, 4. run again: every size is served exactly.
    r = shell(
        fmt::format("{} {} export {} --wisdom {}", cd, hone, t.file("t.db"), t.file("w.json")));
    INFO(r.out);
    CHECK(r.rc == 0);
    r = shell(fmt::format("{} {} --wisdom {}", cd, example, t.file("w.json")));
    INFO(r.out);
    CHECK(r.rc == 0);
    CHECK(count(r.out, "  exact ") == 7);
    // A capture folder that cannot be created: one error line, the application goes on.
    r = shell(fmt::format("{} HONE_CAPTURE='vector_*' HONE_CAPTURE_DIR=/proc/hone-no-such-dir {}",
                          cd, example));
    INFO(r.out);
    CHECK(r.rc == 0);
    CHECK(count(r.out, "HONE_CAPTURE: capture folder /proc/hone-no-such-dir cannot be created") ==
          1);
}
