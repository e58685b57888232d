// Internal helpers of the tune layer.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "hone/compile.hpp"
#include "hone/gpu.hpp"
#include "hone/space.hpp"
#include "hone/spec.hpp"

namespace hone {

using compile_fn = std::function<compile_result(const compile_request&)>;

// Compiles the verify reference with `compile`; nullopt when the spec has none. Throws
// input_error when the reference does not compile (nothing can be verified against it).
std::optional<launch_desc> make_reference(const spec& s, const search_space& space,
                                          const std::string& arch, const compile_fn& compile);

}  // namespace hone
