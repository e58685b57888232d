// T1, the tuning-input format of the autotuning community's benchmark hub (BAT, Kernel Tuner,
// KTT): parameters whose values are Python list expressions, constraints in Python syntax, the
// kernel file and name, launch geometry and arguments. Translated to a hone config.
#pragma once
#include <string>
#include <vector>

#include "hone/value.hpp"

namespace hone {

struct t1_translation {
    std::string yaml;  // the config, with a NOTE comment where something did not translate
    std::vector<std::string>
        notes;  // the same notes, for the user: what was not (or not exactly) translated
    std::string benchmark;  // General.BenchmarkName
    std::size_t params = 0, constraints = 0, constraints_translated = 0;
};

// Translates the T1 document `json_text`, read from `t1_path`, into a config to be written at
// `yaml_path` (the kernel file is referred to relative to it). Throws input_error for text that
// is not JSON, JSON that is not T1, a T1 file missing a required field, or a Values expression
// that cannot be evaluated; the translated config is loaded once before it is returned, so that
// it is known to load (without its kernel source).
t1_translation translate_t1(const std::string& json_text, const std::string& t1_path,
                            const std::string& yaml_path);

// A T1 document's top-level members; what a reader of results says when it is given one.
inline bool is_t1_members(bool has_configuration_space, bool has_kernel_specification) {
    return has_configuration_space && has_kernel_specification;
}
inline constexpr const char* t1_not_results =
    "a T1 tuning-input file (parameters and kernel, no measured results): `hone import-t1 FILE "
    "-o CONFIG.yaml` writes a config from it, and `hone tune CONFIG.yaml` measures it";

}  // namespace hone
