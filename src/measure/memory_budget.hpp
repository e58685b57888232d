// How much memory a run plan takes, checked before anything is allocated: managed memory
// beyond what is free can hang the GPU, and a clear refusal beats an OOM half-way through.
#pragma once
#include <cstdint>
#include <string>

#include "driver/gpu.hpp"

namespace hone {

// Fraction of the free memory a plan may take.
constexpr double memory_margin = 0.9;

// Bytes of the buffer that L2 flushes write: the L2's size (rounded up to whole 4-byte words).
// On an H100, flushing twice that gave the same medians of a vector add at 2^16, 2^20 and 2^24
// floats, and cost twice the time between samples.
uint64_t flush_buffer_bytes(int64_t l2_bytes);
// Which sets a buffer needs: the configurations' sets and the reference launch's.
bool needs_device_set(const run_plan& plan, const buffer_plan& b);
bool needs_managed_set(const run_plan& plan, const buffer_plan& b);
// Device memory: every buffer once per memory set it is used in, and the L2 flush buffer.
// Host memory (inputs, reference outputs) is not checked: on the GPU machines /proc/meminfo
// shows less than can be used, growing as it is.
uint64_t device_bytes_needed(const run_plan& plan, int64_t l2_bytes);
// Throws env_error with the figures when `need` exceeds memory_margin of `free_bytes`.
void check_device_memory(uint64_t need, int64_t free_bytes);
std::string format_bytes(uint64_t bytes);  // "12.3 GiB", "512.0 MiB", "1.5 KiB", "12 bytes"

}  // namespace hone
