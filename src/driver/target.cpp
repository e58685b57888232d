#include "driver/target.hpp"

#include <fmt/format.h>

#include "driver/gpu.hpp"
#include "hone/error.hpp"

namespace hone {

device_attrs target_device(const std::string& arch, const std::string& what) {
    if (!arch.empty()) {
        if (auto d = nominal_device(arch)) return *d;
        throw input_error({"--arch", 0, 0}, fmt::format("unknown architecture '{}' (expected "
                                                        "e.g. sm_80, sm_90)",
                                                        arch));
    }
    std::string why;
    try {
        const std::vector<device_info> devices = list_devices();
        if (!devices.empty()) return devices.front().attrs;
        why = "no GPU found";
    } catch (const env_error& e) {
        why = e.what();
    }
    // The environment lacks what the command needs (exit 3), as for any GPU command here.
    throw env_error(
        fmt::format("--arch: no target architecture {}: pass --arch, e.g. --arch "
                    "sm_90 (without it the local GPU's is used, and there is none "
                    "here: {})",
                    what, why));
}

}  // namespace hone
