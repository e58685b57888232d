// Which names an expression may use where, and checks run on every expression at load time.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "hone/spec.hpp"
#include "spec/yaml_read.hpp"

namespace hone::spec_detail {

enum uses : int { use_problem = 1, use_params = 2, use_device = 4, use_all = 7 };

// Refuses names outside `allowed` (using a parameter where none may be used gets a message
// naming `what`). When every name is a problem size, evaluates `e` once so that division by
// zero, overflow and type errors surface at load time, and returns the value.
std::optional<value> check_expr(const spec& s, const expression& e, int allowed,
                                std::string_view what);

// Problem sizes and parameters become expression names and -D macros: they must be C
// identifiers, distinct from each other and from device attributes.
void check_new_name(const doc& d, const YAML::Node& key, const std::string& name, const spec& s);

bool is_identifier(std::string_view s);

// For a key that takes a literal choice or an expression of the parameters (memory, fast_math):
// a bare word that is neither a choice (the caller has checked those) nor a name the config
// defines is refused as a wrong value, not as an unknown name of an expression.
void check_choice_word(const doc& d, const YAML::Node& n, const spec& s, std::string_view what,
                       std::string_view choices);

// `{NAME}` placeholders of a templated kernel name must name something an expression could.
void check_placeholders(const doc& d, const YAML::Node& n, const std::string& name, const spec& s);
// The kernel's base name (before '<', after any '::') must occur in the source as a word.
void check_kernel_in_source(const doc& d, const YAML::Node& n, const std::string& name,
                            const spec& s);

}  // namespace hone::spec_detail
