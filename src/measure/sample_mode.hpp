// How one timing sample is taken. (The timer, CUPTI or events, is the session's: with CUPTI a
// sample is the launches' own durations and nothing else leaks in.) Launch overhead (~4 us on
// an H100) leaks into an event pair unless the GPU is busy while the host queues the start
// event and the launches: a flushed sample is queued behind its flush; other samples come in
// rounds that are held on the GPU until all of them are queued (session_timing.cpp), or, where
// the driver cannot hold a stream, each follows a spin that outlasts its queueing:
//   single+flush  one launch after a read of L2's size (clean lines): cold caches; with the event
//                 timer one sample a round (flushed samples queued behind one another read
//                 ~0.4 us long), with CUPTI's kernel timestamps rounds as the other modes;
//   single+spin   warm caches, kernel >= 20 us: one launch, the round's samples back to back
//                 behind one spin;
//   batch:K       warm caches, kernel < 20 us: K back-to-back launches between the events; the
//                 sample is their mean (a sample lasts >= ~200 us; with CUPTI, the mean of their
//                 own durations, the gaps between them left out). Never flushed, even when
//                 forced with l2_flush set.
#pragma once
#include <cstddef>
#include <string>

#include "hone/spec.hpp"

namespace hone {

enum class sample_kind { single_flush, single_spin, batch };

struct sample_mode {
    sample_kind kind = sample_kind::single_flush;
    int batch = 1;             // launches per sample
    std::string name() const;  // "single+flush", "single+spin", "batch:K"
};

constexpr double spin_threshold_us = 20.0;  // below: batch when caches stay warm
constexpr double batch_target_us = 200.0;   // length of one batched sample
constexpr int max_batch = 10000;

// How many samples the next round queues, with n taken so far: min_samples at first (no
// decision is possible before), then what the stopping rule predicts it still needs (`wanted`:
// the total at which its interval would reach the target; 0 for no prediction), at least a
// quarter more and at most three times n more, never past max_samples. A round costs one host
// round trip and one run of the stopping rule (with the range profiler 0.4-1 ms of CUPTI calls),
// so a configuration that needs many samples takes two or three rounds; the floor keeps a
// prediction that falls short from costing a round a sample, the ceiling bounds what a noisy
// first round can overshoot.
std::size_t next_round(std::size_t n, std::size_t min_samples, std::size_t max_samples,
                       std::size_t wanted = 0);

// kernel_us: the warm-up estimate of one launch. timing.sample_mode "single" or "batch" forces
// the kind; "auto" chooses as described above.
sample_mode choose_sample_mode(const timing_spec& timing, double kernel_us);

}  // namespace hone
