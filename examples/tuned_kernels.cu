// An application that owns its CUDA buffers and calls tuned kernels through hone::kernel: vector
// add and SGEMM at several sizes (tuned or not), each result checked against a plain host
// reference, each call's selection tier printed. Exit code 0 when every result matches, 1 on
// any mismatch, 2 on bad input (hone's input_error), 3 when CUDA or hone's environment fails.
//
//   tuned_kernels [--wisdom FILE] [--vector-add CONFIG] [--sgemm CONFIG]
//                 [--sizes-va N,N,...] [--sizes-sgemm MxNxK,...]
//
// Host code only (the CUDA runtime API for memory and streams; hone compiles and launches the
// kernels), so any C++ compiler builds it: see examples/CMakeLists.txt.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "hone/error.hpp"
#include "hone/kernel.hpp"

namespace {

struct cuda_failure {
    std::string what;
};

void check(cudaError_t rc, const char* what) {
    if (rc != cudaSuccess) throw cuda_failure{std::string(what) + ": " + cudaGetErrorString(rc)};
}

template <class T>
struct device_array {
    T* p = nullptr;
    std::size_t n = 0;
    explicit device_array(std::size_t count) : n(count) {
        check(cudaMalloc(&p, count * sizeof(T)), "cudaMalloc");
    }
    ~device_array() { cudaFree(p); }
    device_array(const device_array&) = delete;
    device_array& operator=(const device_array&) = delete;
    void upload(const std::vector<T>& h) {
        check(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice), "upload");
    }
    std::vector<T> download() const {
        std::vector<T> h(n);
        check(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
        return h;
    }
};

std::vector<float> random_floats(std::size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<float> v(n);
    for (auto& x : v) x = u(gen);
    return v;
}

void print_selection(const hone::kernel_selection& sel, bool ok) {
    std::printf("%-14s %-22s %-12s %-52s %s\n", sel.kernel.substr(0, sel.kernel.find('<')).c_str(),
                sel.problem.c_str(), hone::tier_name(sel.tier), sel.key.c_str(),
                ok ? "ok" : "MISMATCH");
    for (const auto& note : sel.notes) std::printf("    note: %s\n", note.c_str());
}

// c = a + b: float addition is exact to compare.
bool run_vector_add(const hone::kernel& k, cudaStream_t stream, long long n) {
    const std::vector<float> a = random_floats(n, 1), b = random_floats(n, 2);
    device_array<float> da(n), db(n), dc(n);
    da.upload(a);
    db.upload(b);
    check(cudaMemsetAsync(dc.p, 0xff, n * sizeof(float), stream), "cudaMemsetAsync");
    // Only the buffers: the scalar argument (N) is evaluated from the sizes.
    k.launch(stream, {{"N", n}}, da.p, db.p, dc.p);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const std::vector<float> c = dc.download();
    std::size_t bad = 0;
    for (long long i = 0; i < n; ++i) bad += c[i] != a[i] + b[i] ? 1 : 0;
    print_selection(k.selection({{"N", n}}), bad == 0);
    if (bad) std::printf("    %zu of %lld elements differ\n", bad, n);
    return bad == 0;
}

// C = alpha * A * B + beta * C, row-major; the reference sums in double.
bool run_sgemm(const hone::kernel& k, cudaStream_t stream, int m, int n, int kk) {
    const std::vector<float> a = random_floats(std::size_t(m) * kk, 3),
                             b = random_floats(std::size_t(kk) * n, 4),
                             c0 = random_floats(std::size_t(m) * n, 5);
    device_array<float> da(a.size()), db(b.size()), dc(c0.size());
    da.upload(a);
    db.upload(b);
    dc.upload(c0);
    const float alpha = 1.0f, beta = 0.5f;
    // Every argument, in the spec's order: buffers, then N, K, alpha, beta.
    k.launch(stream, {{"M", m}, {"N", n}, {"K", kk}}, da.p, db.p, dc.p, n, kk, alpha, beta);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const std::vector<float> c = dc.download();
    std::size_t bad = 0;
    double worst = 0;
    std::vector<double> row(n);
    for (int i = 0; i < m; ++i) {
        std::fill(row.begin(), row.end(), 0.0);
        for (int p = 0; p < kk; ++p) {
            const double x = a[std::size_t(i) * kk + p];
            const float* brow = &b[std::size_t(p) * n];
            for (int j = 0; j < n; ++j) row[j] += x * brow[j];
        }
        for (int j = 0; j < n; ++j) {
            const double want = alpha * row[j] + beta * c0[std::size_t(i) * n + j];
            const double err = std::abs(c[std::size_t(i) * n + j] - want);
            worst = std::max(worst, err);
            bad += err > 1e-3 + 1e-3 * std::abs(want) ? 1 : 0;  // the config's verify tolerance
        }
    }
    print_selection(k.selection({{"M", m}, {"N", n}, {"K", kk}}), bad == 0);
    if (bad) std::printf("    %zu of %d elements differ (largest error %g)\n", bad, m * n, worst);
    return bad == 0;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string part; std::getline(ss, part, sep);)
        if (!part.empty()) out.push_back(part);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    std::string wisdom, va_config = "configs/vector_add.yaml", sgemm_config = "configs/sgemm.yaml";
    std::string va_sizes = "1000,65536,1048576,3000001",
                sgemm_sizes = "256x256x256,512x256x768,768x768x512";
    for (int i = 1; i < argc; ++i) {
        const std::string opt = argv[i];
        if (i + 1 >= argc) {
            std::fprintf(stderr,
                         "usage: %s [--wisdom FILE] [--vector-add CONFIG] [--sgemm CONFIG] "
                         "[--sizes-va N,...] [--sizes-sgemm MxNxK,...]\n",
                         argv[0]);
            return 2;
        }
        const std::string v = argv[++i];
        if (opt == "--wisdom")
            wisdom = v;
        else if (opt == "--vector-add")
            va_config = v;
        else if (opt == "--sgemm")
            sgemm_config = v;
        else if (opt == "--sizes-va")
            va_sizes = v;
        else if (opt == "--sizes-sgemm")
            sgemm_sizes = v;
        else {
            std::fprintf(stderr, "unknown option %s\n", opt.c_str());
            return 2;
        }
    }
    try {
        // The application's CUDA state first, as any application has it: hone launches in it.
        check(cudaSetDevice(0), "cudaSetDevice");
        cudaStream_t stream = nullptr;
        check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        const hone::kernel va = hone::kernel::open(va_config, wisdom);
        const hone::kernel sgemm = hone::kernel::open(sgemm_config, wisdom);
        std::printf("%-14s %-22s %-12s %-52s %s\n", "kernel", "sizes", "tier", "configuration",
                    "result");
        bool ok = true;
        for (const auto& n : split(va_sizes, ','))
            ok = run_vector_add(va, stream, std::stoll(n)) && ok;
        for (const auto& shape : split(sgemm_sizes, ',')) {
            const auto d = split(shape, 'x');
            if (d.size() != 3) {
                std::fprintf(stderr, "--sizes-sgemm: expected MxNxK, got %s\n", shape.c_str());
                return 2;
            }
            ok = run_sgemm(sgemm, stream, std::stoi(d[0]), std::stoi(d[1]), std::stoi(d[2])) && ok;
        }
        check(cudaStreamDestroy(stream), "cudaStreamDestroy");
        std::printf("%s\n", ok ? "all results match the reference"
                               : "MISMATCH: some results differ from the reference");
        return ok ? 0 : 1;
    } catch (const hone::input_error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 2;
    } catch (const hone::env_error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 3;
    } catch (const cuda_failure& e) {
        std::fprintf(stderr, "error: %s\n", e.what.c_str());
        return 3;
    }
}
