#include "compile/compile_json.hpp"

#include "process/wire.hpp"

namespace hone {

HONE_JSON_FIELDS(resource_usage, registers, spill_store_bytes, spill_load_bytes, stack_bytes,
                 shared_static_bytes, const_bytes)
HONE_JSON_FIELDS(compile_request, source, source_name, name_expression, plain_name, options,
                 include_dirs)

void to_json(nlohmann::json& j, const compile_result& v) {
    j = {{"ok", v.ok},
         {"timed_out", v.timed_out},
         {"crashed", v.crashed},
         {"from_cache", v.from_cache},
         {"log", v.log},
         {"cubin", nlohmann::json::binary(v.cubin)},
         {"lowered_name", v.lowered_name},
         {"resources", v.resources},
         {"compile_ms", v.compile_ms}};
}

void from_json(const nlohmann::json& j, compile_result& v) {
    const compile_result d{};
    v.ok = j.value("ok", d.ok);
    v.timed_out = j.value("timed_out", d.timed_out);
    v.crashed = j.value("crashed", d.crashed);
    v.from_cache = j.value("from_cache", d.from_cache);
    v.log = j.value("log", d.log);
    v.cubin = binary_field(j, "cubin");
    v.lowered_name = j.value("lowered_name", d.lowered_name);
    v.resources = j.value("resources", d.resources);
    v.compile_ms = j.value("compile_ms", d.compile_ms);
}

}  // namespace hone
