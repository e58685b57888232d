#include <nlohmann/json.hpp>

#include "record/json_members.hpp"
#include "record/params_json.hpp"
#include "report/report.hpp"

namespace hone {
namespace {

using ojson = nlohmann::ordered_json;

ojson metric(double v) {
    return v > 0 ? ojson(v) : ojson(nullptr);
}

ojson compile_json(const eval_record& r) {
    return json_members(4)
        .add("ms", r.compile_ms)
        .add("cached", r.compile_cached)
        .add("log", r.compile_log)
        .add("ptxas", resources_json(r.resources, unknown_count::null))  // -1 means not reported
        .done();
}

ojson timing_json(const job_result& g) {
    const summary& t = g.time_us;
    if (t.n == 0) return nullptr;
    return json_members(15)
        .add("sample_mode", g.sample_mode)
        .add("timer", g.timer)
        .add("n", t.n)
        .add("median_us", t.median)
        .add("mean_us", t.mean)
        .add("stddev_us", t.stddev)
        .add("min_us", t.min)
        .add("max_us", t.max)
        .add("ci_low_us", t.ci_low)
        .add("ci_high_us", t.ci_high)
        .add("mean_ci_half_us", t.mean_ci_half)
        .add("gpu_busy_s", g.gpu_busy_s)
        .add("wall_s", g.wall_s)
        .add("steps", steps_json(g.steps))
        .add("samples_us", g.samples_us)
        .done();
}

ojson record_json(const eval_record& r) {
    return json_members(17)
        .add("key", r.key)
        .add("params", params_to_json(r.params))
        .add("status", status_name(r.st))
        .add("message", r.message)
        .add("output", r.gpu.output)
        .add("compile", compile_json(r))
        .add("function", function_json(r.gpu, unknown_count::null))
        .add("launch", json_members(3)
                           .add("grid", r.grid)
                           .add("block", r.block)
                           .add("dynamic_shared_bytes", r.dynamic_shared_bytes)
                           .done())
        .add("timing", timing_json(r.gpu))
        .add("gpu_wall_s", r.gpu.wall_s)  // GPU-side time, a worker restart after a fault included
        .add("gbps", metric(r.gbps))
        .add("gflops", metric(r.gflops))
        .add("metrics", r.metrics)
        .add("device", r.device >= 0 ? ojson(r.device) : ojson())
        .add("device_uuid", r.device_uuid)
        .add("telemetry", json_members(3)
                              .add("sm_clock_mhz", metric(r.gpu.telemetry.sm_clock_mhz))
                              .add("temperature_c", metric(r.gpu.telemetry.temperature_c))
                              .add("power_w", metric(r.gpu.telemetry.power_w))
                              .done())
        .add("created_at", r.created_at)
        .done();
}

}  // namespace

nlohmann::ordered_json to_json(const std::vector<eval_record>& records) {
    ojson out = ojson::array();
    out.get_ref<ojson::array_t&>().reserve(records.size());
    for (const auto& r : records) out.push_back(record_json(r));
    return out;
}

nlohmann::ordered_json to_json(const eval_record& record) {
    return record_json(record);
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

std::string json_array_element(const nlohmann::ordered_json& j) {
    const std::string text = j.dump(2);
    std::string out = "  ";
    out.reserve(text.size() + text.size() / 8);
    for (const char c : text) {
        out += c;
        if (c == '\n') out += "  ";  // a newline inside a string is escaped: each is a line's end
    }
    return out;
}

std::string json_array_text(const std::vector<std::string>& elements) {
    std::string out = "[";
    const char* sep = "\n";
    for (const auto& e : elements) {
        if (e.empty()) continue;
        out += sep;
        out += e;
        sep = ",\n";
    }
    out += out.size() == 1 ? "]" : "\n]";
    return out;
}

}  // namespace hone
