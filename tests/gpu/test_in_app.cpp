// tune() inside an application that already uses CUDA (issue 10): the test process plays the
// application. It initialises the driver, makes the primary context current, allocates a
// buffer with a known pattern, keeps threads working on the GPU, and tunes the fault kernel's
// space with the default options (isolated worker, compile pool). Every fault must cost only its
// configuration, and the application's context and memory must come through untouched.
#include <dlfcn.h>
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <thread>
#include <vector>

#include "compile/compile.hpp"
#include "driver/cuda_api.hpp"
#include "gpu_test_util.hpp"
#include "hone/spec.hpp"
#include "hone/tuner.hpp"
#include "report/report.hpp"

using namespace hone;

namespace {

void ok(CUresult r, const char* what) {
    REQUIRE_MESSAGE(r == CUDA_SUCCESS, what, " failed: CUDA error ", static_cast<int>(r));
}

uint32_t pattern(std::size_t i) {
    return static_cast<uint32_t>(i * 2654435761u) ^ 0xa5a5a5a5u;
}

// The application: its own context, a 64 MiB buffer with the pattern, threads that keep
// filling buffers of their own while hone tunes.
struct application {
    const cu::api& d = cu::driver();  // cuInit, through the table hone loads with dlopen
    CUdevice dev{};
    CUcontext ctx{};
    CUdeviceptr buf{};
    std::size_t n = 16u << 20;
    std::atomic<bool> stop{false};
    std::atomic<int> thread_errors{0};
    std::atomic<long> thread_rounds{0};
    std::vector<std::thread> threads;

    application() {
        ok(d.cuDeviceGet(&dev, 0), "cuDeviceGet");
        ok(d.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
        ok(d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
        ok(d.cuMemAlloc(&buf, n * 4), "cuMemAlloc");
        std::vector<uint32_t> host(n);
        for (std::size_t i = 0; i < n; ++i) host[i] = pattern(i);
        ok(d.cuMemcpyHtoD(buf, host.data(), n * 4), "cuMemcpyHtoD");
    }
    ~application() {
        stop_threads();
        d.cuMemFree(buf);
        d.cuDevicePrimaryCtxRelease(dev);
    }

    void start_threads(int count) {
        for (int t = 0; t < count; ++t) {
            threads.emplace_back([this, t] {
                if (d.cuCtxSetCurrent(ctx) != CUDA_SUCCESS) return void(++thread_errors);
                CUdeviceptr mine{};
                const std::size_t m = 1u << 18;
                if (d.cuMemAlloc(&mine, m * 4) != CUDA_SUCCESS) return void(++thread_errors);
                uint32_t round = 0;
                while (!stop) {
                    ++round;
                    if (d.cuMemsetD32Async(mine, round * 16 + t, m, nullptr) != CUDA_SUCCESS ||
                        d.cuStreamSynchronize(nullptr) != CUDA_SUCCESS) {
                        ++thread_errors;
                        break;
                    }
                    ++thread_rounds;
                }
                uint32_t last = 0;
                if (round > 0 && (d.cuMemcpyDtoH(&last, mine + (m - 1) * 4, 4) != CUDA_SUCCESS ||
                                  last != round * 16 + t)) {
                    ++thread_errors;
                }
                d.cuMemFree(mine);
            });
        }
    }
    void stop_threads() {
        stop = true;
        for (auto& t : threads) t.join();
        threads.clear();
    }

    // Indices where the buffer no longer holds the pattern (the first few).
    std::vector<std::size_t> damaged() const {
        std::vector<uint32_t> host(n);
        REQUIRE(d.cuMemcpyDtoH(host.data(), buf, n * 4) == CUDA_SUCCESS);
        std::vector<std::size_t> bad;
        for (std::size_t i = 0; i < n && bad.size() < 8; ++i) {
            if (host[i] != pattern(i)) bad.push_back(i);
        }
        return bad;
    }

    CUcontext current() const {
        using get_fn = CUresult (*)(CUcontext*);
        void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        REQUIRE(lib != nullptr);
        void* sym = dlsym(lib, "cuCtxGetCurrent");
        REQUIRE(sym != nullptr);
        const auto get = reinterpret_cast<get_fn>(sym);
        CUcontext c{};
        ok(get(&c), "cuCtxGetCurrent");
        return c;
    }

    // The context still runs work: a memset and a kernel of the application's own.
    void check_usable() const {
        ok(d.cuMemsetD32Async(buf, 7, 1024, nullptr), "cuMemsetD32Async");
        ok(d.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
        compile_request req;
        req.source =
            "extern \"C\" __global__ void add1(unsigned* p, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] += 1; }\n";
        req.source_name = "app.cu";
        req.plain_name = "add1";
        int major = 0, minor = 0;
        ok(d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "cc");
        ok(d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "cc");
        req.options = {fmt::format("--gpu-architecture=sm_{}{}", major, minor)};
        const compile_result c = compile_nvrtc(req);
        REQUIRE_MESSAGE(c.ok, c.log);
        CUmodule mod{};
        CUfunction fn{};
        ok(d.cuModuleLoadData(&mod, c.cubin.data()), "cuModuleLoadData");
        ok(d.cuModuleGetFunction(&fn, mod, c.lowered_name.c_str()), "cuModuleGetFunction");
        CUdeviceptr p = buf;
        int count = 1024;
        void* args[] = {&p, &count};
        ok(d.cuLaunchKernel(fn, 4, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr), "cuLaunchKernel");
        ok(d.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
        std::vector<uint32_t> host(1024);
        ok(d.cuMemcpyDtoH(host.data(), buf, host.size() * 4), "cuMemcpyDtoH");
        CHECK(host[0] == 8u);
        CHECK(host[1023] == 8u);
        d.cuModuleUnload(mod);
        // Put the pattern back for whoever checks it next.
        std::vector<uint32_t> back(1024);
        for (std::size_t i = 0; i < back.size(); ++i) back[i] = pattern(i);
        ok(d.cuMemcpyHtoD(buf, back.data(), back.size() * 4), "cuMemcpyHtoD");
    }
};

const std::map<int64_t, status>& expected = fault_statuses();

// shared_gpu: another tuner measures on the same GPU at the same time. Its hanging kernel
// (MODE=4) holds the GPU, time-sliced, until its deadline kills it, and may push any kernel of
// this run that runs meanwhile, a correct one too, past its own deadline: that configuration
// then ends `timeout`, still costing only itself. The others keep their statuses.
void check_faults(const tune_result& r, std::size_t configurations, bool shared_gpu = false) {
    CHECK_FALSE(r.interrupted);
    REQUIRE(r.records.size() == configurations);
    std::size_t timed = 0, pushed = 0;
    for (const auto& rec : r.records) {
        const int64_t mode = std::get<int64_t>(rec.params.at(0).second);
        CAPTURE(rec.key);
        CAPTURE(rec.message);
        const status want = expected.at(mode);
        if (shared_gpu && rec.st == status::timeout &&
            (want == status::ok || want == status::runtime_fault || want == status::wrong_result)) {
            MESSAGE(rec.key << " ended timeout beside the other tuner's hanging kernel");
            ++pushed;
        } else if (want == status::ok) {
            CHECK(has_timing(rec.st));
            timed += has_timing(rec.st);
        } else {
            CHECK(status_name(rec.st) == std::string(status_name(want)));
        }
    }
    // Only the correct kernels (MODE=0, one for each of the 3 block sizes) are timed; beside
    // another tuner one of them at most may have been pushed past its deadline.
    CHECK(pushed <= 1);
    const auto best = ranked(r.records, rank_by::time);
    REQUIRE(best.size() == timed);
    REQUIRE(timed >= (shared_gpu ? 2u : 3u));
    CHECK(std::get<int64_t>(best[0]->params.at(0).second) == 0);
}

spec fresh_spec(const std::string& config, const std::string& db) {
    spec s = load_spec(source_dir() + "/" + config);
    s.output = db;
    std::remove(db.c_str());
    return s;
}

}  // namespace

TEST_CASE("tune() inside a CUDA application: faults cost one configuration, the app is untouched") {
    application app;
    app.start_threads(3);
    const spec s = fresh_spec("tests/gpu/faults_all.yaml", "/tmp/hone_gpu_in_app.db");
    const tune_result r = tune(s, tune_options{});  // the defaults: isolated, compile pool
    app.stop_threads();
    check_faults(r, 14);
    CHECK(app.thread_errors == 0);
    CHECK(app.thread_rounds > 0);
    CHECK(app.current() == app.ctx);
    CHECK(app.damaged().empty());
    app.check_usable();
    CHECK(app.damaged().empty());
}

TEST_CASE("tune() from two application threads at once, beside the application's own work") {
    application app;
    app.start_threads(2);
    tune_result results[2];
    std::string errors[2];
    std::vector<std::thread> tuners;
    for (int i = 0; i < 2; ++i) {
        tuners.emplace_back([&, i] {
            try {
                const spec s =
                    fresh_spec("configs/faults.yaml", fmt::format("/tmp/hone_gpu_in_app_{}.db", i));
                results[i] = tune(s, tune_options{});
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
        });
    }
    for (auto& t : tuners) t.join();
    app.stop_threads();
    for (int i = 0; i < 2; ++i) {
        CAPTURE(i);
        CHECK(errors[i] == "");
        if (errors[i].empty()) check_faults(results[i], 11, true);
    }
    CHECK(app.thread_errors == 0);
    CHECK(app.current() == app.ctx);
    CHECK(app.damaged().empty());
    app.check_usable();
}
