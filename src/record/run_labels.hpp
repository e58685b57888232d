// How a run names its kernel and device to a reader. Imported files may name neither (T4 keeps
// them in a separate metadata file), and an empty name would read "vadd on , ...".
#pragma once
#include <string>

#include "hone/record.hpp"

namespace hone {

inline std::string kernel_label(const run_identity& id) {
    return id.kernel_name.empty() ? "(unnamed kernel)" : id.kernel_name;
}

inline std::string device_label(const run_identity& id) {
    return id.device_name.empty() ? "an unnamed device" : id.device_name;
}

}  // namespace hone
