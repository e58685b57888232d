// JSON forms of what crosses a GPU worker's socket (CBOR-encoded in frames:
// process/worker_process.hpp); the compile messages' forms are compile/compile_json.hpp's.
// Binary blobs (CUBINs) are json::binary, so they round-trip through CBOR, not through text.
// Readers take a default for every missing field.
#pragma once
#include <nlohmann/json.hpp>

#include "compile/compile_json.hpp"
#include "driver/gpu.hpp"
#include "process/wire.hpp"

namespace hone {

NLOHMANN_JSON_SERIALIZE_ENUM(elem_type, {{elem_type::f16, "half"},
                                         {elem_type::bf16, "bfloat16"},
                                         {elem_type::f32, "float"},
                                         {elem_type::f64, "double"},
                                         {elem_type::i8, "int8"},
                                         {elem_type::i16, "int16"},
                                         {elem_type::i32, "int32"},
                                         {elem_type::i64, "int64"},
                                         {elem_type::u8, "uint8"},
                                         {elem_type::u16, "uint16"},
                                         {elem_type::u32, "uint32"},
                                         {elem_type::u64, "uint64"}})
NLOHMANN_JSON_SERIALIZE_ENUM(buffer_role, {{buffer_role::in, "in"},
                                           {buffer_role::out, "out"},
                                           {buffer_role::inout, "inout"}})
NLOHMANN_JSON_SERIALIZE_ENUM(memory_kind,
                             {{memory_kind::device, "device"}, {memory_kind::managed, "managed"}})
NLOHMANN_JSON_SERIALIZE_ENUM(init_kind, {{init_kind::zeros, "zeros"},
                                         {init_kind::constant, "constant"},
                                         {init_kind::sequence, "sequence"},
                                         {init_kind::random_uniform, "random_uniform"},
                                         {init_kind::random_normal, "random_normal"},
                                         {init_kind::file, "file"}})
// Statuses travel by the names the results store uses (status_name / parse_status).
void to_json(nlohmann::json& j, status s);
void from_json(const nlohmann::json& j, status& s);

#define HONE_JSON_DECLARE(type)                     \
    void to_json(nlohmann::json& j, const type& v); \
    void from_json(const nlohmann::json& j, type& v);
HONE_JSON_DECLARE(device_attrs)
HONE_JSON_DECLARE(device_info)
HONE_JSON_DECLARE(init_spec)
HONE_JSON_DECLARE(timing_spec)
HONE_JSON_DECLARE(buffer_plan)
HONE_JSON_DECLARE(kernel_arg)
HONE_JSON_DECLARE(launch_desc)
HONE_JSON_DECLARE(run_plan)
HONE_JSON_DECLARE(job)
HONE_JSON_DECLARE(summary)
HONE_JSON_DECLARE(job_steps)
HONE_JSON_DECLARE(gpu_telemetry)
HONE_JSON_DECLARE(job_result)
HONE_JSON_DECLARE(prepare_report)
#undef HONE_JSON_DECLARE

}  // namespace hone
