#include <array>

#include "driver/driver.hpp"

namespace hone {

bool is_sticky_error(int code) {
    // 700 illegal address, 702 launch timeout, 710 device assert, 714-719 hardware stack,
    // illegal instruction, misaligned address, invalid address space, invalid pc, launch
    // failed; 214/220 uncorrectable ECC/NVLink; 999 unknown: all corrupt the context.
    static constexpr std::array<int, 12> sticky{700, 702, 710, 714, 715, 716,
                                                717, 718, 719, 214, 220, 999};
    for (const int c : sticky)
        if (c == code) return true;
    return false;
}

cuda_error::cuda_error(int code, std::string name, const std::string& message)
    : env_error(message), code_(code), name_(std::move(name)) {}

}  // namespace hone
