#include "store/codec.hpp"

#include <fmt/format.h>

#include <array>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/input_limits.hpp"
#include "hone/error.hpp"
#include "record/params_json.hpp"
#include "store/flat_json.hpp"

namespace hone::store_detail {
namespace {

constexpr std::array columns = {"key",
                                "params",
                                "status",
                                "message",
                                "output",
                                "compile_log",
                                "compile_ms",
                                "compile_cached",
                                "ptx_regs",
                                "spill_store",
                                "spill_load",
                                "stack_bytes",
                                "ptx_shared_static",
                                "const_bytes",
                                "num_regs",
                                "local_bytes",
                                "static_shared",
                                "max_threads_per_block",
                                "active_blocks_per_sm",
                                "occupancy",
                                "sample_mode",
                                "n",
                                "median",
                                "mean",
                                "stddev",
                                "min",
                                "max",
                                "ci_low",
                                "ci_high",
                                "mean_ci_half",
                                "gpu_busy_s",
                                "wall_s",
                                "gbps",
                                "gflops",
                                "grid_x",
                                "grid_y",
                                "grid_z",
                                "block_x",
                                "block_y",
                                "block_z",
                                "dynamic_shared",
                                "samples",
                                "timer",
                                "steps",
                                "metrics",
                                "device",
                                "device_uuid",
                                "telemetry",
                                "created_at"};

// A row that does not decode was not written by this schema's hone: report, never guess.
// The general parser's values are copied and printed recursively: a depth is refused first.
template <typename F>
auto decoding(const std::string& path, const std::string& key, const char* what,
              std::string_view text, F&& f) {
    if (json_too_deep(text) != std::string_view::npos)
        throw env_error(
            fmt::format("{}: the {} of {} do not decode: JSON nested more than {} "
                        "levels deep",
                        path, what, key, max_json_depth));
    try {
        return f();
    } catch (const nlohmann::json::exception& e) {
        throw env_error(
            fmt::format("{}: the {} of {} do not decode: {}", path, what, key, e.what()));
    } catch (const env_error& e) {  // valid JSON of another shape (parameters: null)
        throw env_error(
            fmt::format("{}: the {} of {} do not decode: {}", path, what, key, e.what()));
    }
}

}  // namespace

const std::string& record_columns() {
    static const std::string text = fmt::format("{}", fmt::join(columns, ", "));
    return text;
}

const std::string& record_columns_without_samples() {
    static const std::string text = [] {
        std::vector<std::string> names(columns.begin(), columns.end());
        for (auto& n : names)
            if (n == "samples") n = "'[]'";
        return fmt::format("{}", fmt::join(names, ", "));
    }();
    return text;
}

const std::string& insert_record_sql(bool as_given) {
    auto make = [](bool keep) {
        std::string values = "?1";
        for (std::size_t i = 0; i + 1 < columns.size(); ++i) values += fmt::format(", ?{}", i + 2);
        const std::string created =
            keep ? fmt::format("?{}", columns.size() + 1)
                 : fmt::format("COALESCE(NULLIF(?{}, ''), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                               columns.size() + 1);
        return fmt::format("INSERT OR REPLACE INTO results (run_id, {}) VALUES ({}, {})",
                           record_columns(), values, created);
    };
    static const std::string now = make(false), given = make(true);
    return as_given ? given : now;
}

void bind_record(sql::stmt& s, int64_t run_id, const eval_record& r) {
    int i = 1;
    s.bind(i, run_id);
    auto b = [&](const auto& v) { s.bind(++i, v); };
    const job_result& g = r.gpu;
    const resource_usage& u = r.resources;
    b(r.key);
    b(scalar_object_text(r.params));
    b(status_name(r.st));
    b(r.message);
    b(g.output);
    b(r.compile_log);
    b(r.compile_ms);
    b(int64_t{r.compile_cached});
    for (int v : {u.registers, u.spill_store_bytes, u.spill_load_bytes, u.stack_bytes,
                  u.shared_static_bytes, u.const_bytes, g.num_regs, g.local_bytes,
                  g.static_shared_bytes, g.max_threads_per_block, g.active_blocks_per_sm}) {
        b(v);
    }
    b(g.occupancy);
    b(g.sample_mode);
    b(static_cast<int64_t>(g.time_us.n));
    const summary& t = g.time_us;
    for (double v : {t.median, t.mean, t.stddev, t.min, t.max, t.ci_low, t.ci_high, t.mean_ci_half,
                     g.gpu_busy_s, g.wall_s, r.gbps, r.gflops}) {
        b(v);
    }
    for (uint32_t v : r.grid) b(int64_t{v});
    for (uint32_t v : r.block) b(int64_t{v});
    b(r.dynamic_shared_bytes);
    b(number_array_text(g.samples_us));
    b(g.timer);
    b(named_numbers_text({{"load_s", g.steps.load_s},
                          {"verify_s", g.steps.verify_s},
                          {"warmup_s", g.steps.warmup_s},
                          {"samples_s", g.steps.samples_s},
                          {"waits", int64_t{g.steps.waits}}}));
    b(number_object_text(r.metrics));
    b(r.device);
    b(r.device_uuid);
    const gpu_telemetry& tm = g.telemetry;
    b(named_numbers_text({{"sm_clock_mhz", tm.sm_clock_mhz},
                          {"temperature_c", tm.temperature_c},
                          {"power_w", tm.power_w}}));
    b(r.created_at);  // empty: now
}

eval_record read_record(const sql::stmt& s, const std::string& path) {
    eval_record r;
    int c = 0;
    r.key = s.text(c++);
    // The store's own flat JSON is read by a fast reader; anything else by the general parser.
    if (const std::string text = s.text(c++); !read_scalar_object(text, r.params)) {
        r.params = decoding(path, r.key, "parameters", text,
                            [&] { return params_from_json(nlohmann::ordered_json::parse(text)); });
    }
    const std::string st = s.text(c++);
    const auto parsed = parse_status(st);
    if (!parsed) throw env_error(fmt::format("{}: unknown status '{}' for {}", path, st, r.key));
    // One copy of the status and message is stored: the GPU part mirrors the record's.
    r.st = *parsed;
    r.gpu.st = r.st;
    r.message = s.text(c++);
    r.gpu.message = r.message;
    r.gpu.output = s.text(c++);
    r.compile_log = s.text(c++);
    r.compile_ms = s.real(c++);
    r.compile_cached = s.i64(c++) != 0;
    resource_usage& u = r.resources;
    job_result& g = r.gpu;
    for (int* v : {&u.registers, &u.spill_store_bytes, &u.spill_load_bytes, &u.stack_bytes,
                   &u.shared_static_bytes, &u.const_bytes, &g.num_regs, &g.local_bytes,
                   &g.static_shared_bytes, &g.max_threads_per_block, &g.active_blocks_per_sm}) {
        *v = s.i32(c++);
    }
    g.occupancy = s.real(c++);
    g.sample_mode = s.text(c++);
    summary& t = g.time_us;
    t.n = static_cast<std::size_t>(s.i64(c++));
    for (double* v : {&t.median, &t.mean, &t.stddev, &t.min, &t.max, &t.ci_low, &t.ci_high,
                      &t.mean_ci_half, &g.gpu_busy_s, &g.wall_s, &r.gbps, &r.gflops}) {
        *v = s.real(c++);
    }
    for (uint32_t& v : r.grid) v = static_cast<uint32_t>(s.i64(c++));
    for (uint32_t& v : r.block) v = static_cast<uint32_t>(s.i64(c++));
    r.dynamic_shared_bytes = s.i32(c++);
    if (const std::string text = s.text(c++); !read_number_array(text, g.samples_us)) {
        g.samples_us = decoding(path, r.key, "samples", text, [&] {
            return nlohmann::json::parse(text).get<std::vector<double>>();
        });
    }
    g.timer = s.text(c++);
    if (std::map<std::string, double> steps; read_number_object(s.text(c), steps)) {
        auto get = [&](const char* k) { return steps.count(k) ? steps[k] : 0.0; };
        g.steps.load_s = get("load_s");
        g.steps.verify_s = get("verify_s");
        g.steps.warmup_s = get("warmup_s");
        g.steps.samples_s = get("samples_s");
        g.steps.waits = static_cast<int>(get("waits"));
    } else {
        decoding(path, r.key, "job steps", s.text(c), [&] {
            const auto j = nlohmann::json::parse(s.text(c));
            g.steps.load_s = j.value("load_s", 0.0);
            g.steps.verify_s = j.value("verify_s", 0.0);
            g.steps.warmup_s = j.value("warmup_s", 0.0);
            g.steps.samples_s = j.value("samples_s", 0.0);
            g.steps.waits = j.value("waits", 0);
            return 0;
        });
    }
    ++c;
    if (const std::string text = s.text(c++); !read_number_object(text, r.metrics)) {
        r.metrics = decoding(path, r.key, "metrics", text, [&] {
            return nlohmann::json::parse(text).get<std::map<std::string, double>>();
        });
    }
    r.device = s.i32(c++);
    r.device_uuid = s.text(c++);
    if (std::map<std::string, double> tm; read_number_object(s.text(c++), tm)) {
        auto get = [&](const char* k) { return tm.count(k) ? tm[k] : -1.0; };
        g.telemetry = {get("sm_clock_mhz"), get("temperature_c"), get("power_w")};
    }
    r.created_at = s.text(c++);
    return r;
}

}  // namespace hone::store_detail
