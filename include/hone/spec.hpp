// The typed form of a YAML search config. Every field keeps where it came from, so that
// later layers (space, compile, tune) can report errors against the user's file.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hone/elem_type.hpp"
#include "hone/error.hpp"
#include "hone/expr.hpp"
#include "hone/value.hpp"

namespace hone {

struct kernel_spec {
    std::string source_path;   // absolute, resolved against the YAML file's folder
    std::string source_text;   // read at load time
    bool source_found = true;  // false only when loaded with require_source = false
    std::string name;          // "vector_add" or "vector_add<{VEC}, {STRIDED}>"
    bool is_template = false;  // name has '<' or '{': resolved through a name expression
    std::vector<std::string> include_dirs;  // absolute
    std::vector<std::string> options;       // extra NVRTC flags, verbatim
    expression max_registers;               // -> --maxrregcount=N, 0 = none (may use params)
    expression fast_math;                   // -> --use_fast_math when true (may use params)
    // false: parameters named by a {PARAM} placeholder of `name` are template arguments only,
    // not -D macros too (a parameter's own `define:` overrides this).
    bool define_placeholders = true;
    source_pos pos;
};

struct problem_size {
    std::string name;
    int64_t value = 0;
    source_pos pos;
    bool define = true;  // a macro of the source, NAME value (problem: {N: {define: false}})
};

struct param_spec {
    std::string name;
    std::vector<value> values;  // generators (range, pow2, warp multiples) already expanded
    source_pos pos;
    // Defined as the macro NAME value in the source. False for a parameter that is only a template
    // argument (`define: false`, or kernel.define_placeholders: false): a template parameter
    // of the same name would otherwise be replaced by the macro.
    bool define = true;
    bool define_given = false;  // `define:` was written: kernel.define_placeholders leaves it
};

enum class init_kind { zeros, constant, sequence, random_uniform, random_normal, file };

struct init_spec {
    init_kind kind = init_kind::zeros;
    double a = 0.0;  // constant: value; sequence: start; uniform: low; normal: mean
    double b = 1.0;  // sequence: step; uniform: high; normal: stddev
    uint64_t seed = 1;
    std::string path;  // file: raw binary, absolute
};

enum class buffer_role { in, out, inout };
enum class memory_kind { device, managed };

struct buffer_spec {
    std::string name;
    elem_type type = elem_type::f32;
    expression count;   // over problem sizes and device attributes only (not params)
    expression memory;  // evaluates to "device" or "managed"; may be a parameter
    buffer_role role = buffer_role::in;
    init_spec init;
    source_pos pos;
    // A __constant__ or __device__ variable of the kernel's module that this buffer's contents
    // are copied into before the module's first launch ("" = none).
    std::string symbol;
};

struct arg_spec {
    bool is_buffer = true;
    std::string buffer;  // when is_buffer
    expression scalar;   // when !is_buffer
    elem_type type = elem_type::i32;
    source_pos pos;
};

struct launch_spec {
    std::vector<expression> grid;   // 1..3 dims
    std::vector<expression> block;  // 1..3 dims
    expression shared_bytes;        // dynamic shared memory
    // A cooperative launch (cuLaunchCooperativeKernel): every block resident at once, as a
    // grid-wide sync (cooperative_groups::this_grid().sync()) needs.
    bool cooperative = false;
    source_pos pos;
};

struct metrics_spec {
    std::optional<expression> bytes;  // -> GB/s
    std::optional<expression> flops;  // -> GFLOP/s
    std::string objective = "time";   // time | gbps | gflops
};

enum class reference_kind { none, config, kernel };

struct verify_spec {
    std::vector<std::string> outputs;  // buffer names; empty = every out/inout buffer
    double rtol = 1e-5;
    double atol = 1e-6;
    reference_kind ref = reference_kind::none;
    std::map<std::string, value> reference_params;  // ref == config; missing params: first value
    std::string reference_kernel;                   // ref == kernel: a name (may be templated)
    std::vector<expression> reference_grid;         // ref == kernel
    std::vector<expression> reference_block;        // ref == kernel
    source_pos pos;
};

struct timing_spec {
    double rel_precision = 0.01;  // stop when CI half-width <= rel_precision * estimate
    std::string ci = "either";    // median | mean | either: which CI must reach rel_precision
    int min_samples = 10;
    int max_samples = 200;
    double max_time_s = 1.0;  // per-configuration measurement budget
    // warmup "adaptive": per configuration, launch batches until their times settle
    // (src/measure/warm_up.hpp), for at most warmup_ms; "fixed": launch for warmup_ms. Either
    // way the session first brings the GPU to its working clock, and again after it idled.
    std::string warmup = "adaptive";  // adaptive | fixed
    double warmup_ms = 5.0;
    // What times a sample: "profiler" (each launch's gpu__time_duration from CUPTI's range
    // profiler, as Nsight Compute reports it), "cupti" (kernel start/end timestamps from CUPTI's
    // activity records: the kernel on the SMs only), "events" (CUDA events around the launches,
    // as NVBench), "auto" (events: the profiler's setup and extra samples cost more than a
    // short kernel's run: 1.63 s against 0.52 s for 192 vector_add configurations on an H100).
    std::string timer = "auto";  // auto | profiler | cupti | events
    bool l2_flush = true;
    std::string sample_mode = "auto";  // auto | single | batch
    double timeout_s = 10.0;           // watchdog floor for one configuration
};

// A strategy option as written (search: {strategy: genetic, population: 30}).
struct search_option {
    std::string name;
    double value = 0;
    source_pos pos;
};

struct search_spec {
    // A name of the strategy catalogue (src/search/strategy.hpp); "" = not given: exhaustive for
    // small spaces, auto for large ones.
    std::string strategy;
    // Evaluations in all, those resumed from the store included. Not given: no limit for
    // exhaustive and random, a default budget for the others; 0 = no limit (refused for
    // strategies that need a budget).
    std::optional<int64_t> max_evals;
    double time_limit_s = 0.0;  // 0 = no limit
    uint64_t seed = 1;
    std::vector<search_option> options;  // checked against the strategy's at load time
    source_pos strategy_pos, max_evals_pos;
    // The GPUs to measure on (docs/multi-gpu.md): `devices: all` or a list of ordinals; not
    // part of the run's identity. Empty and all_devices false: not given (--device's GPU).
    std::vector<int> devices;
    bool all_devices = false;
    source_pos devices_pos;
};

struct spec {
    std::string path;  // the YAML file, as given
    std::string dir;   // its folder, absolute
    kernel_spec kernel;
    std::vector<problem_size> problem;
    // Problem sizes given as a list (`N: [65536, 1048576]`): each value is a run of its own
    // (hone tune tunes them all); `problem` holds the first, or the --set override.
    std::vector<std::pair<std::string, std::vector<int64_t>>> problem_lists;
    std::vector<param_spec> params;
    std::vector<expression> constraints;
    std::vector<buffer_spec> buffers;
    std::vector<arg_spec> args;
    launch_spec launch;
    metrics_spec metrics;
    verify_spec verify;
    timing_spec timing;
    search_spec search;
    std::string output;  // results database, absolute (default: <yaml stem>.db beside the YAML)

    const param_spec* find_param(std::string_view name) const;
    const buffer_spec* find_buffer(std::string_view name) const;
    bindings problem_bindings() const;  // problem sizes by name
};

// The device attribute names expressions may use: the names that device_attrs::add_to binds.
const std::vector<std::string>& device_attribute_names();

struct load_options {
    // false: a kernel source that is not there is no error (`hone space` needs none): the
    // source text stays empty and the kernel name is not looked for in it.
    bool require_source = true;
};

// Loads and validates a search config. `overrides` replace problem sizes (--set N=...);
// an override naming no problem size is an error. Throws input_error with a position.
spec load_spec(const std::string& path, const std::map<std::string, int64_t>& overrides = {},
               const load_options& opt = {});
spec load_spec_text(const std::string& text, const std::string& path,
                    const std::map<std::string, int64_t>& overrides = {},
                    const load_options& opt = {});

}  // namespace hone
