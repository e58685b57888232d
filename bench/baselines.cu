// Hardware baselines that hone's results are compared against, measured with the CUDA runtime
// and cuBLAS rather than through hone:
//   copy        device-to-device cudaMemcpyAsync of 1 GiB: GB/s counting bytes read + written
//   vector_add  kernels_src/vector_add.cu (VEC=4, STRIDED=false, int index, BLOCK=256) compiled
//               in: microseconds per launch over 100 back-to-back launches, N = 2^16 and 2^24
//   sgemm       cublasSgemm, FP32 in CUBLAS_DEFAULT_MATH (no TF32: cuBLAS uses TF32 for FP32
//               products only when asked for by math mode or NVIDIA_TF32_OVERRIDE=1): TFLOP/s
// Each figure is the median of repeated event-timed runs after a warm-up.
//
// Usage: baselines [--json] [SIZE...]
//   --json  one JSON object per line instead of text
//   SIZE    extra square sizes for sgemm besides 4096 (repeats are measured once)
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define IDX_T int
#include "../kernels_src/vector_add.cu"

namespace {

void check(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return;
    std::fprintf(stderr, "baselines: %s: %s (%s)\n", what, cudaGetErrorString(e),
                 cudaGetErrorName(e));
    std::exit(1);
}

void check(cublasStatus_t s, const char* what) {
    if (s == CUBLAS_STATUS_SUCCESS) return;
    std::fprintf(stderr, "baselines: %s: %s\n", what, cublasGetStatusString(s));
    std::exit(1);
}

struct options {
    bool json = false;
    std::vector<int> sgemm_sizes{4096};
};

options parse_args(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        char* end = nullptr;
        const long v = std::strtol(argv[i], &end, 10);
        if (std::strcmp(argv[i], "--json") == 0) {
            o.json = true;
        } else if (*argv[i] != '\0' && *end == '\0' && v > 0 && v <= 65536) {
            const int size = static_cast<int>(v);
            if (std::find(o.sgemm_sizes.begin(), o.sgemm_sizes.end(), size) == o.sgemm_sizes.end())
                o.sgemm_sizes.push_back(size);
        } else {
            std::fprintf(stderr, "usage: %s [--json] [SIZE...]   (SIZE: sgemm size, 1..65536)\n",
                         argv[0]);
            std::exit(2);
        }
    }
    return o;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Times `body` (which enqueues work on stream 0) with events: `runs` samples after `warmup`
// untimed calls; returns the sample times in milliseconds.
template <class Body>
std::vector<double> time_runs(int warmup, int runs, Body body) {
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    for (int i = 0; i < warmup; ++i) body();
    check(cudaDeviceSynchronize(), "warm-up");
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        check(cudaEventRecord(start), "cudaEventRecord");
        body();
        check(cudaEventRecord(stop), "cudaEventRecord");
        check(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float t = 0;
        check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
        ms.push_back(t);
    }
    check(cudaEventDestroy(start), "cudaEventDestroy");
    check(cudaEventDestroy(stop), "cudaEventDestroy");
    return ms;
}

// Deterministic values in [-1, 1), so that no benchmark runs on zeros (which draw less power).
__global__ void fill(float* p, size_t n, unsigned seed) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x) {
        unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
        h ^= h >> 16;
        h *= 0x7feb352du;
        h ^= h >> 15;
        p[i] = static_cast<float>(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
}

float* alloc_filled(size_t n, unsigned seed) {
    float* p = nullptr;
    check(cudaMalloc(&p, n * sizeof(float)), "cudaMalloc");
    fill<<<1024, 256>>>(p, n, seed);
    check(cudaGetLastError(), "fill");
    return p;
}

void print_device(const options& o) {
    int dev = 0, driver = 0, runtime = 0;
    check(cudaGetDevice(&dev), "cudaGetDevice");
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
    check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
    check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
    if (o.json)
        std::printf(
            "{\"bench\":\"device\",\"name\":\"%s\",\"cc\":\"%d.%d\",\"sm_count\":%d,"
            "\"driver\":%d,\"runtime\":%d}\n",
            p.name, p.major, p.minor, p.multiProcessorCount, driver, runtime);
    else
        std::printf("device      %s, cc %d.%d, %d SMs, driver %d, runtime %d\n", p.name, p.major,
                    p.minor, p.multiProcessorCount, driver, runtime);
}

void bench_copy(const options& o) {
    const size_t bytes = size_t(1) << 30;
    const int runs = 20;
    float* src = alloc_filled(bytes / sizeof(float), 1);
    float* dst = nullptr;
    check(cudaMalloc(&dst, bytes), "cudaMalloc");
    const double ms = median(time_runs(3, runs, [&] {
        check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
    }));
    const double gbps = 2.0 * bytes / (ms * 1e-3) / 1e9;
    if (o.json)
        std::printf(
            "{\"bench\":\"copy\",\"bytes\":%zu,\"runs\":%d,\"median_ms\":%.4f,\"gbps\":%.1f}\n",
            bytes, runs, ms, gbps);
    else
        std::printf("copy        %zu MiB device to device: %.3f ms, %.0f GB/s (read + write)\n",
                    bytes >> 20, ms, gbps);
    check(cudaFree(src), "cudaFree");
    check(cudaFree(dst), "cudaFree");
}

void bench_vector_add(const options& o, int log2_n) {
    constexpr int block = 256, vec = 4, launches = 100, repeats = 11;
    const long long n = 1ll << log2_n;
    float* a = alloc_filled(n, 2);
    float* b = alloc_filled(n, 3);
    float* c = nullptr;
    check(cudaMalloc(&c, n * sizeof(float)), "cudaMalloc");
    const unsigned grid = static_cast<unsigned>((n + block * vec - 1) / (block * vec));
    const double ms = median(time_runs(1, repeats, [&] {
        for (int i = 0; i < launches; ++i) vector_add<vec, false><<<grid, block>>>(a, b, c, n);
        check(cudaGetLastError(), "vector_add launch");
    }));
    const double us = ms * 1e3 / launches;
    const double gbps = 3.0 * n * sizeof(float) / (us * 1e-6) / 1e9;
    if (o.json)
        std::printf(
            "{\"bench\":\"vector_add\",\"config\":\"BLOCK=256,STRIDED=false,IDX_T=int,VEC=4\","
            "\"n\":%lld,\"launches\":%d,\"repeats\":%d,\"us_per_launch\":%.3f,\"gbps\":%.1f}\n",
            n, launches, repeats, us, gbps);
    else
        std::printf("vector_add  N = 2^%d: %.3f us per launch (%d back to back), %.0f GB/s\n",
                    log2_n, us, launches, gbps);
    check(cudaFree(a), "cudaFree");
    check(cudaFree(b), "cudaFree");
    check(cudaFree(c), "cudaFree");
}

// Row-major C = A * B is column-major C^T = B^T * A^T: pass B first, with n and m swapped.
void bench_sgemm(const options& o, cublasHandle_t h, int size) {
    const int m = size, n = size, k = size, runs = 20;
    float* a = alloc_filled(size_t(m) * k, 4);
    float* b = alloc_filled(size_t(k) * n, 5);
    float* c = alloc_filled(size_t(m) * n, 6);
    const float alpha = 1.0f, beta = 0.5f;  // as configs/sgemm.yaml: C is read and written
    const double ms = median(time_runs(3, runs, [&] {
        check(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, n, a, k, &beta, c, n),
              "cublasSgemm");
    }));
    const double tflops = 2.0 * m * n * k / (ms * 1e-3) / 1e12;
    if (o.json)
        std::printf(
            "{\"bench\":\"sgemm\",\"library\":\"cublas\",\"math\":\"CUBLAS_DEFAULT_MATH\","
            "\"m\":%d,\"n\":%d,\"k\":%d,\"runs\":%d,\"median_ms\":%.4f,\"tflops\":%.2f}\n",
            m, n, k, runs, ms, tflops);
    else
        std::printf("sgemm       cuBLAS FP32 %d^3: %.3f ms, %.1f TFLOP/s\n", size, ms, tflops);
    check(cudaFree(a), "cudaFree");
    check(cudaFree(b), "cudaFree");
    check(cudaFree(c), "cudaFree");
}

}  // namespace

int main(int argc, char** argv) {
    const options o = parse_args(argc, argv);
    print_device(o);
    bench_copy(o);
    bench_vector_add(o, 16);
    bench_vector_add(o, 24);
    cublasHandle_t h;
    check(cublasCreate(&h), "cublasCreate");
    check(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    for (int size : o.sgemm_sizes) bench_sgemm(o, h, size);
    check(cublasDestroy(h), "cublasDestroy");
    return 0;
}
