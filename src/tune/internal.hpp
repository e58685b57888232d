// Internal helpers of the tune layer.
#pragma once
#include <optional>
#include <string>

#include "hone/gpu.hpp"
#include "hone/space.hpp"
#include "hone/spec.hpp"

namespace hone {

// Compiles the verify reference; nullopt when the spec has none. Throws input_error when the
// reference does not compile (nothing can be verified against it).
std::optional<launch_desc> make_reference(const spec& s, const search_space& space,
                                          const std::string& arch);

}  // namespace hone
