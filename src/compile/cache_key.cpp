// The cache key covers everything that determines the binary: the source, the text of every
// file it includes ("..." and <...> found in its folder or the -I dirs, recursively), the
// options, the kernel name and the NVRTC version (which also versions NVRTC's own headers and
// the toolkit's, whose folders compile_nvrtc adds: their hundreds of files are not read), and
// the stand-ins for standard headers it gives NVRTC.
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include "common/digest.hpp"
#include "compile/compile.hpp"
#include "compile/includes.hpp"
#include "compile/std_shims.hpp"

namespace hone {
namespace {

namespace fs = std::filesystem;

// Conditionals are not evaluated, so a header under #if 0 still counts, which can only cause
// an extra compile, never a stale binary.
std::vector<include_ref> scan_includes(std::string_view text) {
    std::vector<include_ref> refs;
    while (!text.empty()) {
        const std::size_t eol = text.find('\n');
        if (auto ref = include_of(text.substr(0, eol))) refs.push_back(std::move(*ref));
        text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    }
    return refs;
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
        const std::optional<fs::path> path = resolve_include(ref, dir, dirs);
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

}  // namespace

std::string source_digest(std::string_view source, const std::string& source_name,
                          const std::vector<std::string>& include_dirs) {
    digest d;
    d.add("hone source digest 1").add(source);
    std::set<fs::path> seen;
    add_includes(d, source, fs::path(source_name).parent_path(), include_dirs, seen);
    return d.hex();
}

std::string compile_request::cache_key() const {
    digest d;
    d.add("hone compile key 2").add(nvrtc_version()).add(std_shims_version());
    d.add(source_name).add(source).add(name_expression).add(plain_name);
    d.add(std::to_string(options.size()));
    for (const auto& o : options) d.add(o);
    std::set<fs::path> seen;
    add_includes(d, source, fs::path(source_name).parent_path(), include_dirs, seen);
    return d.hex();
}

}  // namespace hone
