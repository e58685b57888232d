#include "spec/names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

namespace hone::spec_detail {
namespace {

std::vector<std::string> allowed_names(const spec& s, int allowed) {
    std::vector<std::string> out;
    if (allowed & use_problem)
        for (const auto& p : s.problem) out.push_back(p.name);
    if (allowed & use_params)
        for (const auto& p : s.params) out.push_back(p.name);
    if (allowed & use_device)
        out.insert(out.end(), device_attribute_names().begin(), device_attribute_names().end());
    return out;
}

bool is_word_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool contains_word(std::string_view text, std::string_view word) {
    for (std::size_t at = text.find(word); at != std::string_view::npos;
         at = text.find(word, at + 1)) {
        const bool starts = at == 0 || !is_word_char(text[at - 1]);
        const bool ends = at + word.size() == text.size() || !is_word_char(text[at + word.size()]);
        if (starts && ends) return true;
    }
    return false;
}

}  // namespace

std::optional<value> check_expr(const spec& s, const expression& e, int allowed,
                                std::string_view what) {
    const std::vector<std::string> known = allowed_names(s, allowed);
    bool only_problem = true;
    for (const auto& name : e.names()) {
        if (std::find(known.begin(), known.end(), name) != known.end()) {
            only_problem = only_problem && s.problem_bindings().count(name) > 0;
            continue;
        }
        if (!(allowed & use_params) && s.find_param(name))
            throw input_error(e.name_pos(name),
                              fmt::format("{} cannot use the parameter '{}': they are "
                                          "fixed for all configurations",
                                          what, name));
        throw input_error(e.name_pos(name), fmt::format("unknown name '{}' (known: {}){}", name,
                                                        known.empty() ? "none" : join(known),
                                                        suggestion(name, known)));
    }
    if (!only_problem) return std::nullopt;
    return e.eval(s.problem_bindings());
}

bool is_identifier(std::string_view s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.end(), is_word_char) && s != "true" && s != "false";
}

void check_choice_word(const doc& d, const YAML::Node& n, const spec& s, std::string_view what,
                       std::string_view choices) {
    if (!n.IsScalar() || !is_identifier(n.Scalar())) return;
    const std::vector<std::string> known = allowed_names(s, use_all);
    if (std::find(known.begin(), known.end(), n.Scalar()) != known.end()) return;
    fail(d, n,
         fmt::format("{} is '{}': expected {}, or an expression of the parameters that gives one "
                     "(such as a parameter of those values)",
                     what, n.Scalar(), choices));
}

void check_new_name(const doc& d, const YAML::Node& key, const std::string& name, const spec& s) {
    if (!is_identifier(name))
        fail(d, key,
             fmt::format("'{}' is not a valid name: expected letters, digits and '_', not "
                         "starting with a digit (nor true/false)",
                         name));
    // Parameters and sizes reach the kernel as macros of their names: one named like a keyword
    // or one of CUDA's built-in variables would replace it in the whole source.
    // clang-format off
    static const std::set<std::string_view> reserved{
        "alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char", "class",
        "const", "constexpr", "const_cast", "continue", "decltype", "default", "delete", "do",
        "double", "dynamic_cast", "else", "enum", "explicit", "extern", "float", "for", "friend",
        "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept",
        "nullptr", "operator", "private", "protected", "public", "register", "reinterpret_cast",
        "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
        "switch", "template", "this", "throw", "try", "typedef", "typeid", "typename", "union",
        "unsigned", "using", "virtual", "void", "volatile", "while", "threadIdx", "blockIdx",
        "blockDim", "gridDim", "warpSize"};
    // clang-format on
    if (reserved.count(name))
        fail(d, key,
             fmt::format("'{}' is a C++ keyword or CUDA built-in: it reaches the kernel as a "
                         "macro of that name, which would replace it everywhere; choose "
                         "another name",
                         name));
    const auto& device = device_attribute_names();
    if (std::find(device.begin(), device.end(), name) != device.end())
        fail(d, key, fmt::format("'{}' is a device attribute name; choose another name", name));
    for (const auto& p : s.problem)
        if (p.name == name)
            fail(d, key, fmt::format("'{}' is already a problem size (line {})", name, p.pos.line));
    for (const auto& p : s.params)
        if (p.name == name)
            fail(d, key,
                 fmt::format("duplicate parameter '{}' (first at line {})", name, p.pos.line));
}

void check_placeholders(const doc& d, const YAML::Node& n, const std::string& name, const spec& s) {
    const std::vector<std::string> known = allowed_names(s, use_all);
    for (std::size_t open = name.find('{'); open != std::string::npos;
         open = name.find('{', open + 1)) {
        const std::size_t close = name.find('}', open);
        if (close == std::string::npos)
            fail(d, n, fmt::format("'{{' without '}}' in kernel name '{}'", name));
        const std::string p = name.substr(open + 1, close - open - 1);
        if (std::find(known.begin(), known.end(), p) == known.end())
            fail(d, n,
                 fmt::format("'{{{}}}' in kernel name '{}' names no parameter (known: {}){}", p,
                             name, join(allowed_names(s, use_params)), suggestion(p, known)));
    }
}

namespace {

// The names of the source's __global__ functions: the identifier before the first '(' after
// each `__global__` (a text scan: enough for a suggestion).
std::vector<std::string> global_function_names(std::string_view text) {
    std::vector<std::string> out;
    for (std::size_t at = text.find("__global__"); at != std::string_view::npos;
         at = text.find("__global__", at + 1)) {
        const std::size_t paren = text.find('(', at);
        if (paren == std::string_view::npos) break;
        std::size_t end = paren;
        while (end > at && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
        std::size_t begin = end;
        while (begin > at && (std::isalnum(static_cast<unsigned char>(text[begin - 1])) ||
                              text[begin - 1] == '_'))
            --begin;
        if (begin < end) out.emplace_back(text.substr(begin, end - begin));
    }
    return out;
}

}  // namespace

void check_kernel_in_source(const doc& d, const YAML::Node& n, const std::string& name,
                            const spec& s) {
    std::string base = name.substr(0, name.find('<'));
    base.erase(std::remove(base.begin(), base.end(), ' '), base.end());
    if (const std::size_t colons = base.rfind("::"); colons != std::string::npos)
        base.erase(0, colons + 2);
    if (!is_identifier(base))
        fail(d, n, fmt::format("kernel name '{}': expected an identifier before any '<'", name));
    if (!contains_word(s.kernel.source_text, base))
        fail(d, n,
             fmt::format("kernel '{}' not found in {}{}", base, s.kernel.source_path,
                         suggestion(base, global_function_names(s.kernel.source_text))));
}

}  // namespace hone::spec_detail
