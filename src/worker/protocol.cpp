#include "worker/protocol.hpp"

#include "hone/error.hpp"
#include "process/wire.hpp"

namespace hone {

void to_json(nlohmann::json& j, status s) {
    j = status_name(s);
}

void from_json(const nlohmann::json& j, status& s) {
    const auto parsed = parse_status(j.get<std::string>());
    if (!parsed) throw env_error("worker protocol: unknown status '" + j.get<std::string>() + "'");
    s = *parsed;
}

HONE_JSON_FIELDS(device_attrs, name, cc_major, cc_minor, sm_count, max_threads_per_block,
                 max_threads_per_sm, max_shared_per_block, max_shared_per_block_optin,
                 max_shared_per_sm, regs_per_block, regs_per_sm, l2_bytes, warp_size, total_mem,
                 clock_khz, mem_clock_khz, mem_bus_bits)
HONE_JSON_FIELDS(device_info, ordinal, attrs, uuid, driver_version, free_mem)
HONE_JSON_FIELDS(init_spec, kind, a, b, seed, path)
HONE_JSON_FIELDS(timing_spec, rel_precision, ci, min_samples, max_samples, max_time_s, warmup,
                 warmup_ms, l2_flush, sample_mode, timeout_s, timer)
HONE_JSON_FIELDS(buffer_plan, name, type, count, role, init, verify, need_device, need_managed,
                 symbol)
HONE_JSON_FIELDS(kernel_arg, buffer, type, bits)
HONE_JSON_FIELDS(job, key, launch, verify, deadline_s)
HONE_JSON_FIELDS(summary, n, median, mean, stddev, min, max, ci_low, ci_high, mean_ci_half)
HONE_JSON_FIELDS(job_steps, load_s, verify_s, warmup_s, samples_s, waits)
HONE_JSON_FIELDS(gpu_telemetry, sm_clock_mhz, temperature_c, power_w)
HONE_JSON_FIELDS(job_result, st, message, output, num_regs, local_bytes, static_shared_bytes,
                 max_threads_per_block, active_blocks_per_sm, occupancy, time_us, samples_us,
                 sample_mode, timer, gpu_busy_s, gpu_span_s, wall_s, steps, telemetry)
HONE_JSON_FIELDS(prepare_report, reference_us, inputs_s, upload_s, reference_s, timer, timer_note,
                 timer_s, clock_s, clock_mhz)

void to_json(nlohmann::json& j, const launch_desc& v) {
    j = {{"cubin", nlohmann::json::binary(v.cubin)},
         {"function", v.function},
         {"grid", v.grid},
         {"block", v.block},
         {"shared_bytes", v.shared_bytes},
         {"cooperative", v.cooperative},
         {"args", v.args},
         {"memory", v.memory}};
}

void from_json(const nlohmann::json& j, launch_desc& v) {
    const launch_desc d{};
    v.cubin = binary_field(j, "cubin");
    v.function = j.value("function", d.function);
    v.grid = j.value("grid", d.grid);
    v.block = j.value("block", d.block);
    v.shared_bytes = j.value("shared_bytes", d.shared_bytes);
    v.cooperative = j.value("cooperative", d.cooperative);
    v.args = j.value("args", d.args);
    v.memory = j.value("memory", d.memory);
}

void to_json(nlohmann::json& j, const run_plan& v) {
    j = {{"buffers", v.buffers},
         {"timing", v.timing},
         {"rtol", v.rtol},
         {"atol", v.atol},
         {"reference", v.reference ? nlohmann::json(*v.reference) : nlohmann::json()}};
}

void from_json(const nlohmann::json& j, run_plan& v) {
    const run_plan d{};
    v.buffers = j.value("buffers", d.buffers);
    v.timing = j.value("timing", d.timing);
    v.rtol = j.value("rtol", d.rtol);
    v.atol = j.value("atol", d.atol);
    const auto ref = j.find("reference");
    v.reference.reset();
    if (ref != j.end() && !ref->is_null()) v.reference = ref->get<launch_desc>();
}

}  // namespace hone
