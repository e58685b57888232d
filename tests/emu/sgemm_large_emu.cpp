// Runs one configuration of kernels_src/sgemm_large.cu on the host (tests/emu/cuda_emu.hpp),
// compiled with the configuration's -D macros, and checks C = alpha * A * B + beta * C against
// a double-precision product. Three launches, each on the previous one's C: threads and blocks
// in launch order, both reversed, both shuffled. Between them the orders put every pair of
// threads of a block both ways round within each barrier interval, and let a different split-K
// slice arrive last; the split-K counters must be back to 0 after every launch.
// The problem is small but not trivial: 5 x 2 tiles (a partial GROUP_M group for GROUP_M >= 4)
// and STAGES + 2 k-tiles per slice (the pipeline wraps around).
//
// Usage: sgemm_large_emu [TILES_M TILES_N KTILES] (default 5 2 STAGES+2)
// Exit 0: correct; 1: a wrong result; abort: the emulator or a sanitizer found an error.
#include "cuda_emu.hpp"
// The kernel, as NVRTC sees it but for the emulated built-ins (another file with
// -DSGEMM_LARGE_SOURCE='"path"', e.g. a deliberately broken copy, to see the emulator catch it).
#ifndef SGEMM_LARGE_SOURCE
#define SGEMM_LARGE_SOURCE "../../kernels_src/sgemm_large.cu"
#endif
#include SGEMM_LARGE_SOURCE

#include <algorithm>
#include <numeric>

namespace {

struct rng {  // xorshift64*: the same numbers on every platform
    uint64_t s;
    uint64_t next() {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return s * 2685821657736338717ULL;
    }
    float uniform() { return static_cast<float>(next() >> 40) / 16777216.0f * 2.0f - 1.0f; }
    std::vector<unsigned> permutation(unsigned n) {
        std::vector<unsigned> p(n);
        std::iota(p.begin(), p.end(), 0u);
        for (unsigned i = n; i > 1; --i) std::swap(p[i - 1], p[next() % i]);
        return p;
    }
};

int check(const char* what, const std::vector<float>& got, const std::vector<double>& want,
          double tol) {
    std::size_t bad = 0, first = 0;
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double err = std::fabs(got[i] - want[i]);
        const bool ok = err <= tol + tol * std::fabs(want[i]);  // NaN fails
        if (!ok && bad++ == 0) first = i;
        if (!(err <= worst)) worst = err;
    }
    if (bad == 0) return 0;
    std::fprintf(stderr,
                 "%s: %zu of %zu elements wrong, first at %zu (got %g, want %g), worst error %g\n",
                 what, bad, got.size(), first, got[first], want[first], worst);
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace sgemm_large_detail;
    const int tiles_m = argc > 1 ? std::atoi(argv[1]) : 5;
    const int tiles_n = argc > 2 ? std::atoi(argv[2]) : 2;
    const int ktiles = argc > 3 ? std::atoi(argv[3]) : STAGES + 2;
    if (tiles_m < 1 || tiles_n < 1 || ktiles < 1) emu::fail("sizes must be >= 1");
    const int m = tiles_m * BM, n = tiles_n * BN, k = ktiles * BK * SPLITK;
    const float alpha = 1.0f, beta = 0.5f;

    rng r{0x9E3779B97F4A7C15ULL};
    std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * n), c(std::size_t(m) * n);
    for (auto& x : a) x = r.uniform();
    for (auto& x : b) x = r.uniform();
    for (auto& x : c) x = r.uniform();
    // Exactly the sizes the kernel may touch, so that ASan sees one element more.
    std::vector<float> ws(std::size_t(SPLITK) * m * n, std::nanf(""));
    std::vector<int> flags(std::size_t(tiles_m) * tiles_n, 0);
    const std::size_t smem_floats = std::size_t(STAGES) * STAGE_SIZE;
    std::vector<double> ab(std::size_t(m) * n, 0.0);
    for (int i = 0; i < m; ++i)
        for (int kk = 0; kk < k; ++kk) {
            const double x = a[std::size_t(i) * k + kk];
            for (int j = 0; j < n; ++j)
                ab[std::size_t(i) * n + j] += x * b[std::size_t(kk) * n + j];
        }

    emu::block_runner runner(THREADS);
    emu::block_dim = dim3{unsigned(THREADS), 1, 1};
    emu::grid_dim = dim3{unsigned(tiles_m * tiles_n), unsigned(SPLITK), 1};
    const unsigned blocks = unsigned(tiles_m * tiles_n * SPLITK);
    const char* names[] = {"launch 1 (in order)", "launch 2 (reversed)", "launch 3 (shuffled)"};
    const std::function<void()> body = [&] {
        sgemm_large(a.data(), b.data(), c.data(), ws.data(), flags.data(), m, n, k, alpha, beta);
    };
    int failures = 0;
    for (int launch = 0; launch < 3; ++launch) {
        std::vector<double> want(c.size());
        for (std::size_t i = 0; i < c.size(); ++i) want[i] = alpha * ab[i] + beta * double(c[i]);
        const auto order = [&](unsigned n_items) {
            if (launch == 1) {
                std::vector<unsigned> p(n_items);
                std::iota(p.rbegin(), p.rend(), 0u);
                return p;
            }
            if (launch == 2) return r.permutation(n_items);
            std::vector<unsigned> p(n_items);
            std::iota(p.begin(), p.end(), 0u);
            return p;
        };
        for (unsigned id : order(blocks)) {
            emu::block_idx =
                dim3{id % unsigned(tiles_m * tiles_n), id / unsigned(tiles_m * tiles_n), 1};
            // Fresh shared memory of exactly the launch's size, NaN as stale data would be.
            const float nan = std::nanf("");
            std::vector<float4> smem(smem_floats / 4, float4{nan, nan, nan, nan});
            emu::shared_base = reinterpret_cast<float*>(smem.data());
            runner.run(body, [&](unsigned, unsigned n_threads) { return order(n_threads); });
        }
        failures += check(names[launch], c, want, 1e-3);
        if (std::any_of(flags.begin(), flags.end(), [](int f) { return f != 0; })) {
            std::fprintf(stderr, "%s left a split-K counter non-zero\n", names[launch]);
            ++failures;
        }
    }
    std::printf("%s: %dx%dx%d, %d threads, %u blocks, %zu smem bytes\n", failures ? "FAIL" : "ok",
                m, n, k, THREADS, blocks, smem_floats * 4);
    return failures ? 1 : 0;
}
