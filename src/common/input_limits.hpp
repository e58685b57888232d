// Limits on what hone reads from files it is given, so that a hostile or mistaken input (an
// endless device, a gzip bomb, a value nested 100,000 deep) is refused with a message instead of
// exhausting memory or the stack. docs/limits.md describes them and how to raise them.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace hone {

// Bytes a data file (cache, T4 results, wisdom) may hold, read or inflated: 1 GiB, or
// HONE_MAX_INPUT_MIB mebibytes when that variable is set (env_error when it is not a positive
// integer).
std::size_t max_input_bytes();
// The same for text written by hand (configs, T1 files): 64 MiB, as for kernel sources, or
// HONE_MAX_INPUT_MIB when set.
std::size_t max_text_input_bytes();

// "larger than the input limit of 1024 MiB (set HONE_MAX_INPUT_MIB to raise it)".
std::string input_limit_text(std::size_t limit, const char* what = "larger than");

// The whole file, read in chunks and refused (input_error naming the file) once it passes
// `limit` bytes: /dev/zero and /proc files report no size and never end. nullopt when the file
// cannot be opened (errno says why): each reader words that error its own way.
std::optional<std::string> read_file_capped(const std::string& path, std::size_t limit);

// Throws why a file named on the command line could not be opened: input_error (exit 2) when
// it is not there, env_error (exit 3) for anything else (permissions, I/O).
[[noreturn]] void throw_unreadable(const std::string& path, int error_number);

// JSON values nested deeper than this are refused before they are parsed: nlohmann's parser
// is iterative, but copying, printing and comparing a value recurse once per level.
inline constexpr int max_json_depth = 512;

// The offset of the first '[' or '{' nested deeper than `limit` in the JSON text (strings are
// skipped), or npos. Linear; meaningful for any text, valid JSON or not.
std::size_t json_too_deep(std::string_view text, int limit = max_json_depth);

}  // namespace hone
