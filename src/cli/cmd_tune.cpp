// hone tune: measure every configuration of a config's search space on a GPU.
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "cli/commands_internal.hpp"
#include "cli/options.hpp"
#include "common/trace.hpp"
#include "dist/mpi_link.hpp"
#include "dist/remote_session.hpp"
#include "driver/cuda_api.hpp"
#include "driver/nvml.hpp"
#include "hone/final_word.hpp"
#include "hone/spec.hpp"
#include "hone/tuner.hpp"
#include "report/report.hpp"
#include "runtime/capture.hpp"
#include "tune/diagnostics.hpp"
#include "tune/gpu_share.hpp"
#include "tune/internal.hpp"
#include "tune/sessions.hpp"
#include "tune/size_teams.hpp"

namespace hone::cli {
namespace {

volatile std::sig_atomic_t g_stop = 0;

extern "C" void on_interrupt(int) {
    g_stop = 1;
    std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends hone at once
}

// SIGINT and SIGTERM stop a run cleanly (g_stop) while one is in scope, however it ends.
struct interrupt_scope {
    explicit interrupt_scope(bool on = true) : on(on) {
        if (!on) return;
        std::signal(SIGINT, on_interrupt);
        std::signal(SIGTERM, on_interrupt);
    }
    ~interrupt_scope() {
        if (!on) return;
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
    }
    interrupt_scope(const interrupt_scope&) = delete;
    interrupt_scope& operator=(const interrupt_scope&) = delete;
    bool on;
};

struct tune_args {
    std::string config;
    std::vector<std::string> sets;
    int device = 0;
    bool device_given = false;
    std::string devices;  // --devices
    bool devices_given = false;
    bool per_model = false;
    bool json = false, quiet = false, fresh = false, retry_failed = false, in_process = false;
    int jobs = 0;
    std::string cache_dir, output, only, l2_flush, timer, captures, shard, strategy;
    std::vector<std::string> strategy_options;  // --option NAME=VALUE
    shard_spec shard_of;                        // parsed --shard
    bool mpi = false;                           // --mpi
    bool in_mpi = false;                        // this is rank 0 of an MPI run, its sessions made
    std::vector<std::shared_ptr<gpu_session>> sessions;       // rank 0's: every rank's GPUs
    std::vector<std::shared_ptr<remote_compiler>> compilers;  // rank 0's: the others' pools
    bool no_cache = false, dry_run = false;
    std::string arch;
    int64_t max_evals = -1;
    double time_limit = -1;
    std::size_t top = 10;
    int keep_workers = -1;       // --keep-workers: seconds; -1: $HONE_KEEP_WORKERS as it is
    gpu_share* share = nullptr;  // several sizes: GPUs out of sizes join the run through it
};

// --strategy replaces the config's strategy and its options; --option sets options of the
// strategy in force (the config's, or --strategy's).
void apply_search_overrides(const tune_args& a, spec& s) {
    if (!a.strategy.empty()) {
        check_strategy_name(a.strategy);
        s.search.strategy = a.strategy;
        s.search.strategy_pos = {"--strategy", 0, 0};
        s.search.options.clear();
    }
    if (a.strategy_options.empty()) return;
    if (s.search.strategy.empty())
        throw input_error({"--option", 0, 0},
                          "the config names no strategy for the option to apply to: give "
                          "--strategy NAME too (hone replay --help lists them and their options)");
    for (const auto& [name, v] : parse_strategy_options(s.search.strategy, a.strategy_options)) {
        const source_pos pos{"--option " + name, 0, 0};
        auto it = std::find_if(s.search.options.begin(), s.search.options.end(),
                               [&](const search_option& o) { return o.name == name; });
        if (it == s.search.options.end())
            s.search.options.push_back({name, v, pos});
        else
            *it = {name, v, pos};
    }
}

std::string time_split_text(const time_split& t, const tune_result& r) {
    const double other = t.wall_s - t.setup_s - t.compile_wait_s - t.gpu_s - t.final_word_s;
    const prepare_report& p = t.prepare;
    const job_steps& g = t.gpu_steps;
    return fmt::format(
        "time: wall {:.2f} s = setup {:.2f} s + waiting for the compiler {:.2f} s + "
        "GPU work {:.2f} s + {}other {:.2f} s\n"
        "      setup: GPU session start {:.2f} s, reference compile {:.2f} s, prepare {:.2f} s "
        "(inputs {:.2f} s, upload {:.2f} s, reference run {:.2f} s, CUPTI {:.2f} s, clock to "
        "{:.0f} MHz {:.2f} s)\n"
        "      samples timed by {}{}\n"
        "      GPU work: in the GPU session {:.2f} s (module load {:.2f} s, first launch and check "
        "{:.2f} s, warm-up {:.2f} s, samples {:.2f} s; {} waits for the GPU); storing results "
        "meanwhile {:.2f} s\n"
        "      GPU busy in warm-up and samples {:.2f} s ({:.2f} s with the flushes or spins "
        "between samples); compile CPU {:.2f} s; {} compiled, {} from cache; {} compiled ahead "
        "of the search, {} of them used\n",
        t.wall_s, t.setup_s, t.compile_wait_s, t.gpu_s,
        t.final_word_s > 0 ? fmt::format("final word {:.2f} s + ", t.final_word_s) : "", other,
        t.session_start_s, t.reference_compile_s, t.prepare_s, p.inputs_s, p.upload_s,
        p.reference_s, p.timer_s, p.clock_mhz, p.clock_s, p.timer.empty() ? "-" : p.timer,
        p.timer_note.empty() ? "" : " (" + p.timer_note + ")", t.worker_s, g.load_s, g.verify_s,
        g.warmup_s, g.samples_s, g.waits, t.store_s, t.gpu_busy_s, t.gpu_span_s, t.compile_cpu_s,
        r.compiled, r.cache_hits, t.compiled_ahead, t.ahead_used);
}

// The best's figure in the progress line where the objective is a rate; "" for time.
std::string objective_text(const eval_record& r, rank_by by) {
    if (by == rank_by::gbps && r.gbps > 0) return fmt::format("{:.0f} GB/s", r.gbps);
    if (by == rank_by::gflops && r.gflops > 0) return fmt::format("{:.0f} GFLOP/s", r.gflops);
    return "";
}

nlohmann::ordered_json rusage_json() {
    rusage self{}, children{};
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    return {{"max_rss_kib_self", self.ru_maxrss}, {"max_rss_kib_children", children.ru_maxrss}};
}

// The configurations that did not give a timing, with why: the first few of each status.
std::string failures_text(const std::vector<eval_record>& records, const std::string& db) {
    std::string out;
    constexpr int per_status = 3;
    std::map<status, int> shown;
    bool any = false;
    for (const auto& rec : records) {
        if (has_timing(rec.st)) continue;
        const int n = shown[rec.st]++;
        if (n == per_status)
            fmt::format_to(std::back_inserter(out),
                           "  {:<15} ... (hone show {} --where status={} --all)\n",
                           status_name(rec.st), db, status_name(rec.st));
        if (n >= per_status) continue;
        std::string msg = rec.message.substr(0, rec.message.find('\n'));
        if (msg.size() > 100) msg = msg.substr(0, 97) + "...";
        fmt::format_to(std::back_inserter(out), "  {:<15} {}: {}\n", status_name(rec.st), rec.key,
                       msg);
        any = true;
    }
    if (any) out += "\n";
    return out;
}

// With text_out, the run's text (not its progress) goes there instead of stdout; with
// own_signals false, the caller handles SIGINT and SIGTERM (runs in parallel threads).
int tune_spec(const tune_args& a, spec s, const std::map<std::string, int64_t>& sets,
              nlohmann::ordered_json* json_out, const session_list& sessions = {},
              std::string* text_out = nullptr, bool own_signals = true);
int run_captures(const tune_args& a);

void say(const std::string& line) {
    fmt::print(stderr, "hone: {}\n", line);
}

// The GPUs of the run, in groups of one model each: --devices, else search.devices, else
// --device. Ordinals are checked against the driver's list (no context is made); mixed models
// are refused unless --per-model asks for one run per model.
std::vector<std::vector<int>> device_groups(
    const tune_args& a, const spec& s, std::shared_future<std::vector<device_info>> described) {
    std::optional<std::vector<int>> chosen;  // nullopt: all
    std::string where = "--devices";
    if (a.devices_given) {
        chosen = parse_devices(a.devices);
    } else if (!a.device_given && (s.search.all_devices || !s.search.devices.empty())) {
        where = fmt::format("{}:{}:{}", s.search.devices_pos.file, s.search.devices_pos.line,
                            s.search.devices_pos.column);
        if (!s.search.all_devices) chosen = s.search.devices;
    } else {
        return {{a.device}};
    }
    if (a.in_process && (!chosen || chosen->size() > 1))
        throw input_error({where, 0, 0},
                          "--in-process measures on one GPU: name one, or leave "
                          "--in-process out");
    const std::vector<device_info>& all = described.get();
    if (all.empty()) throw env_error("no GPU found");
    std::vector<int> ordinals;
    if (chosen) {
        for (int d : *chosen)
            if (d >= static_cast<int>(all.size()))
                throw input_error({where, 0, 0},
                                  fmt::format("there is no GPU {}: this machine has {} (0-{}; see "
                                              "`hone devices`)",
                                              d, all.size(), all.size() - 1));
        ordinals = *chosen;
    } else {
        for (const auto& d : all) ordinals.push_back(d.ordinal);
    }
    std::vector<std::vector<int>> groups;
    std::vector<const device_attrs*> models;
    for (int d : ordinals) {
        const device_attrs& m = all[static_cast<std::size_t>(d)].attrs;
        std::size_t g = 0;
        while (g < models.size() &&
               !(models[g]->name == m.name && models[g]->sm_count == m.sm_count &&
                 models[g]->total_mem == m.total_mem))
            ++g;
        if (g == models.size()) {
            models.push_back(&m);
            groups.emplace_back();
        }
        groups[g].push_back(d);
    }
    if (groups.size() > 1 && !a.per_model) {
        std::string list;
        for (std::size_t g = 0; g < groups.size(); ++g)
            list += fmt::format("{}GPU {} {} ({} SMs, {} MiB)", g ? ", " : "",
                                fmt::join(groups[g], ","), models[g]->name, models[g]->sm_count,
                                models[g]->total_mem >> 20);
        throw input_error({where, 0, 0},
                          fmt::format("GPUs of different models in one run: {}; results of "
                                      "different models do not rank together: name GPUs of one "
                                      "model, or add --per-model for one run per model",
                                      list));
    }
    return groups;
}

// Every GPU's ordinal as NVML counts them, without CUDA's start in this process; empty where
// NVML is absent or CUDA_VISIBLE_DEVICES may renumber them.
std::vector<int> counted_devices() {
    std::vector<int> out;
    if (!std::getenv("CUDA_VISIBLE_DEVICES"))
        for (int i = 0; i < nvml::device_count(); ++i) out.push_back(i);
    return out;
}

// The machine's GPUs as NVML describes them, where that stands for CUDA's list: every GPU of
// one model (name and memory) and CUDA_VISIBLE_DEVICES unset, so that an ordinal names a GPU of
// that model under either count. nullopt otherwise, and device_groups reads CUDA's list: its
// start in this process (cuInit and a context a GPU: 1.6 s on a 4x H200 host) would compete
// with the GPU workers' own, which the driver serialises. The workers' CUDA figures are checked
// again (check_one_model).
std::optional<std::vector<device_info>> models_without_cuda() {
    if (std::getenv("CUDA_VISIBLE_DEVICES")) return std::nullopt;
    const auto models = nvml::models();
    if (models.empty()) return std::nullopt;
    std::vector<device_info> out;
    for (const auto& m : models) {
        if (m.name != models.front().name || m.total_mem != models.front().total_mem)
            return std::nullopt;
        device_info d;
        d.ordinal = static_cast<int>(out.size());
        d.attrs.name = m.name;
        d.attrs.total_mem = static_cast<decltype(d.attrs.total_mem)>(m.total_mem);
        out.push_back(std::move(d));
    }
    return out;
}

// The GPUs device_groups will name, where that is known without CUDA in this process: the
// list given, or every GPU NVML counts (when CUDA_VISIBLE_DEVICES does not renumber them);
// empty when unknown or for one GPU, which is started as ever.
std::vector<int> likely_devices(const tune_args& a, const spec& s) {
    if (a.in_process) return {};
    std::optional<std::vector<int>> named;  // nullopt: all
    if (a.devices_given) {
        try {
            named = parse_devices(a.devices);
        } catch (const std::exception&) {
            return {};  // device_groups says what is wrong
        }
    } else if (a.device_given || (!s.search.all_devices && s.search.devices.empty())) {
        return {};
    } else if (!s.search.all_devices) {
        named = s.search.devices;
    }
    return named ? *named : counted_devices();
}

// The sessions of `devices`, in their order: those started early, the others (or those whose
// early start failed) started now, a GPU that does not start left out with the reason.
session_list take_sessions(const std::vector<int>& devices,
                           std::map<int, std::shared_ptr<gpu_session>>& early, bool isolated,
                           bool profiler_ahead) {
    auto started = [&](int d) {
        const auto it = early.find(d);
        return it != early.end() && it->second;
    };
    std::vector<int> rest;
    for (int d : devices)
        if (!started(d)) rest.push_back(d);
    std::map<int, std::shared_ptr<gpu_session>> now;
    if (!rest.empty()) {
        std::vector<std::shared_ptr<gpu_session>> opened;
        try {
            opened = open_gpu_sessions(rest, isolated, say, profiler_ahead);
        } catch (const std::exception& e) {
            if (rest.size() == devices.size()) throw;  // none started: the reason is the error
            say(fmt::format("GPU {} left out of the run: it did not start: {}",
                            fmt::join(rest, ","), e.what()));
        }
        for (auto& s : opened) now[s->device().ordinal] = std::move(s);
    }
    session_list out;
    for (int d : devices) {
        auto& from = started(d) ? early : now;
        if (auto it = from.find(d); it != from.end() && it->second)
            out.push_back(std::move(it->second));
    }
    return out;
}

int run_mpi(tune_args a);

std::string sizes_text(const std::map<std::string, int64_t>& size) {
    std::string what;
    for (const auto& [k, v] : size) what += fmt::format("{}{}={}", what.empty() ? "" : ",", k, v);
    return what.empty() ? "the config's sizes" : what;
}

// Several sizes on several GPUs (src/tune/size_teams.hpp): the GPUs are dealt into
// min(sizes, GPUs) teams that take the sizes largest first (the product of the size's values),
// so that a long size does not start last, and lend themselves to the runs still searching when
// none is left. Each size is a run of its own, into the one database; its text is printed whole
// when it ends. A run spread over all GPUs instead would leave them idle between the sizes, and
// a short size gives too few configurations to keep several GPUs busy.
int tune_sizes_in_parallel(const tune_args& a, const std::vector<spec>& specs,
                           const std::vector<std::map<std::string, int64_t>>& sizes,
                           const session_list& sessions, std::vector<std::string>& items) {
    size_teams_job job;
    const std::size_t teams_n = std::min(sizes.size(), sessions.size());
    job.teams.resize(teams_n);
    for (std::size_t i = 0; i < sessions.size(); ++i) job.teams[i % teams_n].push_back(sessions[i]);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        double w = 1;
        for (const auto& [k, v] : sizes[i]) w *= static_cast<double>(std::max<int64_t>(v, 1));
        job.order.push_back(i);
        job.weight.push_back(w);
    }
    std::stable_sort(job.order.begin(), job.order.end(),
                     [&](std::size_t x, std::size_t y) { return job.weight[x] > job.weight[y]; });
    tune_args each = a;
    each.quiet = true;  // one line a finished size instead of interleaved progress lines
    if (a.jobs == 0) {  // the teams' compile pools share the CPUs
        const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
        each.jobs = static_cast<int>(std::max<std::size_t>(1, cpus / teams_n));
    }
    items.assign(sizes.size(), std::string());
    std::vector<int> rcs(sizes.size(), 0);
    std::vector<std::string> texts(sizes.size());
    std::size_t done = 0;
    job.run = [&](std::size_t i, const session_list& team, gpu_share& share) {
        tune_args mine = each;
        mine.share = &share;
        nlohmann::ordered_json j;
        rcs[i] = tune_spec(mine, specs[i], sizes[i], a.json ? &j : nullptr, team, &texts[i], false);
        // Rendered as the run ends, while the other teams' runs go on: 1,920 results took
        // 25-36 ms to print after the last run, on the command's critical path.
        if (a.json) items[i] = json_array_element(j);
    };
    job.ended = [&](std::size_t i, const std::vector<int>& gpus) {
        ++done;
        if (!a.json)
            fmt::print("== run {}/{}: {} on GPU {}\n{}\n", i + 1, sizes.size(),
                       sizes_text(sizes[i]), fmt::join(gpus, ","), texts[i]);
        if (!a.quiet)
            fmt::print(stderr, "hone: {} of {} sizes done ({} on GPU {})\n", done, sizes.size(),
                       sizes_text(sizes[i]), fmt::join(gpus, ","));
        std::fflush(stdout);
    };
    job.stop = &g_stop;
    {
        const interrupt_scope signals;
        run_size_teams(job);
    }
    if (g_stop) return 130;
    int rc = 0;
    for (int one : rcs) rc = one == 130 ? 130 : std::max(rc, one);
    return rc;
}

int run_tune(tune_args a) {
    if (!a.shard.empty()) a.shard_of = parse_shard(a.shard);
    // Under mpirun (or srun) every rank runs this command: MPI, unless the launcher started one.
    if (!a.in_mpi && (a.mpi || (launched_by_mpi() && launcher_world_size() != 1)))
        return run_mpi(std::move(a));
    if (!a.captures.empty()) return run_captures(a);
    // Sizes given as lists (--set N=1,2,3 or a list in the config's problem section): one run
    // per combination, into one database, on the same GPU sessions.
    const auto lists = parse_set_lists(a.sets);
    std::map<std::string, int64_t> firsts;
    for (const auto& [name, values] : lists) firsts[name] = values.front();
    const spec first = load_spec(a.config, firsts);
    // Whether the GPU workers enable the range profiler while the run prepares.
    const bool ahead = timer_wants_profiler(a.timer.empty() ? first.timing.timer : a.timer);
    const auto sizes = size_runs(lists, first.problem_lists);
    if (a.dry_run) {  // compile everything into the cache, measure nothing
        check_args c;
        c.config = a.config;
        c.sets = a.sets;
        c.arch = a.arch;
        c.jobs = a.jobs;
        c.json = a.json;
        c.failures_only = a.quiet;
        c.use_cache = !a.no_cache;
        c.cache_dir = a.cache_dir;
        c.compilers = a.compilers;
        if (sizes.size() <= 1) return run_check(c);
        // A size list: each size compiled as its run would (sizes may reach the kernel as
        // defines), one check a size.
        int rc = 0;
        for (const auto& size : sizes) {
            c.sets.clear();
            for (const auto& [name, v] : size) c.sets.push_back(fmt::format("{}={}", name, v));
            if (!a.json && !a.quiet) fmt::print("== {}\n", sizes_text(size));
            rc = std::max(rc, run_check(c));
        }
        return rc;
    }
    // Every size is checked before any GPU is started.
    std::vector<spec> specs;
    for (const auto& size : sizes) specs.push_back(load_spec(a.config, size));
    trace_mark("specs loaded");
    // The GPU workers of the GPUs the run will likely use start now. They name their GPUs'
    // models (CUDA's figures) in their first answer: where every one started, this process
    // needs neither NVML (its load and start took 40 ms on a 4x H200 host, where the workers
    // answered in 3) nor CUDA. Otherwise it reads NVML where that stands for CUDA's list, else
    // starts CUDA (~1 s on a 4-GPU host).
    std::shared_future<std::vector<device_info>> described;
    std::map<int, std::shared_ptr<gpu_session>> early;
    if (const auto likely = likely_devices(a, first); !likely.empty()) {
        std::vector<std::exception_ptr> errors;
        auto started = make_worker_sessions(likely, errors, ahead);
        trace_mark("GPU workers started");
        if (std::ranges::all_of(started, [](const auto& w) { return w != nullptr; })) {
            std::vector<device_info> models(
                static_cast<std::size_t>(*std::ranges::max_element(likely)) + 1);
            for (std::size_t i = 0; i < likely.size(); ++i) {
                auto& m = models[static_cast<std::size_t>(likely[i])];
                m = started[i]->device();
                m.ordinal = likely[i];
            }
            std::promise<std::vector<device_info>> ready;
            ready.set_value(std::move(models));
            described = ready.get_future().share();
        } else {
            described = std::async(std::launch::async, [] {
                            if (auto models = models_without_cuda()) return std::move(*models);
                            return describe_devices();
                        }).share();
        }
        for (std::size_t i = 0; i < likely.size(); ++i)
            if (started[i]) early[likely[i]] = std::move(started[i]);
    } else {
        described = std::async(std::launch::deferred, describe_devices).share();
    }
    const auto groups = device_groups(a, first, described);
    trace_mark("GPUs chosen");
    const bool several_gpus = groups.size() > 1 || groups.front().size() > 1 || a.devices_given;
    if (sizes.size() == 1 && !several_gpus) {  // one GPU, one run: as hone always tuned
        tune_args one = a;
        one.device = groups.front().front();
        return tune_spec(one, first, sizes.front(), nullptr,
                         early.empty()
                             ? session_list{}
                             : take_sessions(groups.front(), early, !a.in_process, ahead));
    }
    int rc = 0;
    std::vector<std::string> all;  // each run's JSON, rendered as it ends
    const bool in_array = groups.size() * sizes.size() > 1;
    for (std::size_t g = 0; g < groups.size() && rc != 130; ++g) {
        if (a.in_process) cu::prefer_one_work_queue();  // before this process's context
        const session_list sessions = take_sessions(groups[g], early, !a.in_process, ahead);
        if (sizes.size() > 1 && sessions.size() > 1) {
            std::vector<std::string> items;
            const int one = tune_sizes_in_parallel(a, specs, sizes, sessions, items);
            for (auto& item : items) all.push_back(std::move(item));
            rc = one == 130 ? 130 : std::max(rc, one);
            continue;
        }
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            if (!a.json && (sizes.size() > 1 || groups.size() > 1)) {
                fmt::print(
                    "== run {}/{}: {}{}\n", g * sizes.size() + i + 1, groups.size() * sizes.size(),
                    sizes_text(sizes[i]),
                    groups.size() > 1 ? fmt::format(" on GPU {}", fmt::join(groups[g], ",")) : "");
            }
            nlohmann::ordered_json j;
            const int one = tune_spec(a, specs[i], sizes[i], a.json ? &j : nullptr, sessions);
            if (a.json) all.push_back(in_array ? json_array_element(j) : j.dump(2));
            if (one == 130) {
                rc = 130;
                break;
            }
            rc = std::max(rc, one);
            if (!a.json && i + 1 < sizes.size()) fmt::print("\n");
        }
    }
    trace_mark("runs ended");
    // Several runs print as an array (also when an interrupt left fewer: the output's shape
    // follows the command, not how far it got).
    if (a.json) {
        if (in_array)
            std::cout << json_array_text(all) << "\n";
        else
            for (const auto& one : all) std::cout << one << "\n";
    }
    trace_mark("output written");
    return rc;
}

// One tuning run of `s`; with `json_out`, its JSON goes there instead of stdout.
int tune_spec(const tune_args& a, spec s, const std::map<std::string, int64_t>& sets,
              nlohmann::ordered_json* json_out, const session_list& sessions, std::string* text_out,
              bool own_signals) {
    if (a.l2_flush == "on") s.timing.l2_flush = true;
    if (a.l2_flush == "off") s.timing.l2_flush = false;
    if (!a.timer.empty()) s.timing.timer = a.timer;
    apply_search_overrides(a, s);
    tune_options opt;
    opt.device = a.device;
    opt.sessions = sessions;
    opt.on_message = say;
    opt.isolated = !a.in_process;
    if (a.in_process) cu::prefer_one_work_queue();  // this process runs the session
    opt.fresh = a.fresh;
    opt.retry_failed = a.retry_failed;
    opt.jobs = a.jobs;
    opt.cache_dir = a.cache_dir;
    opt.use_cache = !a.no_cache;
    opt.output = a.output;
    opt.only = a.only;
    opt.max_evals = a.max_evals;
    opt.time_limit_s = a.time_limit;
    opt.stop = &g_stop;
    opt.shard = a.shard_of;
    if (!a.sessions.empty()) opt.sessions = a.sessions;  // an MPI run: every rank's GPUs
    opt.compilers = a.compilers;
    opt.share = a.share;
    const rank_by by = parse_rank_by(s.metrics.objective);  // what make_identity stores
    const bool tty = stderr_is_tty();
    auto last_print = std::chrono::steady_clock::now();
    if (!a.quiet) {
        opt.on_progress = [&](const pipeline_state& st) {
            progress_info p;
            p.done = st.done;
            p.total = st.total;
            p.failures = st.failures;
            if (st.best) {
                p.best_median_us = st.best->gpu.time_us.median;
                p.best_value = objective_text(*st.best, by);
                p.best_key = st.best->key;
            }
            p.eta_s = st.eta_s;
            p.measuring = st.measuring;
            p.compiled_ahead = st.compiled_ahead;
            p.compiling = st.compiling;
            const auto now = std::chrono::steady_clock::now();
            const bool last = st.done == st.total;
            if (tty) {
                fmt::print(stderr, "\r{}\x1b[K{}", progress_line(p), last ? "\n" : "");
            } else if (last || now - last_print > std::chrono::seconds(10)) {
                fmt::print(stderr, "{}\n", progress_line(p));
                last_print = now;
            }
        };
    }
    tune_diagnostics diag;
    opt.diagnostics = &diag;
    const std::string what = sizes_text(sets);
    trace_mark(what + ": tune begins");
    const tune_result r = [&] {
        const interrupt_scope signals(own_signals);
        const trace_label label(what);
        return tune(s, opt);
    }();
    trace_mark(what + ": tune returned");

    table_options t;
    for (const auto& p : s.params) t.param_names.push_back(p.name);
    t.top = a.top;
    t.by = stored_rank_by(r.identity);
    const auto best = ranked(r.records, t.by);
    if (a.json) {
        nlohmann::ordered_json j;
        j["config"] = a.config;
        j["output"] = r.output;
        j["identity"] = to_json(r.identity);
        j["interrupted"] = r.interrupted;
        j["remeasure_reason"] = r.remeasure_reason;
        j["stop_reason"] = r.stop_reason;
        j["resumed"] = r.resumed;
        j["evaluated"] = r.evaluated;
        j["time"] = {{"wall_s", diag.time.wall_s},
                     {"setup_s", diag.time.setup_s},
                     {"compile_wait_s", diag.time.compile_wait_s},
                     {"compile_cpu_s", diag.time.compile_cpu_s},
                     {"gpu_s", diag.time.gpu_s},
                     {"final_word_s", diag.time.final_word_s},
                     {"gpu_busy_s", diag.time.gpu_busy_s},
                     {"gpu_span_s", diag.time.gpu_span_s},
                     {"setup",
                      {{"session_start_s", diag.time.session_start_s},
                       {"reference_compile_s", diag.time.reference_compile_s},
                       {"prepare_s", diag.time.prepare_s},
                       {"inputs_s", diag.time.prepare.inputs_s},
                       {"upload_s", diag.time.prepare.upload_s},
                       {"reference_run_s", diag.time.prepare.reference_s},
                       {"reference_us", diag.time.prepare.reference_us},
                       {"timer", diag.time.prepare.timer},
                       {"timer_note", diag.time.prepare.timer_note},
                       {"timer_s", diag.time.prepare.timer_s},
                       {"clock_s", diag.time.prepare.clock_s},
                       {"clock_mhz", diag.time.prepare.clock_mhz}}},
                     {"gpu_work",
                      {{"session_s", diag.time.worker_s},
                       {"load_s", diag.time.gpu_steps.load_s},
                       {"verify_s", diag.time.gpu_steps.verify_s},
                       {"warmup_s", diag.time.gpu_steps.warmup_s},
                       {"samples_s", diag.time.gpu_steps.samples_s},
                       {"waits", diag.time.gpu_steps.waits}}},
                     {"store_s", diag.time.store_s},
                     {"compiled", r.compiled},
                     {"cache_hits", r.cache_hits},
                     {"compiled_ahead", diag.time.compiled_ahead},
                     {"ahead_used", diag.time.ahead_used}};
        j["rusage"] = rusage_json();
        const std::string winner = r.final ? r.final->winner() : "";
        j["best"] = !winner.empty() ? nlohmann::ordered_json(winner)
                    : best.empty()  ? nlohmann::ordered_json()
                                    : nlohmann::ordered_json(best[0]->key);
        nlohmann::ordered_json devices = nlohmann::ordered_json::array();
        for (const auto& d : r.devices)
            devices.push_back(
                {{"ordinal", d.ordinal},
                 {"uuid", d.uuid},
                 {"name", d.attrs.name},
                 {"measured", r.measured_by.count(d.ordinal) ? r.measured_by.at(d.ordinal) : 0}});
        j["devices"] = std::move(devices);
        j["dropped"] = r.dropped;
        j["final_word"] = r.final ? nlohmann::ordered_json::parse(to_json_text(*r.final))
                                  : nlohmann::ordered_json();
        j["results"] = to_json(r.records);
        if (json_out)
            *json_out = std::move(j);
        else
            std::cout << j.dump(2) << "\n";
    } else {
        std::string text;
        auto out = std::back_inserter(text);
        std::string gpus = fmt::format("GPU {}", r.device.ordinal);
        if (r.devices.size() > 1) {
            gpus = "GPUs";
            for (const auto& d : r.devices)
                gpus += fmt::format(" {}{}", d.ordinal,
                                    r.measured_by.count(d.ordinal)
                                        ? fmt::format(" ({} measured)", r.measured_by.at(d.ordinal))
                                        : "");
        }
        fmt::format_to(out, "{} on {} ({}, {}), {}{}\n", s.kernel.name, r.device.attrs.name,
                       r.device.attrs.arch(), gpus, r.identity.problem,
                       a.shard_of.active() ? fmt::format(", shard {}", a.shard_of.text()) : "");
        for (const auto& d : r.dropped) fmt::format_to(out, "dropped: {}\n", d);
        fmt::format_to(out, "results: {} ({} evaluated now, {} resumed){}\n", r.output, r.evaluated,
                       r.resumed,
                       r.interrupted ? "; interrupted: run the same command to resume" : "");
        if (!r.remeasure_reason.empty()) fmt::format_to(out, "{}\n", r.remeasure_reason);
        if (!r.stop_reason.empty()) fmt::format_to(out, "{}\n", r.stop_reason);
        fmt::format_to(out, "{}\n", status_summary(r.records));
        text += failures_text(r.records, r.output);
        fmt::format_to(out, "{}", time_split_text(diag.time, r));
        fmt::format_to(out, "\n{}", best_table(r.records, t));
        const eval_record* winner = best.empty() ? nullptr : best[0];
        if (r.final) {
            fmt::format_to(out, "\n{}", final_word_text(*r.final));
            for (const auto& rec : r.records)
                if (rec.key == r.final->winner()) winner = &rec;
        }
        if (winner)
            fmt::format_to(out, "\nreproduce the best:\n{}",
                           reproduce_snippet(*winner, a.config, sets));
        if (text_out)
            *text_out = std::move(text);
        else
            fmt::print("{}", text);
    }
    if (r.interrupted) return 130;
    return best.empty() ? 1 : 0;
}

// An MPI run: rank 0 tunes as ever, measuring on its own GPUs and every other rank's; the other
// ranks serve their GPUs to it. The ranks on one host share its GPUs out by local rank.
int run_mpi(tune_args a) {
    // The GPUs are counted by NVML where it numbers them as CUDA does (no CUDA_VISIBLE_DEVICES):
    // the rank's GPU workers then start at once, without waiting for this process's CUDA start
    // (~1 s, longer with several processes starting at once). Otherwise that start overlaps
    // MPI's.
    const std::vector<int> counted = a.in_process ? std::vector<int>{} : counted_devices();
    std::shared_future<std::vector<device_info>> devices =
        std::async(counted.empty() ? std::launch::async : std::launch::deferred, [] {
            return list_devices();
        }).share();
    auto share = [&](int local_rank, int local_size) {
        std::vector<int> all = counted;
        if (all.empty())
            for (const auto& d : devices.get()) all.push_back(d.ordinal);
        // Fewer GPUs than ranks on the host: the launcher gave each rank its own.
        const bool own = static_cast<int>(all.size()) < local_size;
        return own ? all : local_share(all, local_rank, local_size);
    };
    // Where the launcher says where this rank stands on its host, its GPU workers are spawned
    // first and MPI starts while they start (MPI's start and CUDA's overlap: 0.66 s after the
    // workers' 0.9 s on a 4x H200 host when it waited for them); a dry run measures nothing.
    std::shared_ptr<mpi_link> link;
    std::exception_ptr mpi_failed;  // thrown once the workers' starts are settled
    const auto open_mpi = [&] {
        try {
            link = mpi_link::open(a.mpi ? "--mpi" : "started by an MPI launcher");
        } catch (...) {
            mpi_failed = std::current_exception();
        }
    };
    const auto early_place = launcher_local_rank();
    session_list early;
    if (early_place && !counted.empty() && !a.dry_run) {
        try {
            const auto mine = share(early_place->first, early_place->second);
            if (!mine.empty()) early = open_gpu_sessions(mine, !a.in_process, say, true, open_mpi);
        } catch (const std::exception&) {
            early.clear();  // local() tries again, where a failure is handled as ever
        }
    }
    if (!link && !mpi_failed) open_mpi();
    if (mpi_failed) std::rethrow_exception(mpi_failed);
    auto local = [&] {
        if (early_place && early_place->first == link->local_rank() &&
            early_place->second == link->local_size() && !early.empty())
            return std::exchange(early, {});
        const std::vector<int> mine = share(link->local_rank(), link->local_size());
        return mine.empty() ? session_list{} : open_gpu_sessions(mine, !a.in_process, say);
    };
    if (link->rank() != 0) {
        serve_rank(*link, local);
        return 0;
    }
    // However rank 0 ends (an error in the config included), the other ranks are let go.
    struct release {
        mpi_link& l;
        ~release() {
            try {
                release_ranks(l);
            } catch (...) {
            }
        }
    } guard{*link};
    a.in_mpi = true;
    rank_hello hello;
    hello.gpus = !a.dry_run;  // --dry-run compiles on every rank and measures nothing
    hello.cache_dir = a.cache_dir;
    const auto t0 = std::chrono::steady_clock::now();
    auto remote = connect_ranks(link, hello, [&] {
        if (a.dry_run) return;
        try {
            a.sessions = local();
        } catch (const env_error&) {
            if (link->size() == 1) throw;  // a head node without GPUs serves the others' only
        }
    });
    a.compilers = std::move(remote.compilers);
    if (!a.quiet && !a.compilers.empty()) {
        std::size_t jobs = 0;
        for (const auto& c : a.compilers) jobs += c->capacity();
        fmt::print(stderr, "MPI: compiling on {} more ranks ({} workers)\n", a.compilers.size(),
                   jobs);
    }
    if (!a.dry_run) {
        for (auto& s : remote.sessions) a.sessions.push_back(std::move(s));
        // A GPU opened by two ranks (they saw the same GPUs, fewer than ranks): the first only.
        std::set<std::string> seen;
        std::erase_if(a.sessions, [&](const std::shared_ptr<gpu_session>& s) {
            const bool again = !seen.insert(s->device().uuid).second;
            if (again)
                fmt::print(stderr, "MPI: {} was opened by two ranks; measuring on it once\n",
                           s->device().uuid);
            return again;
        });
        if (a.sessions.empty())
            throw env_error(
                fmt::format("none of the {} MPI ranks has a GPU to measure on", link->size()));
        if (!a.quiet)
            fmt::print(
                stderr, "MPI: {} ranks, {} GPUs, ready in {:.2f} s\n", link->size(),
                a.sessions.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return run_tune(std::move(a));
}

// Tunes each problem size an application captured (HONE_CAPTURE) for this config's kernel, one
// run identity per size, into the same database; captured input buffers become `init: file`.
int run_captures(const tune_args& a) {
    namespace fs = std::filesystem;
    const spec base = load_spec(a.config);
    const std::string config_name = fs::path(a.config).filename().string();
    std::vector<runtime::capture_record> mine;
    std::set<std::string> others;
    for (auto& c : runtime::read_captures(a.captures)) {
        if (c.kernel == base.kernel.name && fs::path(c.config).filename().string() == config_name)
            mine.push_back(std::move(c));
        else
            others.insert(
                fmt::format("{} of {}", c.kernel, fs::path(c.config).filename().string()));
    }
    if (mine.empty())
        throw input_error(
            {a.captures, 0, 0},
            fmt::format("no capture of {} from {}{}", base.kernel.name, config_name,
                        others.empty() ? " (the folder has no capture file)"
                                       : fmt::format(" (it has {})", fmt::join(others, ", "))));
    // Every capture is checked before anything is tuned.
    std::vector<spec> specs;
    std::vector<std::map<std::string, int64_t>> all_sizes;
    for (const runtime::capture_record& c : mine) {
        std::map<std::string, int64_t> sizes;
        for (const auto& [name, v] : c.problem) {
            if (std::none_of(base.problem.begin(), base.problem.end(),
                             [&](const problem_size& p) { return p.name == name; }))
                throw input_error(
                    {c.path, 0, 0},
                    fmt::format("the captured problem size '{}' is not one of {}'s sizes", name,
                                config_name));
            sizes[name] = v;
        }
        for (const auto& p : base.problem)
            if (!sizes.count(p.name))
                throw input_error({c.path, 0, 0},
                                  fmt::format("the capture does not give {}'s problem size '{}'",
                                              config_name, p.name));
        spec s = load_spec(a.config, sizes);
        for (const auto& in : c.inputs) {
            buffer_spec* b = nullptr;
            for (auto& x : s.buffers)
                if (x.name == in.buffer) b = &x;
            if (!b || b->role == buffer_role::out)
                throw input_error(
                    {c.path, 0, 0},
                    fmt::format("captured input '{}' is not an in or inout buffer of {}", in.buffer,
                                config_name));
            b->init = init_spec{};
            b->init.kind = init_kind::file;
            b->init.path = fs::absolute(in.file).string();
        }
        specs.push_back(std::move(s));
        all_sizes.push_back(std::move(sizes));
    }
    int rc = 0;
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    // With --shard, the sizes are split (by their position in the folder's order), each tuned
    // whole.
    tune_args whole = a;
    whole.shard_of = {};
    for (std::size_t i = 0; i < mine.size(); ++i) {
        if (!a.shard_of.owns(i)) continue;
        const runtime::capture_record& c = mine[i];
        if (!a.json)
            fmt::print("== capture {}/{}: {} ({})\n", i + 1, mine.size(), runtime::capture_stem(c),
                       c.inputs.empty() ? "generated inputs" : "captured inputs");
        nlohmann::ordered_json j;
        const int one = tune_spec(whole, std::move(specs[i]), all_sizes[i], a.json ? &j : nullptr);
        if (a.json) all.push_back(std::move(j));
        if (one == 130) {
            rc = 130;
            break;
        }
        rc = std::max(rc, one);
    }
    if (a.json) std::cout << all.dump(2) << "\n";
    return rc;
}

}  // namespace

void register_tune(CLI::App& app, std::function<int()>& action) {
    auto a = std::make_shared<tune_args>();
    CLI::App* c =
        app.add_subcommand("tune", "Tune a config on a GPU: compile, verify, time, store");
    c->footer(
        R"(Every configuration is compiled (NVRTC, ahead of the GPU in worker processes, cached),
run in a supervised worker process (a kernel that faults or hangs costs one configuration),
checked against the verify reference, and timed until the 95% CI of its median is within
timing.rel_precision. Samples are timed by each launch's gpu__time_duration from CUPTI's range
profiler (the figure Nsight Compute reports) where the GPU's counters can be read, else by
CUDA events around the launches (timer auto; --timer profiler, events or cupti, CUPTI's kernel
timestamps, to choose: timing.timer). Results are written to the database
as they finish; running the same command again resumes, skipping what is stored, unless the
kernel's source, a file it includes, the options or the tools changed: then it measures again
and says why. Ctrl-C stops cleanly.

Columns of the table: median time of one launch with its 95% confidence interval [low, high];
n samples; sample = how a sample was taken; timer = what timed it (profiler, cupti or events); GB/s and
GFLOP/s from metrics.bytes/flops at the median; regs per thread; spill = bytes spilled to
local memory; smem = static + dynamic shared memory per block; occ = achieved-occupancy bound
(active warps / max warps per SM); "tie" = CI overlaps the best's. Rows are ranked by
metrics.objective.

Examples:
  hone tune configs/vector_add.yaml
  hone tune configs/vector_add.yaml --set N=65536 --output small.db
  hone tune configs/sgemm.yaml --max-evals 50 --json > sgemm.json
  hone tune configs/vector_add.yaml --timer events     # as NVBench times
  hone tune configs/vector_add.yaml --captures hone-captures   the sizes an application used
  hone tune configs/sgemm.yaml --devices all              # every GPU of this machine
  hone tune configs/vector_add.yaml --set N=65536,1048576,16777216 --devices 0,1

--devices all (or 0,1,3, or search.devices in the config) measures on several GPUs of one
model at once: each configuration goes to whichever GPU is free; a GPU whose worker cannot be
started again is dropped and the run goes on with the others. Every result names the GPU
that measured it. After the search, the best configurations are measured again, interleaved,
on the first GPU: that final word names the winner and its ties, and how far the GPUs read
the same configuration apart (docs/multi-gpu.md). A list of sizes (--set N=1,2,3, or a list
in the config's problem section) tunes each size as a run of its own, into one database; on
several GPUs the sizes run side by side, and GPUs that have no size left join the runs still
searching.

--captures DIR tunes every problem size that an application captured for this config's kernel
(run it with HONE_CAPTURE=<kernel glob>, see docs/embedding.md): one run per size, into the
same database, with the captured input buffers as the inputs (init: file) when
HONE_CAPTURE_INPUTS=1 copied them. Then `hone export DB --wisdom FILE` gives the application
its wisdom.

The search section of the config picks the strategy (exhaustive, random, auto, annealing,
genetic, local_search, diff_evo, bayes_opt, ...; `hone replay --help` lists them with their
options). With a strategy other than exhaustive, the progress line counts up to the budget.)");
    c->add_option("config", a->config, "Search config (YAML)")
        ->required()
        ->check(CLI::ExistingFile);
    c->add_option("--set", a->sets,
                  "Override a problem size: NAME=VALUE, or NAME=V1,V2,... for one run per value "
                  "(repeatable)");
    CLI::Option* device = c->add_option("--device", a->device, "GPU ordinal (see `hone devices`)")
                              ->check(whole_number(0, std::numeric_limits<int>::max()));
    CLI::Option* devices =
        c->add_option("--devices", a->devices,
                      "GPUs of one model to measure on at once: all, or ordinals 0,1,3 (the first "
                      "gives the final word; docs/multi-gpu.md)")
            ->excludes(device);
    c->add_flag("--per-model", a->per_model,
                "With GPUs of several models: one run per model (else an error)");
    c->add_option("-o,--output", a->output, "Results database (default: the config's `output`)");
    c->add_option("-j,--jobs", a->jobs, "Compile worker processes (default: one per core)")
        ->check(whole_number(0, std::numeric_limits<int>::max()));
    c->add_option("--cache-dir", a->cache_dir,
                  "Compile cache (default: $HONE_CACHE_DIR or ~/.cache/hone)");
    c->add_flag("--no-cache", a->no_cache, "Compile everything, use no cache");
    c->add_option("--only", a->only, "Evaluate one configuration, by key (as printed)");
    c->add_option(
         "--max-evals", a->max_evals,
         "Evaluations in all, stored ones of the run included (overrides search.max_evals; "
         "0 = no limit)")
        ->check(whole_number(0, std::numeric_limits<int64_t>::max()));
    c->add_option("--time-limit", a->time_limit, "Stop after S seconds")->check(seconds_number());
    c->add_option("--strategy", a->strategy,
                  "Override search.strategy (its options too): auto, random, genetic, ... "
                  "(`hone replay --help` lists them with their options)");
    c->add_option("-O,--option", a->strategy_options,
                  "A strategy option NAME=VALUE, as in the search section (repeatable)");
    c->add_option("--l2-flush", a->l2_flush, "Override timing.l2_flush")
        ->check(CLI::IsMember({"on", "off"}));
    c->add_option("--timer", a->timer,
                  "Override timing.timer: auto (profiler where the counters can be read, "
                  "else events), profiler (gpu__time_duration, as Nsight Compute), cupti "
                  "(kernel timestamps), events")
        ->check(CLI::IsMember({"auto", "profiler", "cupti", "events"}));
    c->add_flag("--fresh", a->fresh, "Forget this run's stored results first");
    c->add_flag("--retry-failed", a->retry_failed,
                "Re-run configurations that faulted or timed out");
    c->add_flag("--in-process", a->in_process,
                "GPU work in this process: faster start, but a faulting kernel ends the run");
    CLI::Option* dry = c->add_flag("--dry-run", a->dry_run,
                                   "Compile every configuration into the cache, measure nothing");
    c->add_option("--captures", a->captures,
                  "Tune each problem size captured in this folder (HONE_CAPTURE), with captured "
                  "inputs when present")
        ->excludes(dry)
        ->excludes(c->get_option("--set"))
        ->excludes(c->get_option("--only"));
    c->add_option("--arch", a->arch, "With --dry-run: target architecture (default: the GPU's)")
        ->needs(dry);
    c->add_option("--top", a->top, "Rows of the best table (0 = all)")
        ->check(whole_number(0, std::numeric_limits<int64_t>::max()));
    c->add_option("--shard", a->shard,
                  "This process's part I/N of the run (0 <= I < N): the configurations of an "
                  "exhaustive or random run, or with --captures the sizes (docs/distributed.md)")
        ->excludes(dry)
        ->excludes(c->get_option("--only"));
    c->add_flag("--mpi", a->mpi,
                "Spread the run over MPI ranks (detected under mpirun or srun): rank 0 tunes, "
                "every rank measures on its GPUs (docs/distributed.md)");
    c->add_option("--keep-workers", a->keep_workers,
                  "Keep the GPU workers for S idle seconds after the run, for the next command "
                  "on these GPUs to reuse (no CUDA or profiler start; they hold GPU memory "
                  "meanwhile; `hone workers --stop` ends them; default: $HONE_KEEP_WORKERS or 0)")
        ->check(whole_number(0, 7 * 24 * 3600));
    c->add_flag("--json", a->json, "Print machine-readable results");
    c->add_flag("-q,--quiet", a->quiet, "No progress line");
    c->callback([a, &action, device, devices] {
        a->device_given = device->count() > 0;
        a->devices_given = devices->count() > 0;
        // Before any thread: the GPU workers' commands read it (worker_session.hpp).
        if (a->keep_workers >= 0)
            ::setenv("HONE_KEEP_WORKERS", std::to_string(a->keep_workers).c_str(), 1);
        action = [a] { return run_tune(*a); };
    });
}

}  // namespace hone::cli
