// The cache key covers everything that determines the binary: the source, the text of every
// file it includes ("..." and <...> found in its folder or the -I dirs, recursively), the
// options, the kernel name and the NVRTC version (which also versions NVRTC's own headers).
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include "hone/compile.hpp"
#include "hone/digest.hpp"

namespace hone {
namespace {

namespace fs = std::filesystem;

struct include_ref {
    std::string name;
    bool quoted = true;  // "name" (else <name>)
};

std::string_view skip_blanks(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    return s;
}

// A line-based scan: conditionals are not evaluated, so a header under #if 0 still counts,
// which can only cause an extra compile, never a stale binary.
std::vector<include_ref> scan_includes(std::string_view text) {
    std::vector<include_ref> refs;
    while (!text.empty()) {
        const std::size_t eol = text.find('\n');
        std::string_view line = skip_blanks(text.substr(0, eol));
        text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
        if (!line.starts_with('#')) continue;
        line = skip_blanks(line.substr(1));
        if (!line.starts_with("include")) continue;
        line = skip_blanks(line.substr(7));
        if (line.empty() || (line.front() != '"' && line.front() != '<')) continue;
        const char close = line.front() == '"' ? '"' : '>';
        const std::size_t end = line.find(close, 1);
        if (end == std::string_view::npos) continue;
        refs.push_back({std::string(line.substr(1, end - 1)), close == '"'});
    }
    return refs;
}

std::optional<fs::path> resolve(const include_ref& ref, const fs::path& from_dir,
                                const std::vector<std::string>& dirs) {
    std::error_code ec;
    if (ref.quoted && fs::is_regular_file(from_dir / ref.name, ec)) return from_dir / ref.name;
    for (const auto& dir : dirs) {
        if (fs::is_regular_file(fs::path(dir) / ref.name, ec)) return fs::path(dir) / ref.name;
    }
    return std::nullopt;
}

std::optional<std::string> read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void add_includes(digest& d, std::string_view text, const fs::path& dir,
                  const std::vector<std::string>& dirs, std::set<fs::path>& seen) {
    for (const include_ref& ref : scan_includes(text)) {
        d.add(ref.name);
        const std::optional<fs::path> path = resolve(ref, dir, dirs);
        // Unresolved: one of NVRTC's built-in headers, covered by its version.
        if (!path) continue;
        std::error_code ec;
        const fs::path canonical = fs::weakly_canonical(*path, ec);
        if (!seen.insert(ec ? *path : canonical).second) continue;
        const std::optional<std::string> body = read_text(*path);
        d.add(body ? *body : "<unreadable>");
        if (body) add_includes(d, *body, path->parent_path(), dirs, seen);
    }
}

// The files that `text` includes, found as add_includes finds them, depth first, each once.
void collect_includes(std::string_view text, const fs::path& dir,
                      const std::vector<std::string>& dirs, std::set<fs::path>& seen,
                      std::vector<std::pair<std::string, std::string>>& out) {
    for (const include_ref& ref : scan_includes(text)) {
        const std::optional<fs::path> path = resolve(ref, dir, dirs);
        if (!path) continue;
        std::error_code ec;
        const fs::path canonical = fs::weakly_canonical(*path, ec);
        if (!seen.insert(ec ? *path : canonical).second) continue;
        const std::optional<std::string> body = read_text(*path);
        out.emplace_back(ref.name, body ? *body : "<unreadable>");
        if (body) collect_includes(*body, path->parent_path(), dirs, seen, out);
    }
}

}  // namespace

std::string kernel_source_hash(const spec& s) {
    std::vector<std::string> dirs = s.kernel.include_dirs;
    dirs.push_back(fs::path(s.kernel.source_path).parent_path().string());
    std::set<fs::path> seen;
    std::vector<std::pair<std::string, std::string>> files;
    collect_includes(s.kernel.source_text, fs::path(s.kernel.source_path).parent_path(), dirs, seen,
                     files);
    // A self-contained source keeps the hash stores have always recorded for it.
    if (files.empty()) return digest_hex(s.kernel.source_text);
    digest d;
    d.add("hone source 2").add(s.kernel.source_text);
    for (const auto& [name, body] : files) d.add(name).add(body);
    return d.hex();
}

std::string compile_request::cache_key() const {
    digest d;
    d.add("hone compile key 1").add(nvrtc_version());
    d.add(source_name).add(source).add(name_expression).add(plain_name);
    d.add(std::to_string(options.size()));
    for (const auto& o : options) d.add(o);
    std::set<fs::path> seen;
    add_includes(d, source, fs::path(source_name).parent_path(), include_dirs, seen);
    return d.hex();
}

}  // namespace hone
