// Typed, positioned reading of YAML nodes: every error names file:line:column and what was
// expected. Nothing here lets a yaml-cpp conversion exception escape.
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "hone/error.hpp"
#include "hone/expr.hpp"
#include "hone/value.hpp"

namespace hone::spec_detail {

struct doc {
    std::string file;            // as given, for messages
    std::string dir;             // absolute folder of the file, for relative paths
    bool require_source = true;  // load_options::require_source
};

struct entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
};

using key_list = std::initializer_list<std::string_view>;

source_pos pos_of(const doc& d, const YAML::Node& n);
// Where an entry's value is; an empty value ("key:") has no mark of its own: use the key's.
source_pos value_pos(const doc& d, const entry& e);
[[noreturn]] void fail(const doc& d, const YAML::Node& n, const std::string& message);

// The entries of a map, in file order. Refuses non-maps, non-scalar and duplicate keys, and
// (when `allowed` is not empty) keys outside `allowed`, suggesting the closest.
std::vector<entry> read_map(const doc& d, const YAML::Node& n, std::string_view section,
                            key_list allowed = {});
const entry* find(const std::vector<entry>& entries, std::string_view key);
const entry& require(const doc& d, const YAML::Node& map, const std::vector<entry>& entries,
                     std::string_view key, std::string_view section);

std::vector<YAML::Node> read_list(const doc& d, const YAML::Node& n, std::string_view what);
std::string read_string(const doc& d, const YAML::Node& n, std::string_view what);
int64_t read_int(const doc& d, const YAML::Node& n);
double read_real(const doc& d, const YAML::Node& n);
bool read_bool(const doc& d, const YAML::Node& n);
// A parameter or reference value: plain scalars are typed (integer, real, boolean, else
// string); quoted scalars are strings.
value read_value(const doc& d, const YAML::Node& n);
// An expression held by a YAML integer, boolean or string.
expression read_expr(const doc& d, const YAML::Node& n);
// One of `choices`, or an error listing them.
std::string read_choice(const doc& d, const YAML::Node& n, key_list choices);

// "; did you mean 'block'?" when a candidate is close to `word`, else "".
std::string suggestion(std::string_view word, const std::vector<std::string>& candidates);
std::string join(const std::vector<std::string>& words);

// YAML indents with spaces; yaml-cpp's own messages about tabs are obscure.
void refuse_tabs(const std::string& text, const std::string& file);

}  // namespace hone::spec_detail
