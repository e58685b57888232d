// hone.tune: the CLI's `hone tune` as a call. The GIL is released while tuning; the progress
// and result callbacks take it back. Ctrl-C (SIGINT) and an exception in a callback stop the run
// cleanly through tune_options::stop: what was measured is stored, as in the CLI.
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <algorithm>
#include <csignal>
#include <optional>

#include "bindings.hpp"
#include "common/clock.hpp"
#include "hone/spec.hpp"
#include "hone/tuner.hpp"
#include "session.hpp"
#include "tune/diagnostics.hpp"

namespace hone::py {
namespace {

volatile std::sig_atomic_t* g_stop = nullptr;  // the running tune's flag, for the handler

extern "C" void on_interrupt(int) {
    if (g_stop) *g_stop = 1;
}

nb::dict state_to_py(const pipeline_state& st) {
    nb::dict d;
    d["done"] = st.done;
    d["total"] = st.total;
    d["failures"] = st.failures;
    d["measuring"] = st.measuring;
    d["compiled_ahead"] = st.compiled_ahead;
    d["compiling"] = st.compiling;
    d["elapsed_s"] = st.elapsed_s;
    d["eta_s"] = st.eta_s >= 0 ? nb::object(nb::float_(st.eta_s)) : nb::none();
    d["best"] = st.best ? nb::object(record_to_py(*st.best)) : nb::none();
    return d;
}

nb::dict identity_to_py(const run_identity& id) {
    nb::dict d;
    d["id"] = id.id();
    d["config"] = id.config_path;
    d["kernel"] = id.kernel_name;
    d["problem"] = id.problem;
    d["device"] = id.device_name;
    d["device_uuid"] = id.device_uuid;
    d["arch"] = id.arch;
    d["driver_version"] = id.driver_version;
    d["nvrtc_version"] = id.nvrtc_version;
    d["tool_version"] = id.tool_version;
    d["objective"] = id.objective;
    return d;
}

nb::dict time_to_py(const time_split& t) {
    nb::dict d;
    d["wall_s"] = t.wall_s;
    d["setup_s"] = t.setup_s;
    d["session_start_s"] = t.session_start_s;
    d["reference_compile_s"] = t.reference_compile_s;
    d["prepare_s"] = t.prepare_s;
    d["compile_wait_s"] = t.compile_wait_s;
    d["compile_cpu_s"] = t.compile_cpu_s;
    d["gpu_s"] = t.gpu_s;
    d["gpu_busy_s"] = t.gpu_busy_s;
    d["store_s"] = t.store_s;
    d["timer"] = t.prepare.timer;
    d["inputs_s"] = t.prepare.inputs_s;
    d["upload_s"] = t.prepare.upload_s;
    d["reference_run_s"] = t.prepare.reference_s;
    d["timer_s"] = t.prepare.timer_s;
    d["clock_s"] = t.prepare.clock_s;
    d["clock_mhz"] = t.prepare.clock_mhz;
    d["worker_s"] = t.worker_s;
    d["load_s"] = t.gpu_steps.load_s;
    d["verify_s"] = t.gpu_steps.verify_s;
    d["warmup_s"] = t.gpu_steps.warmup_s;
    d["samples_s"] = t.gpu_steps.samples_s;
    d["waits"] = t.gpu_steps.waits;
    d["gpu_span_s"] = t.gpu_span_s;
    d["final_word_s"] = t.final_word_s;
    return d;
}

// Runs a Python callback under the GIL; an exception in it, or a pending signal (Ctrl-C raises
// KeyboardInterrupt here), stops the run and is raised when tune returns.
struct callbacks {
    nb::object progress, result;
    volatile std::sig_atomic_t stop = 0;
    std::optional<nb::python_error> error;

    template <class F>
    void call(F&& f) {
        nb::gil_scoped_acquire gil;
        if (error) return;
        try {
            f();
            if (PyErr_CheckSignals() != 0) throw nb::python_error();
        } catch (nb::python_error& e) {
            error.emplace(std::move(e));
            stop = 1;
        }
    }
};

bool on_main_thread() {
    nb::module_ threading = nb::module_::import_("threading");
    return threading.attr("current_thread")().is(threading.attr("main_thread")());
}

nb::dict run_tune(const std::string& config, std::optional<std::string> text,
                  const std::map<std::string, int64_t>& sizes, int device, bool in_process,
                  bool fresh, bool retry_failed, int jobs, const std::string& cache_dir,
                  bool no_cache, const std::string& output, const std::string& only,
                  int64_t max_evals, double time_limit, const std::string& l2_flush,
                  const std::string& timer, bool keep, nb::object progress, nb::object on_result) {
    if (device < 0) throw_input("device: a GPU ordinal (0 or more), not " + std::to_string(device));
    if (jobs < 0) throw_input("jobs: 0 (one per core) or more, not " + std::to_string(jobs));
    if (max_evals < -1) throw_input("max_evals: 0 (no limit) or more");
    if (time_limit < 0 && time_limit != -1) throw_input("time_limit: seconds, 0 or more");
    if (!l2_flush.empty() && l2_flush != "on" && l2_flush != "off")
        throw_input("l2_flush: 'on' or 'off' (or True/False), not '" + l2_flush + "'");
    if (!timer.empty() && timer != "auto" && timer != "profiler" && timer != "cupti" &&
        timer != "events")
        throw_input("timer: auto, profiler, cupti or events, not '" + timer + "'");
    spec s = text ? load_spec_text(*text, config, sizes) : load_spec(config, sizes);
    if (l2_flush == "on") s.timing.l2_flush = true;
    if (l2_flush == "off") s.timing.l2_flush = false;
    if (!timer.empty()) s.timing.timer = timer;

    callbacks cb;
    cb.progress = progress;
    cb.result = on_result;
    tune_options opt;
    tune_diagnostics diag;
    opt.diagnostics = &diag;
    opt.device = device;
    opt.isolated = !in_process;
    opt.fresh = fresh;
    opt.retry_failed = retry_failed;
    opt.jobs = jobs;
    opt.cache_dir = cache_dir;
    opt.use_cache = !no_cache;
    opt.output = output;
    opt.only = only;
    opt.max_evals = max_evals;
    opt.time_limit_s = time_limit;
    opt.stop = &cb.stop;
    // Signals are checked in every progress callback (Python's own SIGINT handler then raises
    // KeyboardInterrupt); with no callback of the caller's, one that only checks them.
    opt.on_progress = [&cb](const pipeline_state& st) {
        cb.call([&] {
            if (!cb.progress.is_none()) cb.progress(state_to_py(st));
        });
    };
    if (!on_result.is_none())
        opt.on_result = [&cb](const eval_record& r) {
            cb.call([&] { cb.result(record_to_py(r)); });
        };

    // A SIGINT while the tuner waits between configurations also stops it, from any thread;
    // Python's handler is put back afterwards.
    const bool main = on_main_thread();
    struct sigaction old {};
    if (main) {
        struct sigaction sa {};
        sa.sa_handler = on_interrupt;
        sigemptyset(&sa.sa_mask);
        g_stop = &cb.stop;
        sigaction(SIGINT, &sa, &old);
    }
    std::optional<tune_result> r;
    std::exception_ptr failure;
    kept_lease lease;  // dropped unless the run ends well: a failed run's workers may be stuck
    const auto t0 = steady_clock::now();
    {
        nb::gil_scoped_release release;
        try {
            // Kept workers serve the main thread only: a worker dies with the thread that
            // started it, and another thread's call may run while the main thread's does.
            if (keep && !in_process && main) {
                lend(lease, device, jobs, cache_dir, !no_cache, std::max(60.0, s.timing.timeout_s));
                opt.session = lease.gpu;
                opt.pool = lease.pool;
            }
            r = tune(s, opt);
            lease.give_back();
        } catch (...) {
            failure = std::current_exception();
        }
    }
    const double call_s = seconds_since(t0);
    bool signalled = false;
    if (main) {
        sigaction(SIGINT, &old, nullptr);
        g_stop = nullptr;
        signalled = cb.stop && !cb.error;
    }
    if (cb.error) {
        nb::python_error e = std::move(*cb.error);
        cb.error.reset();
        e.restore();
        throw nb::python_error();
    }
    if (failure) std::rethrow_exception(failure);
    if (signalled) {
        PyErr_SetString(
            PyExc_KeyboardInterrupt,
            ("tuning interrupted; the results measured so far are stored in " + r->output).c_str());
        throw nb::python_error();
    }

    nb::dict d;
    d["config"] = config;
    d["kernel"] = s.kernel.name;
    d["output"] = r->output;
    d["identity"] = identity_to_py(r->identity);
    nb::list records;
    for (const auto& rec : r->records) records.append(record_to_py(rec));
    d["records"] = records;
    d["param_names"] = [&] {
        nb::list names;
        for (const auto& p : s.params) names.append(nb::str(p.name.c_str()));
        return names;
    }();
    d["resumed"] = r->resumed;
    d["evaluated"] = r->evaluated;
    d["compiled"] = r->compiled;
    d["cache_hits"] = r->cache_hits;
    d["interrupted"] = r->interrupted;
    d["remeasure_reason"] = r->remeasure_reason;
    nb::dict time = time_to_py(diag.time);
    time["call_s"] = call_s;  // lend and tune, as this call waited for them
    time["kept_start_s"] = lease.start_s;
    d["time"] = time;
    nb::dict kept;
    kept["used"] = bool(lease.gpu) || bool(lease.pool);
    kept["gpu_reused"] = lease.gpu_reused;
    kept["pool_reused"] = lease.pool_reused;
    kept["compile_workers_started"] =
        lease.pool ? lease.pool->counts().workers_started - lease.workers_before : 0;
    d["kept"] = kept;
    d["device"] = r->device.attrs.name;
    d["device_ordinal"] = r->device.ordinal;
    d["arch"] = r->device.attrs.arch();
    return d;
}

}  // namespace

void bind_tune(nb::module_& m) {
    m.def("tune", &run_tune, nb::arg("config"), nb::arg("text").none(), nb::arg("sizes"),
          nb::arg("device"), nb::arg("in_process"), nb::arg("fresh"), nb::arg("retry_failed"),
          nb::arg("jobs"), nb::arg("cache_dir"), nb::arg("no_cache"), nb::arg("output"),
          nb::arg("only"), nb::arg("max_evals"), nb::arg("time_limit"), nb::arg("l2_flush"),
          nb::arg("timer"), nb::arg("keep"), nb::arg("progress").none(),
          nb::arg("on_result").none());
}

}  // namespace hone::py
