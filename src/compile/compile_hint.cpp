#include "compile/compile_hint.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <regex>
#include <set>

namespace hone {
namespace {

// The names declared in the source's template parameter lists: the last identifier of each
// comma-separated item of `template <...>` (nested angle brackets kept whole).
std::set<std::string> template_parameter_names(const std::string& source) {
    std::set<std::string> out;
    static const std::regex head(R"(\btemplate\s*<)");
    static const std::regex ident(R"([A-Za-z_]\w*)");
    for (auto it = std::sregex_iterator(source.begin(), source.end(), head);
         it != std::sregex_iterator(); ++it) {
        std::size_t i = static_cast<std::size_t>(it->position() + it->length());
        int depth = 1;
        std::string item;
        auto flush = [&] {
            // "int BLOCK", "typename T = float", "int N = 4": the name before any default.
            const std::string decl = item.substr(0, item.find('='));
            std::string last;
            for (auto w = std::sregex_iterator(decl.begin(), decl.end(), ident);
                 w != std::sregex_iterator(); ++w)
                last = w->str();
            if (!last.empty()) out.insert(last);
            item.clear();
        };
        for (; i < source.size() && depth > 0; ++i) {
            const char c = source[i];
            if (c == '<') ++depth;
            if (c == '>') --depth;
            if (depth == 0 || (depth == 1 && c == ',')) {
                flush();
                continue;
            }
            item += c;
        }
    }
    return out;
}

}  // namespace

std::string compile_hint(const spec& s, std::string_view log) {
    // NVRTC's words when a macro's value stands where a template parameter's name should be
    // ("template <int 256>"), and where the template is then used.
    if (log.find("expected a \",\" or \">\"") == std::string_view::npos &&
        log.find("expected an identifier") == std::string_view::npos)
        return "";
    const std::set<std::string> names = template_parameter_names(s.kernel.source_text);
    std::vector<std::string> clashes;
    for (const auto& p : s.params)
        if (p.define && names.count(p.name)) clashes.push_back(p.name);
    if (clashes.empty()) return "";
    return fmt::format(
        "hint: the kernel's template parameter{} {} share{} the name of a tuning parameter, "
        "which is also passed as a -D macro and replaces that name in the source: give the "
        "parameter `define: false` in params (or set kernel.define_placeholders: false when the "
        "kernel's name passes it as a {{PARAM}} placeholder)",
        clashes.size() > 1 ? "s" : "", fmt::join(clashes, ", "), clashes.size() > 1 ? "" : "s");
}

}  // namespace hone
