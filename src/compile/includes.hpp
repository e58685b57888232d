// The #include lines of a source, as the compile cache and the macro shield read them: a
// line-based scan (conditionals are not evaluated), and where a header is found.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hone {

struct include_ref {
    std::string name;
    bool quoted = true;  // "name" (else <name>)
};

// The header a line includes (`#include "name"` or `#include <name>`, blanks allowed), or
// nullopt for any other line.
std::optional<include_ref> include_of(std::string_view line);

// Where the header is found: beside the including file (`from_dir`, for "name" only), else in
// the first of `dirs` that holds it; nullopt when none does.
std::optional<std::filesystem::path> resolve_include(const include_ref& ref,
                                                     const std::filesystem::path& from_dir,
                                                     const std::vector<std::string>& dirs);

}  // namespace hone
