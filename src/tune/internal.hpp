// Internal helpers of the tune layer.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "compile/compile.hpp"
#include "driver/gpu.hpp"
#include "hone/spec.hpp"
#include "hone/tuner.hpp"
#include "space/space.hpp"

namespace hone {

using compile_fn = std::function<compile_result(const compile_request&)>;

// Compiles the verify reference with `compile`; nullopt when the spec has none. Throws
// input_error when the reference does not compile (nothing can be verified against it).
std::optional<launch_desc> make_reference(const spec& s, const search_space& space,
                                          const std::string& arch, const compile_fn& compile);

// Helpers shared by tune and check (src/tune/plan.cpp).
struct launch_dims {
    std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
    uint32_t shared_bytes = 0;
};
// Throws input_error for a dimension <= 0 or > 2^31-1 (message names the configuration).
launch_dims eval_launch(const spec& s, const std::vector<expression>& grid,
                        const std::vector<expression>& block, const bindings& scope);
memory_kind eval_memory(const spec& s, const bindings& scope);
std::vector<kernel_arg> eval_args(const spec& s, const bindings& scope);
run_plan make_run_plan(const spec& s, const search_space& space);
run_identity make_identity(const spec& s, const device_info& dev);

}  // namespace hone
