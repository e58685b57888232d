// tune_in_app: hone::tune() inside a CUDA application.
//
// The application uses the CUDA runtime: it owns three 64 MiB buffers filled with a known
// pattern by a kernel of its own, and keeps a thread launching kernels on its own stream. Then it
// tunes configs/faults.yaml, a kernel that faults on purpose in most of its configurations
// (illegal address, assert, trap, endless loop, misaligned load, wrong results), with hone's
// default options: compiles and GPU work run in hone-worker processes. Afterwards it checks that
// every fault cost only its configuration, that its buffers still hold their pattern, and that
// its context, stream and kernels still work.
//
//   tune_in_app [CONFIG] [DATABASE]    default: configs/faults.yaml, a fresh database in $TMPDIR
//
// Prints each configuration's status and one verdict line; exit code 0 only if all held.
#include <cuda_runtime.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <hone/error.hpp>
#include <hone/spec.hpp>
#include <hone/status.hpp>
#include <hone/tuner.hpp>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace {

__host__ __device__ unsigned pattern(size_t i, unsigned seed) {
    return static_cast<unsigned>(i * 2654435761u) ^ seed;
}

__global__ void fill(unsigned* p, size_t n, unsigned seed) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x)
        p[i] = pattern(i, seed);
}

__global__ void count_mismatches(const unsigned* p, size_t n, unsigned seed,
                                 unsigned long long* bad) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x)
        if (p[i] != pattern(i, seed)) atomicAdd(bad, 1ull);
}

std::vector<std::string> failures;

bool cuda_ok(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return true;
    failures.push_back(std::string(what) + ": " + cudaGetErrorName(e) + " (" +
                       cudaGetErrorString(e) + ")");
    return false;
}

// Mismatches of buffer p against its pattern, counted on the GPU; -1 if CUDA failed.
long long mismatches(const unsigned* p, size_t n, unsigned seed, cudaStream_t s) {
    unsigned long long* bad = nullptr;
    unsigned long long host = 0;
    if (!cuda_ok(cudaMallocAsync(&bad, sizeof *bad, s), "cudaMallocAsync") ||
        !cuda_ok(cudaMemsetAsync(bad, 0, sizeof *bad, s), "cudaMemsetAsync"))
        return -1;
    count_mismatches<<<1024, 256, 0, s>>>(p, n, seed, bad);
    const bool ok = cuda_ok(cudaGetLastError(), "count_mismatches launch") &&
                    cuda_ok(cudaMemcpyAsync(&host, bad, sizeof host, cudaMemcpyDeviceToHost, s),
                            "cudaMemcpyAsync") &&
                    cuda_ok(cudaFreeAsync(bad, s), "cudaFreeAsync") &&
                    cuda_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    return ok ? static_cast<long long>(host) : -1;
}

// What configs/faults.yaml documents for each MODE.
const std::map<long long, hone::status> expected = {{0, hone::status::ok},
                                                    {1, hone::status::runtime_fault},
                                                    {2, hone::status::runtime_fault},
                                                    {3, hone::status::runtime_fault},
                                                    {4, hone::status::timeout},
                                                    {5, hone::status::runtime_fault},
                                                    {6, hone::status::wrong_result},
                                                    {7, hone::status::wrong_result},
                                                    {8, hone::status::wrong_result},
                                                    {9, hone::status::device_limits},
                                                    {10, hone::status::device_limits},
                                                    {99, hone::status::compile_error}};

long long param(const hone::eval_record& r, const char* name) {
    for (const auto& [n, v] : r.params) {
        if (n == name && std::holds_alternative<int64_t>(v)) return std::get<int64_t>(v);
    }
    return -1;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string config = argc > 1 ? argv[1] : "configs/faults.yaml";
    const char* tmp = std::getenv("TMPDIR");
    const std::string db = argc > 2 ? argv[2]
                                    : std::string(tmp && *tmp ? tmp : "/tmp") + "/tune_in_app-" +
                                          std::to_string(::getpid()) + ".db";

    // The application's own CUDA state, made before hone is called.
    constexpr size_t n = 16u << 20;  // 64 MiB a buffer
    constexpr int buffers = 3;
    unsigned* buf[buffers] = {};
    cudaStream_t stream = nullptr;
    if (!cuda_ok(cudaSetDevice(0), "cudaSetDevice") ||
        !cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate")) {
        std::printf("tune_in_app: FAIL: no usable GPU: %s\n", failures.back().c_str());
        return 3;
    }
    for (int b = 0; b < buffers; ++b) {
        cuda_ok(cudaMalloc(&buf[b], n * sizeof(unsigned)), "cudaMalloc");
        fill<<<1024, 256, 0, stream>>>(buf[b], n, 0x5eed0000u + b);
    }
    cuda_ok(cudaStreamSynchronize(stream), "filling the buffers");

    // A thread of the application keeps working on the GPU while hone tunes.
    std::atomic<bool> stop{false};
    std::atomic<long> rounds{0};
    std::string thread_failure;  // read after the join
    std::thread worker([&] {
        cudaStream_t s = nullptr;
        unsigned* mine = nullptr;
        unsigned long long* bad = nullptr;
        const size_t m = 1u << 20;
        if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
            cudaMalloc(&mine, m * sizeof(unsigned)) != cudaSuccess ||
            cudaMalloc(&bad, sizeof *bad) != cudaSuccess) {
            thread_failure = "the application's thread could not allocate";
            return;
        }
        for (unsigned seed = 1; !stop; ++seed, ++rounds) {
            unsigned long long host = 0;
            cudaMemsetAsync(bad, 0, sizeof *bad, s);
            fill<<<256, 256, 0, s>>>(mine, m, seed);
            count_mismatches<<<256, 256, 0, s>>>(mine, m, seed, bad);
            cudaMemcpyAsync(&host, bad, sizeof host, cudaMemcpyDeviceToHost, s);
            const cudaError_t e = cudaStreamSynchronize(s);
            if (e != cudaSuccess || host != 0) {
                thread_failure = std::string("the application's thread: ") +
                                 (e != cudaSuccess ? cudaGetErrorName(e) : "wrong result");
                break;
            }
        }
        cudaFree(bad);
        cudaFree(mine);
        cudaStreamDestroy(s);
    });

    hone::tune_result r;
    try {
        const hone::spec s = hone::load_spec(config);
        hone::tune_options opt;  // the defaults: isolated GPU worker, compile pool, cache
        opt.output = db;
        opt.fresh = true;
        std::printf("tune_in_app: tuning %s inside the application (database %s)\n", config.c_str(),
                    db.c_str());
        r = hone::tune(s, opt);
    } catch (const std::exception& e) {
        failures.push_back(std::string("hone::tune: ") + e.what());
    }
    stop = true;
    worker.join();
    if (!thread_failure.empty()) failures.push_back(thread_failure);

    // Every configuration: its status, and whether it is the one documented.
    std::map<std::string, int> counts;
    int unexpected = 0;
    for (const auto& rec : r.records) {
        const long long mode = param(rec, "MODE");
        const auto want = expected.find(mode);
        const bool as_documented =
            want == expected.end() ||
            (want->second == hone::status::ok ? hone::has_timing(rec.st) : rec.st == want->second);
        unexpected += !as_documented;
        ++counts[hone::status_name(rec.st)];
        std::printf("  %-28s %-14s %s%s\n", rec.key.c_str(), hone::status_name(rec.st),
                    rec.message.substr(0, 60).c_str(), as_documented ? "" : "   <- UNEXPECTED");
    }
    if (r.records.empty()) failures.push_back("no configuration was tuned");
    if (unexpected > 0)
        failures.push_back(std::to_string(unexpected) + " configurations got another status");

    // The application afterwards: same device, buffers intact, its kernels and stream work.
    int device = -1;
    cuda_ok(cudaGetDevice(&device), "cudaGetDevice");
    if (device != 0) failures.push_back("the current device changed");
    cuda_ok(cudaGetLastError(), "a pending error");
    long long damaged = 0;
    for (int b = 0; b < buffers; ++b) {
        const long long bad = mismatches(buf[b], n, 0x5eed0000u + b, stream);
        if (bad != 0) {
            failures.push_back("buffer " + std::to_string(b) + ": " +
                               (bad < 0 ? "unreadable" : std::to_string(bad) + " words changed"));
        }
        damaged += bad > 0 ? bad : 0;
    }
    fill<<<1024, 256, 0, stream>>>(buf[0], n, 42);
    if (mismatches(buf[0], n, 42, stream) != 0)
        failures.push_back("the application's kernel no longer works");
    for (int b = 0; b < buffers; ++b) cuda_ok(cudaFree(buf[b]), "cudaFree");
    cuda_ok(cudaStreamDestroy(stream), "cudaStreamDestroy");

    std::string tally;
    for (const auto& [name, count] : counts)
        tally += (tally.empty() ? "" : ", ") + name + " " + std::to_string(count);
    if (failures.empty()) {
        std::printf(
            "tune_in_app: PASS: %zu configurations tuned inside the application (%s), "
            "each fault cost only its configuration; %d x 64 MiB application buffers "
            "intact; its thread ran %ld rounds meanwhile; its stream and kernels work "
            "afterwards; 0 application crashes\n",
            r.records.size(), tally.c_str(), buffers, rounds.load());
        return 0;
    }
    std::printf("tune_in_app: FAIL (%zu configurations: %s):\n", r.records.size(), tally.c_str());
    for (const auto& f : failures) std::printf("  %s\n", f.c_str());
    return 1;
}
