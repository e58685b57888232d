// The verification reference: a named configuration or a reference kernel, compiled once.
#include <fmt/format.h>

#include "compile/compile.hpp"
#include "compile/compile_hint.hpp"
#include "hone/tuner.hpp"
#include "tune/internal.hpp"

namespace hone {

std::optional<launch_desc> make_reference(const spec& s, const search_space& space,
                                          const std::string& arch, const compile_fn& compile) {
    if (s.verify.ref == reference_kind::none) return std::nullopt;
    const config ref_cfg = space.make_config(s.verify.reference_params, s.verify.pos);
    const bindings scope = ref_cfg.scope(s, space.base());
    const bool is_kernel = s.verify.ref == reference_kind::kernel;
    const compile_request req = is_kernel ? make_reference_request(s, ref_cfg, scope, arch)
                                          : make_compile_request(s, ref_cfg, scope, arch);
    const compile_result r = compile(req);
    if (!r.ok) {
        const std::string hint = compile_hint(s, r.log);
        throw input_error(s.verify.pos,
                          fmt::format("the verify reference ({}) does not compile:\n{}{}{}",
                                      is_kernel ? s.verify.reference_kernel : ref_cfg.key(s), r.log,
                                      hint.empty() || r.log.ends_with('\n') ? "" : "\n", hint));
    }
    launch_desc d;
    d.cubin = r.cubin;
    d.function = r.lowered_name;
    const launch_dims dims =
        is_kernel ? eval_launch(s, s.verify.reference_grid, s.verify.reference_block, scope)
                  : eval_launch(s, s.launch.grid, s.launch.block, scope);
    d.grid = dims.grid;
    d.block = dims.block;
    d.shared_bytes = dims.shared_bytes;
    // A reference configuration is the tuned kernel; a reference kernel is launched plainly.
    d.cooperative = !is_kernel && s.launch.cooperative;
    d.args = eval_args(s, scope);
    // The reference always reads device memory: its outputs are the same in either set.
    d.memory = eval_memory(s, scope);
    return d;
}

}  // namespace hone
