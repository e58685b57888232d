// What to change in the config when NVRTC's log shows a failure that the config causes.
#pragma once
#include <string>
#include <string_view>

#include "hone/spec.hpp"

namespace hone {

// "" or one line starting with "hint: ", for a failed compile's log. Today: a template parameter
// of the kernel that shares its name with a parameter passed as a -D macro (the macro replaces
// the name in the template's parameter list, and NVRTC reports a syntax error there).
std::string compile_hint(const spec& s, std::string_view log);

}  // namespace hone
