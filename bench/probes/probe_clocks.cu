// Probe for the session's clock warm-up (src/measure/warm_up.hpp): how the SM clock ramps when
// work starts on an idle GPU, and how long the GPU may idle before it has to be warmed again.
// The clock is read as cycles per time: a one-thread kernel spins for a fixed number of
// clock64() cycles and events time it. Built by bench/build.sh; runs in ~8 s.
//   probe_clocks
// Prints: (1) after 2 s idle, the clock of each 0.5 ms probe for the first 150 ms of work, with
// the time since the first probe; (2) after warming to a steady clock, for idle gaps of 1 ms to
// 2 s, the clock of the first probe after the gap (the first three, in MHz).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "probe_check.hpp"

__global__ void spin_cycles(unsigned long long cycles) {
    const long long start = clock64();
    while (clock64() - start < static_cast<long long>(cycles)) {
    }
}

struct prober {
    cudaEvent_t a, b;
    unsigned long long cycles;
    prober(double peak_mhz) : cycles(static_cast<unsigned long long>(peak_mhz * 500.0)) {
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
    }
    double mhz() {  // one probe: the clock it ran at
        CK(cudaEventRecord(a));
        spin_cycles<<<1, 1>>>(cycles);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        return static_cast<double>(cycles) / (ms * 1000.0);
    }
};

int main() {
    int khz = 0;
    CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    const double peak = khz / 1000.0;
    std::printf("peak clock (CU_DEVICE_ATTRIBUTE_CLOCK_RATE): %.0f MHz\n", peak);
    prober p(peak);
    CK(cudaFree(nullptr));
    std::this_thread::sleep_for(std::chrono::seconds(2));
    std::printf("\nramp from idle (2 s): ms since first probe, MHz\n");
    const auto t0 = std::chrono::steady_clock::now();
    for (;;) {
        const double m = p.mhz();
        const double t =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        std::printf("%7.2f %6.0f\n", t, m);
        if (t > 150) break;
    }
    std::printf("\nafter an idle gap: gap ms, MHz of the first three probes\n");
    for (int gap : {1, 5, 10, 20, 50, 100, 200, 500, 1000, 2000}) {
        for (int i = 0; i < 100; ++i) p.mhz();  // 50 ms of work: warm
        std::this_thread::sleep_for(std::chrono::milliseconds(gap));
        const double m1 = p.mhz(), m2 = p.mhz(), m3 = p.mhz();
        std::printf("%5d %6.0f %6.0f %6.0f\n", gap, m1, m2, m3);
    }
    return 0;
}
