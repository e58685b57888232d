// How the tuning macros (every problem size and parameter, NAME=VALUE) reach a kernel's source:
// defined in its text, not as -D options, and kept out of the system headers it includes.
// NVRTC's own builtin header and headers such as CCCL's (cub, thrust, cuda/std) and cuRAND's
// name template parameters T, N or B. As options, a parameter T would turn `template <typename
// T>` into `template <typename 128>` in the builtin header, which every compile reads first, and
// a problem size N would do the same to cub's `template <int N>`: every configuration would fail
// to compile.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace hone {

// `source` with each `#include <...>` or `"..."` line whose header is not found in `own_dirs` (the
// kernel's include folders, its source's folder: headers that may read the macros) preceded by
// `#undef` of each of `macros` (name, value) and followed by its `#define` again; `#line`
// directives keep NVRTC's line numbers and file name (`source_name`) those of the file. The source
// as it is when there is nothing to shield.
std::string shield_system_includes(const std::string& source, const std::string& source_name,
                                   const std::vector<std::pair<std::string, std::string>>& macros,
                                   const std::vector<std::string>& own_dirs);

// The source NVRTC compiles: `#define` of each macro, `#line 1` back to the file, then the
// source with its system includes shielded as above.
std::string source_with_macros(const std::string& source, const std::string& source_name,
                               const std::vector<std::pair<std::string, std::string>>& macros,
                               const std::vector<std::string>& own_dirs);

}  // namespace hone
