// How much warming a measurement needs: pure rules over times the GPU session measured, so that
// they can be tested without a GPU (session_timing.cpp applies them).
//
// Two things must be warm before a configuration's samples mean anything:
//   - the GPU's clock: an idle GPU runs at a low clock and takes a while under load to reach
//     its working clock. The session brings it there once (a spin whose length in cycles is
//     fixed, so that its duration tells the clock), and again after the GPU idled for
//     idle_rewarm_s;
//   - the configuration itself: its first launches find cold instruction caches, TLBs and
//     (without the flush) data caches. Its warm-up launches batches until two in a row agree,
//     within timing.warmup_ms of GPU time (the cap).
#pragma once
#include <cstddef>
#include <vector>

namespace hone {

// Per configuration (timing.warmup: adaptive).
constexpr double warmup_tolerance = 0.02;        // two batches agree within 2% of the smaller
constexpr double warmup_batch_target_us = 20.0;  // GPU time of one warm-up batch
constexpr int max_warmup_batch = 1 << 14;

// Launches in the next warm-up batch for a kernel estimated at kernel_us: enough for about
// warmup_batch_target_us, at least 1 (a kernel longer than the target is one launch a batch).
int warmup_batch(double kernel_us);

// True when the last two batch times per launch (us, in order) agree within `tolerance` of the
// smaller: the configuration runs as it will when sampled.
bool warmup_settled(const std::vector<double>& batch_us, double tolerance = warmup_tolerance);

// The session's clock (once per session, and after an idle gap).
constexpr double clock_chunk_us = 500.0;  // one probe spin, at the device's peak clock
constexpr double clock_near_peak = 0.97;  // within 3% of the peak clock: warm
constexpr std::size_t clock_plateau = 3;  // or this many probes in a row within 1%
constexpr double clock_plateau_tolerance = 0.01;
constexpr double clock_warmup_cap_ms = 100.0;  // stop here whatever the clock does
constexpr double idle_rewarm_s = 0.1;  // a gap without GPU work longer than this: warm again
// A spin queued without waiting when the session starts, so that the clock ramps while the
// host prepares (the tuner builds the space and compiles the reference meanwhile).
constexpr double clock_prespin_ms = 20.0;

// mhz: the clock each probe measured, in order; peak_mhz: the device's peak clock. True when
// the last probe is near the peak, or the last clock_plateau probes agree (a clock held below
// the peak by power or temperature is the working clock).
bool clock_settled(const std::vector<double>& mhz, double peak_mhz);

}  // namespace hone
