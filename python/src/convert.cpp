// libhone's values, records and selections as plain Python objects.
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "hone/status.hpp"

namespace hone::py {

nb::object to_py(const value& v) {
    if (const auto* i = std::get_if<int64_t>(&v)) return nb::int_(*i);
    if (const auto* d = std::get_if<double>(&v)) return nb::float_(*d);
    if (const auto* b = std::get_if<bool>(&v)) return nb::bool_(*b);
    return nb::str(std::get<std::string>(v).c_str());
}

value from_py(nb::handle h, const std::string& what) {
    if (PyBool_Check(h.ptr())) return value(h.ptr() == Py_True);
    if (PyLong_Check(h.ptr())) {
        int overflow = 0;
        const long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
        if (overflow) throw_input(what + ": an integer outside the 64-bit range");
        return value(static_cast<int64_t>(v));
    }
    if (PyFloat_Check(h.ptr())) return value(PyFloat_AsDouble(h.ptr()));
    if (PyUnicode_Check(h.ptr())) return value(std::string(nb::borrow<nb::str>(h).c_str()));
    throw_input(what + ": expected an int, float, bool or str, not " +
                std::string(nb::type_name(h.type()).c_str()));
}

nb::dict params_to_py(const std::vector<std::pair<std::string, value>>& params) {
    nb::dict d;
    for (const auto& [name, v] : params) d[name.c_str()] = to_py(v);
    return d;
}

nb::dict record_to_py(const eval_record& r) {
    nb::dict d;
    d["key"] = r.key;
    d["params"] = params_to_py(r.params);
    d["status"] = status_name(r.st);
    d["message"] = r.message;
    const bool timed = has_timing(r.st);
    d["time_us"] = timed ? nb::object(nb::float_(r.gpu.time_us.median)) : nb::none();
    d["ci_low_us"] = timed ? nb::object(nb::float_(r.gpu.time_us.ci_low)) : nb::none();
    d["ci_high_us"] = timed ? nb::object(nb::float_(r.gpu.time_us.ci_high)) : nb::none();
    d["mean_us"] = timed ? nb::object(nb::float_(r.gpu.time_us.mean)) : nb::none();
    d["samples"] = r.gpu.time_us.n;
    nb::list samples;
    for (double s : r.gpu.samples_us) samples.append(s);
    d["samples_us"] = samples;
    d["gbps"] = r.gbps;
    d["gflops"] = r.gflops;
    d["compile_ms"] = r.compile_ms;
    d["compile_cached"] = r.compile_cached;
    d["compile_log"] = r.compile_log;
    d["registers"] = r.gpu.num_regs >= 0 ? r.gpu.num_regs : r.resources.registers;
    d["spill_bytes"] = r.resources.spill_store_bytes + r.resources.spill_load_bytes;
    d["occupancy"] = r.gpu.occupancy;
    d["sample_mode"] = r.gpu.sample_mode;
    d["timer"] = r.gpu.timer;
    d["grid"] = nb::make_tuple(r.grid[0], r.grid[1], r.grid[2]);
    d["block"] = nb::make_tuple(r.block[0], r.block[1], r.block[2]);
    d["shared_bytes"] = r.dynamic_shared_bytes;
    nb::dict metrics;
    for (const auto& [k, v] : r.metrics) metrics[k.c_str()] = v;
    d["metrics"] = metrics;
    d["created_at"] = r.created_at;
    return d;
}

nb::dict selection_to_py(const kernel_selection& s) {
    nb::dict d;
    d["tier"] = tier_name(s.tier);
    d["kernel"] = s.kernel;
    d["params"] = params_to_py(s.params);
    d["key"] = s.key;
    d["problem"] = s.problem;
    d["device"] = s.device;
    d["from_tuned"] = s.from_tuned;
    if (s.from_tuned) {
        d["tuned_device"] = s.entry.device_name;
        d["tuned_problem"] = s.entry.problem_text();
        d["tuned_at"] = s.entry.tuned_at;
    }
    d["tuned_time_us"] = s.tuned_time_us;
    d["tuned_rank"] = s.tuned_rank;
    d["predicted_rel"] = s.predicted_rel;
    nb::list n;
    for (const auto& [p, w] : s.neighbours) n.append(nb::make_tuple(nb::str(p.c_str()), w));
    d["neighbours"] = n;
    nb::list notes;
    for (const auto& x : s.notes) notes.append(nb::str(x.c_str()));
    d["notes"] = notes;
    d["description"] = s.describe();
    return d;
}

}  // namespace hone::py
