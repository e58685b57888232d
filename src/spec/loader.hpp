// The section loaders of load_spec, called in dependency order (problem sizes before
// parameters, parameters before anything whose expressions may use them).
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "hone/spec.hpp"
#include "spec/yaml_read.hpp"

namespace hone::spec_detail {

// Sections that may be absent take a null entry.
void load_problem(const doc& d, const entry* e, const std::map<std::string, int64_t>& overrides,
                  spec& s);
void load_params(const doc& d, const entry* e, spec& s);
void load_constraints(const doc& d, const entry* e, spec& s);
void load_kernel(const doc& d, const entry& e, spec& s);
void load_buffers(const doc& d, const entry* e, spec& s);
void load_args(const doc& d, const entry& e, spec& s);
void load_launch(const doc& d, const entry& e, spec& s);
void load_metrics(const doc& d, const entry* e, spec& s);
void load_verify(const doc& d, const entry* e, spec& s);
void load_timing(const doc& d, const entry* e, spec& s);
void load_search(const doc& d, const entry* e, spec& s);

// A generator map ({range: ...}, {pow2: ...}, {warps: ...}, {values: ...}) expanded.
std::vector<value> expand_generator(const doc& d, const YAML::Node& n, const std::string& param);

// Launch dimensions: 1 to 3 expressions (a lone scalar is one).
std::vector<expression> read_dims(const doc& d, const YAML::Node& n, const std::string& what,
                                  const spec& s);
init_spec read_init(const doc& d, const YAML::Node& n, const std::string& section);

// `path` made absolute against the YAML file's folder.
std::string resolve_path(const doc& d, const std::string& path);
// An existing regular file, or an input_error at `n` saying what was looked for.
std::string require_file(const doc& d, const YAML::Node& n, const std::string& path,
                         std::string_view what);

}  // namespace hone::spec_detail
