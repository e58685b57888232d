// The pieces of hone._hone: each file binds one part of libhone's public interface.
#pragma once
#include <nanobind/nanobind.h>

#include <string>
#include <utility>
#include <vector>

#include "hone/error.hpp"
#include "hone/kernel.hpp"
#include "hone/record.hpp"
#include "hone/value.hpp"

namespace hone::py {

namespace nb = nanobind;

// hone.InputError and hone.EnvError (defined in Python, handed over at import).
void set_error_types(nb::handle input, nb::handle env);
// Raises the Python exception for the C++ error being handled (in a catch block).
void raise_input_error(const input_error& e);
void raise_env_error(const env_error& e);
// An InputError without a position (an argument of a call).
[[noreturn]] void throw_input(const std::string& message);

nb::object to_py(const value& v);
value from_py(nb::handle h, const std::string& what);
nb::dict params_to_py(const std::vector<std::pair<std::string, value>>& params);
nb::dict record_to_py(const eval_record& r);
nb::dict selection_to_py(const kernel_selection& s);

void bind_tune(nb::module_& m);
void bind_kernel(nb::module_& m);

}  // namespace hone::py
