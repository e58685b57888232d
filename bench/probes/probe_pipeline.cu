// Probe: can flushed samples be queued in rounds without the ~0.4 us that a sample carries when
// commands are queued behind it (bench/RESULTS.md, "The bias in rounds of flushed samples")?
// hone takes such samples one a host round trip, which is most of a short kernel's sampling
// time. Times a vector add after an L2 flush like hone's (a read of L2's size by a kernel) in
// rounds of 1 (the reference: nothing queued behind) and in rounds of 10 with a separator
// between a sample's stop event and the next flush, and prints, per variant, the median, p10,
// p90 relative to the rounds of 1, the mean by position, and the host time per sample.
//   probe_pipeline [N=65536] [rounds=300]
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "probe_check.hpp"

__global__ void vadd(const float4* a, const float4* b, float4* c, int n4) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        const float4 x = a[i], y = b[i];
        c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}

// As hone's hone_flush_l2: reads the buffer; the XOR key never matches, the sink is never written.
__global__ void flush_read(const uint4* p, unsigned long long n, unsigned key, unsigned* sink) {
    unsigned acc = 0;
    for (unsigned long long i = blockIdx.x * 256ull + threadIdx.x; i < n; i += gridDim.x * 256ull) {
        const uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == key) *sink = acc;
}

__global__ void spin(unsigned long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < ns);
}

enum class sep { none, event, wait_value, write_value, spin1, spin5, spin20 };
const char* name(sep s) {
    switch (s) {
        case sep::none:
            return "nothing";
        case sep::event:
            return "an event record";
        case sep::wait_value:
            return "a met stream wait";
        case sep::write_value:
            return "a stream write";
        case sep::spin1:
            return "a 1 us spin";
        case sep::spin5:
            return "a 5 us spin";
        case sep::spin20:
            return "a 20 us spin";
    }
    return "";
}

struct stats {
    double median, p10, p90;
};
stats of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v[v.size() / 10], v[v.size() * 9 / 10]};
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 65536;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 300;
    int l2 = 0, sms = 0;
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    float4 *a, *b, *c;
    CK(cudaMalloc(&a, n * 4));
    CK(cudaMalloc(&b, n * 4));
    CK(cudaMalloc(&c, n * 4));
    CK(cudaMemset(a, 0, n * 4));
    CK(cudaMemset(b, 0, n * 4));
    uint4* fl;
    CK(cudaMalloc(&fl, l2));
    CK(cudaMemset(fl, 0, l2));
    unsigned* sink;
    CK(cudaMalloc(&sink, 16));
    unsigned* word;
    CK(cudaMalloc(&word, 16));
    CK(cudaMemset(word, 0, 16));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const int per_round = 10;
    std::vector<cudaEvent_t> ev(3 * per_round);
    for (auto& e : ev) CK(cudaEventCreate(&e));
    const int n4 = n / 4, block = 256, grid = (n4 + block - 1) / block;
    for (int i = 0; i < 20000; ++i) vadd<<<grid, block, 0, s>>>(a, b, c, n4);
    CK(cudaStreamSynchronize(s));
    std::printf("N=%d (float4), L2 %d bytes read by the flush, rounds of %d, %d rounds\n", n, l2,
                per_round, rounds);
    auto run = [&](sep sp, int count, int nrounds, std::vector<std::vector<double>>& pos) {
        std::vector<double> all;
        pos.assign(count, {});
        const auto t0 = std::chrono::steady_clock::now();
        for (int r = 0; r < nrounds; ++r) {
            for (int i = 0; i < count; ++i) {
                flush_read<<<sms * 8, 256, 0, s>>>(fl, l2 / 16, 0xffffffffu, sink);
                CK(cudaEventRecord(ev[3 * i], s));
                vadd<<<grid, block, 0, s>>>(a, b, c, n4);
                CK(cudaEventRecord(ev[3 * i + 1], s));
                switch (sp) {
                    case sep::none:
                        break;
                    case sep::event:
                        CK(cudaEventRecord(ev[3 * i + 2], s));
                        break;
                    case sep::wait_value:
                        CHECK_ZERO(cuStreamWaitValue32(s, reinterpret_cast<CUdeviceptr>(word), 0,
                                                       CU_STREAM_WAIT_VALUE_GEQ));
                        break;
                    case sep::write_value:
                        CHECK_ZERO(
                            cuStreamWriteValue32(s, reinterpret_cast<CUdeviceptr>(word), 0, 0));
                        break;
                    case sep::spin1:
                        spin<<<1, 32, 0, s>>>(1000);
                        break;
                    case sep::spin5:
                        spin<<<1, 32, 0, s>>>(5000);
                        break;
                    case sep::spin20:
                        spin<<<1, 32, 0, s>>>(20000);
                        break;
                }
            }
            CK(cudaEventSynchronize(ev[3 * (count - 1) + 1]));
            for (int i = 0; i < count; ++i) {
                float ms = 0;
                CK(cudaEventElapsedTime(&ms, ev[3 * i], ev[3 * i + 1]));
                pos[i].push_back(ms * 1000.0);
                all.push_back(ms * 1000.0);
            }
            CK(cudaStreamSynchronize(s));
        }
        const double host =
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                .count() /
            (double(nrounds) * count);
        return std::make_pair(all, host);
    };
    std::vector<std::vector<double>> pos;
    for (int pass = 0; pass < 2; ++pass) {
        const auto [ref_all, ref_host] = run(sep::none, 1, rounds * per_round, pos);
        const stats ref = of(ref_all);
        std::printf(
            "pass %d: rounds of 1 (reference): median %.3f us, p10 %.3f, p90 %.3f; host %.1f us a "
            "sample\n",
            pass, ref.median, ref.p10, ref.p90, ref_host);
        for (sep sp : {sep::none, sep::event, sep::wait_value, sep::write_value, sep::spin1,
                       sep::spin5, sep::spin20}) {
            const auto [all, host] = run(sp, per_round, rounds, pos);
            const stats st = of(all);
            std::string by;
            char buf[32];
            for (auto& p : pos) {
                std::snprintf(buf, sizeof buf, " %.3f", of(p).median / ref.median);
                by += buf;
            }
            std::printf(
                "  rounds of %d, separator %-18s: median %.3f (x%.3f), p10 x%.3f, p90 x%.3f; host "
                "%.1f us a sample; by position:%s\n",
                per_round, name(sp), st.median, st.median / ref.median, st.p10 / ref.p10,
                st.p90 / ref.p90, host, by.c_str());
        }
    }
    return 0;
}
