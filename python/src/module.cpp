// hone._hone: the compiled half of the Python package (python/hone is the other). C++ errors
// become hone.InputError (with file, line, column) and hone.EnvError; nothing aborts.
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "compile/compile_cache.hpp"
#include "hone/elem_type.hpp"
#include "hone/spec.hpp"
#include "session.hpp"

namespace hone::py {
namespace {

// Owned references, never released: static destructors run after the interpreter is gone.
PyObject* g_input_error = nullptr;
PyObject* g_env_error = nullptr;

void translate(const std::exception_ptr& p, void*) {
    try {
        std::rethrow_exception(p);
    } catch (const input_error& e) {
        raise_input_error(e);
    } catch (const env_error& e) {
        raise_env_error(e);
    }
}

// What a config declares, for the Python side (hone.compat, messages, tests).
nb::dict spec_info(const spec& s) {
    nb::dict d;
    d["path"] = s.path;
    d["kernel"] = s.kernel.name;
    d["output"] = s.output;
    nb::dict problem;
    for (const auto& p : s.problem) problem[p.name.c_str()] = p.value;
    d["problem"] = problem;
    nb::dict params;
    for (const auto& p : s.params) {
        nb::list values;
        for (const auto& v : p.values) values.append(to_py(v));
        params[p.name.c_str()] = values;
    }
    d["params"] = params;
    nb::list buffers;
    for (const auto& b : s.buffers) {
        nb::dict bd;
        bd["name"] = b.name;
        bd["type"] = elem_name(b.type);
        bd["count"] = b.count.text();
        bd["role"] = b.role == buffer_role::in    ? "in"
                     : b.role == buffer_role::out ? "out"
                                                  : "inout";
        buffers.append(bd);
    }
    d["buffers"] = buffers;
    nb::list args;
    for (const auto& a : s.args) {
        nb::dict ad;
        ad["buffer"] = a.is_buffer;
        ad["name"] = a.is_buffer ? a.buffer : a.scalar.text();
        ad["type"] = elem_name(a.type);
        args.append(ad);
    }
    d["args"] = args;
    d["strategy"] = s.search.strategy;
    return d;
}

nb::dict load_config(const std::string& path, const std::map<std::string, int64_t>& sizes) {
    return spec_info(load_spec(path, sizes));
}

nb::dict load_config_text(const std::string& text, const std::string& path) {
    return spec_info(load_spec_text(text, path));
}

}  // namespace

void set_error_types(nb::handle input, nb::handle env) {
    g_input_error = input.inc_ref().ptr();
    g_env_error = env.inc_ref().ptr();
}

void raise_input_error(const input_error& e) {
    const source_pos& p = e.pos();
    nb::handle cls = g_input_error ? g_input_error : PyExc_ValueError;
    // A position-less error (an argument of a call) reads as its message alone.
    const std::string text = p.file.empty() ? e.message() : std::string(e.what());
    nb::object err = cls(nb::str(text.c_str()), nb::str(p.file.c_str()), p.line, p.column,
                         nb::str(e.message().c_str()));
    PyErr_SetObject(cls.ptr(), err.ptr());
}

void raise_env_error(const env_error& e) {
    nb::handle cls = g_env_error ? g_env_error : PyExc_RuntimeError;
    PyErr_SetString(cls.ptr(), e.what());
}

void throw_input(const std::string& message) {
    throw input_error({}, message);
}

}  // namespace hone::py

NB_MODULE(_hone, m) {
    namespace py = hone::py;
    namespace nb = nanobind;
    m.doc() = "hone's C++ library (libhone) for the hone package";
    // A Kernel that another extension still holds when the interpreter ends (torch.library
    // keeps the functions of a custom op, and with them the Kernel they launch) is reported by
    // nanobind as a leak at exit: it is freed with the process, nothing is lost.
    nb::set_leak_warnings(false);
    nb::register_exception_translator(py::translate);
    m.def("_set_error_types", &py::set_error_types);
    m.def("load_config", &py::load_config, nb::arg("path"), nb::arg("sizes"),
          "Loads and checks a search config; returns what it declares.");
    m.def("load_config_text", &py::load_config_text, nb::arg("text"), nb::arg("path"));
    m.def("version", [] { return hone::tool_version(); });
    m.def("default_cache_dir", [] { return hone::compile_cache::default_dir(); });
    py::bind_tune(m);
    py::bind_session(m);
    py::bind_kernel(m);
}
