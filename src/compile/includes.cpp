#include "compile/includes.hpp"

namespace hone {
namespace {

std::string_view skip_blanks(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    return s;
}

}  // namespace

std::optional<include_ref> include_of(std::string_view line) {
    line = skip_blanks(line);
    if (!line.starts_with('#')) return std::nullopt;
    line = skip_blanks(line.substr(1));
    if (!line.starts_with("include")) return std::nullopt;
    line = skip_blanks(line.substr(7));
    if (line.empty() || (line.front() != '"' && line.front() != '<')) return std::nullopt;
    const char close = line.front() == '"' ? '"' : '>';
    const std::size_t end = line.find(close, 1);
    if (end == std::string_view::npos) return std::nullopt;
    return include_ref{std::string(line.substr(1, end - 1)), close == '"'};
}

std::optional<std::filesystem::path> resolve_include(const include_ref& ref,
                                                     const std::filesystem::path& from_dir,
                                                     const std::vector<std::string>& dirs) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (ref.quoted && fs::is_regular_file(from_dir / ref.name, ec)) return from_dir / ref.name;
    for (const auto& dir : dirs)
        if (fs::is_regular_file(fs::path(dir) / ref.name, ec)) return fs::path(dir) / ref.name;
    return std::nullopt;
}

}  // namespace hone
