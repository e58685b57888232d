// CUPTI, loaded with dlopen on first use like the driver (cuda_api.hpp): hone links no
// libcupti, and runs where the toolkit's CUPTI is missing (timing then falls back to events).
// cupti_activity.h and the profiler headers supply the types only.
#pragma once
#include <cupti_activity.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <cupti_version.h>

#include <string>

namespace hone::cu {

// clang-format off
#define HONE_CUPTI_FUNCTIONS(X) \
    X(cuptiGetVersion) \
    X(cuptiGetResultString) \
    X(cuptiGetTimestamp) \
    X(cuptiActivityRegisterCallbacks) \
    X(cuptiActivityEnable) \
    X(cuptiActivityDisable) \
    X(cuptiActivityFlushAll) \
    X(cuptiActivityGetNextRecord)

// The range profiler (CUPTI 12.6 and newer): the hardware counters Nsight Compute reads, here
// gpu__time_duration (profiler_timer.hpp).
#define HONE_CUPTI_PROFILER_FUNCTIONS(X) \
    X(cuptiProfilerInitialize) \
    X(cuptiDeviceGetChipName) \
    X(cuptiProfilerGetCounterAvailability) \
    X(cuptiProfilerHostInitialize) \
    X(cuptiProfilerHostDeinitialize) \
    X(cuptiProfilerHostConfigAddMetrics) \
    X(cuptiProfilerHostGetConfigImageSize) \
    X(cuptiProfilerHostGetConfigImage) \
    X(cuptiProfilerHostGetNumOfPasses) \
    X(cuptiProfilerHostEvaluateToGpuValues) \
    X(cuptiRangeProfilerEnable) \
    X(cuptiRangeProfilerDisable) \
    X(cuptiRangeProfilerGetCounterDataSize) \
    X(cuptiRangeProfilerCounterDataImageInitialize) \
    X(cuptiRangeProfilerSetConfig) \
    X(cuptiRangeProfilerStart) \
    X(cuptiRangeProfilerStop) \
    X(cuptiRangeProfilerDecodeData) \
    X(cuptiRangeProfilerGetCounterDataInfo)
// clang-format on

#define HONE_CUPTI_POINTER(fn) decltype(&::fn) fn = nullptr;
struct cupti_functions {
    HONE_CUPTI_FUNCTIONS(HONE_CUPTI_POINTER)
};
struct profiler_functions {
    HONE_CUPTI_PROFILER_FUNCTIONS(HONE_CUPTI_POINTER)
};
#undef HONE_CUPTI_POINTER

// The loaded library, or nullptr with `why` set (no libcupti found, or one that lacks a
// function). The first attempt's outcome is kept: dlopen is not retried.
const cupti_functions* cupti(std::string& why);
// The range profiler's functions from the same library, or nullptr with `why` (no libcupti, or
// one older than 12.6).
const profiler_functions* cupti_profiler(std::string& why);

// "CUPTI_ERROR_NOT_INITIALIZED" for a result code, through the loaded library.
std::string cupti_error(const cupti_functions& f, CUptiResult r);

}  // namespace hone::cu
