// The target architecture of the commands that need no GPU (check, space): one rule for both.
#pragma once
#include <string>

#include "hone/device_attrs.hpp"

namespace hone {

// --arch's nominal attributes when `arch` is given (input_error on an unknown one), else the
// first local GPU's. With neither, an input_error (exit 2) that says to pass --arch: these
// commands need no GPU, only an architecture to compile for or to evaluate constraints with.
// `what` ends the first sentence: "to compile for", "for the constraints' device attributes".
device_attrs target_device(const std::string& arch, const std::string& what);

}  // namespace hone
