#include <nlohmann/json.hpp>

#include "record/params_json.hpp"
#include "report/report.hpp"

namespace hone {
namespace {

using ojson = nlohmann::ordered_json;

// -1 means "not reported" in the records; JSON says so with null.
ojson known(int v) {
    return v >= 0 ? ojson(v) : ojson(nullptr);
}
ojson metric(double v) {
    return v > 0 ? ojson(v) : ojson(nullptr);
}

ojson compile_json(const eval_record& r) {
    const resource_usage& u = r.resources;
    return {{"ms", r.compile_ms},
            {"cached", r.compile_cached},
            {"log", r.compile_log},
            {"ptxas",
             {{"registers", known(u.registers)},
              {"spill_store_bytes", u.spill_store_bytes},
              {"spill_load_bytes", u.spill_load_bytes},
              {"stack_bytes", u.stack_bytes},
              {"shared_static_bytes", u.shared_static_bytes},
              {"const_bytes", u.const_bytes}}}};
}

ojson function_json(const job_result& g) {
    return {{"num_regs", known(g.num_regs)},
            {"local_bytes", known(g.local_bytes)},
            {"static_shared_bytes", known(g.static_shared_bytes)},
            {"max_threads_per_block", known(g.max_threads_per_block)},
            {"active_blocks_per_sm", known(g.active_blocks_per_sm)},
            {"occupancy", g.active_blocks_per_sm >= 0 ? ojson(g.occupancy) : ojson(nullptr)}};
}

ojson timing_json(const job_result& g) {
    const summary& t = g.time_us;
    if (t.n == 0) return nullptr;
    return {{"sample_mode", g.sample_mode},
            {"timer", g.timer},
            {"n", t.n},
            {"median_us", t.median},
            {"mean_us", t.mean},
            {"stddev_us", t.stddev},
            {"min_us", t.min},
            {"max_us", t.max},
            {"ci_low_us", t.ci_low},
            {"ci_high_us", t.ci_high},
            {"mean_ci_half_us", t.mean_ci_half},
            {"gpu_busy_s", g.gpu_busy_s},
            {"wall_s", g.wall_s},
            {"steps",
             {{"load_s", g.steps.load_s},
              {"verify_s", g.steps.verify_s},
              {"warmup_s", g.steps.warmup_s},
              {"samples_s", g.steps.samples_s},
              {"waits", g.steps.waits}}},
            {"samples_us", g.samples_us}};
}

ojson record_json(const eval_record& r) {
    return {
        {"key", r.key},
        {"params", params_to_json(r.params)},
        {"status", status_name(r.st)},
        {"message", r.message},
        {"output", r.gpu.output},
        {"compile", compile_json(r)},
        {"function", function_json(r.gpu)},
        {"launch",
         {{"grid", r.grid}, {"block", r.block}, {"dynamic_shared_bytes", r.dynamic_shared_bytes}}},
        {"timing", timing_json(r.gpu)},
        {"gpu_wall_s", r.gpu.wall_s},  // GPU-side time, a worker restart after a fault included
        {"gbps", metric(r.gbps)},
        {"gflops", metric(r.gflops)},
        {"metrics", r.metrics},
        {"device", r.device >= 0 ? ojson(r.device) : ojson()},
        {"device_uuid", r.device_uuid},
        {"telemetry",
         {{"sm_clock_mhz", metric(r.gpu.telemetry.sm_clock_mhz)},
          {"temperature_c", metric(r.gpu.telemetry.temperature_c)},
          {"power_w", metric(r.gpu.telemetry.power_w)}}},
        {"created_at", r.created_at}};
}

}  // namespace

nlohmann::ordered_json to_json(const std::vector<eval_record>& records) {
    ojson out = ojson::array();
    for (const auto& r : records) out.push_back(record_json(r));
    return out;
}

nlohmann::ordered_json to_json(const run_identity& id) {
    return {{"id", id.id()},
            {"config_path", id.config_path},
            {"kernel_name", id.kernel_name},
            {"source_hash", id.source_hash},
            {"spec_hash", id.spec_hash},
            {"problem", id.problem},
            {"device_name", id.device_name},
            {"device_uuid", id.device_uuid},
            {"arch", id.arch},
            {"driver_version", id.driver_version},
            {"nvrtc_version", id.nvrtc_version},
            {"tool_version", id.tool_version},
            {"objective", id.objective},
            {"origin", id.origin}};
}

}  // namespace hone
