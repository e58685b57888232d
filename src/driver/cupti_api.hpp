// CUPTI, loaded with dlopen on first use like the driver (cuda_api.hpp): hone links no
// libcupti, and runs where the toolkit's CUPTI is missing (timing then falls back to events).
// cupti_activity.h supplies the types only.
#pragma once
#include <cupti_activity.h>
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
// clang-format on

struct cupti_functions {
#define HONE_CUPTI_POINTER(fn) decltype(&::fn) fn = nullptr;
    HONE_CUPTI_FUNCTIONS(HONE_CUPTI_POINTER)
#undef HONE_CUPTI_POINTER
};

// The loaded library, or nullptr with `why` set (no libcupti found, or one that lacks a
// function). The first attempt's outcome is kept: dlopen is not retried.
const cupti_functions* cupti(std::string& why);

// "CUPTI_ERROR_NOT_INITIALIZED" for a result code, through the loaded library.
std::string cupti_error(const cupti_functions& f, CUptiResult r);

}  // namespace hone::cu
