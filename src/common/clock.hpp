// Wall time for the time splits and deadlines: one steady clock throughout.
#pragma once
#include <chrono>

namespace hone {

using steady_clock = std::chrono::steady_clock;

inline double seconds_since(steady_clock::time_point t0) {
    return std::chrono::duration<double>(steady_clock::now() - t0).count();
}

}  // namespace hone
