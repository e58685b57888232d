#include "compile/compile_hint.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <vector>

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

// The identifiers under NVRTC's carets: each error is printed as "file(line): error: ...", the
// source line as written (before macros), and a line with '^' under the token it stopped at.
// Only syntax errors ("expected ..."), which a macro's value standing for a name causes.
std::vector<std::string> names_at_carets(std::string_view log) {
    std::vector<std::string_view> lines;
    for (std::size_t at = 0; at < log.size();) {
        const std::size_t eol = std::min(log.find('\n', at), log.size());
        lines.push_back(log.substr(at, eol - at));
        at = eol + 1;
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i + 2 < lines.size(); ++i) {
        if (lines[i].find(": error: expected") == std::string_view::npos) continue;
        const std::string_view code = lines[i + 1], caret = lines[i + 2];
        const std::size_t col = caret.find('^');
        if (col == std::string_view::npos ||
            caret.find_first_not_of(" \t^") != std::string_view::npos || col >= code.size())
            continue;
        auto word = [&](std::size_t k) {
            const char c = code[k];
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        };
        if (!word(col)) continue;
        std::size_t b = col, e = col;
        while (b > 0 && word(b - 1)) --b;
        while (e < code.size() && word(e)) ++e;
        if (std::isdigit(static_cast<unsigned char>(code[b]))) continue;
        out.emplace_back(code.substr(b, e - b));
    }
    return out;
}

std::string template_hint(const spec& s, std::string_view log) {
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
        "which is also a macro of the source and replaces that name there: give the "
        "parameter `define: false` in params (or set kernel.define_placeholders: false when the "
        "kernel's name passes it as a {{PARAM}} placeholder)",
        clashes.size() > 1 ? "s" : "", fmt::join(clashes, ", "), clashes.size() > 1 ? "" : "s");
}

// A name the source declares (a function parameter, a header's template parameter) that is
// also a macro: NVRTC stops at it with "expected ...", its caret under the name.
std::string macro_name_hint(const spec& s, std::string_view log) {
    for (const std::string& name : names_at_carets(log)) {
        std::string kind, value, fix;
        for (const auto& p : s.problem)
            if (p.define && p.name == name) {
                kind = "a problem size";
                value = std::to_string(p.value);
                fix = fmt::format(
                    "keep the size out of the macros with `define: false` (problem: "
                    "{{{}: {{value: {}, define: false}}}})",
                    name, value);
            }
        for (const auto& p : s.params)
            if (p.define && p.name == name) {
                kind = "a tuning parameter";
                value = "<value>";
                fix = fmt::format(
                    "give the parameter `define: false` in params (it then reaches "
                    "the kernel only through a {{{}}} placeholder of the kernel's "
                    "name)",
                    name);
            }
        if (!kind.empty())
            return fmt::format(
                "hint: `{0}` is {1}, which hone defines as the macro {0} ({2}): where the "
                "source or a header it includes declares a name `{0}`, the macro replaces it. "
                "Rename it, or {3}",
                name, kind, value, fix);
    }
    return "";
}

// NVRTC's words for host code: a function without an execution space, or a runtime API call
// (cudaMalloc, cudaMemcpy, ...), which only the host compiler of nvcc knows.
std::string host_code_hint(std::string_view log) {
    static const std::regex runtime_call(R"re(identifier "cuda[A-Z]\w*" is undefined)re");
    const bool host_function =
        log.find("host functions are not allowed in JIT mode") != std::string_view::npos;
    if (!host_function && !std::regex_search(log.begin(), log.end(), runtime_call)) return "";
    // The host code is cub's own: <cub/cub.cuh> brings its device-wide algorithms, which are
    // launched from the host.
    if (log.find("cub/device/") != std::string_view::npos)
        return "hint: <cub/cub.cuh> includes cub's device-wide algorithms, which are host code "
               "that NVRTC (device code only) cannot compile: include the block- and warp-level "
               "headers the kernel uses instead, such as <cub/block/block_reduce.cuh>";
    return "hint: NVRTC compiles device code only, and this source has host code (a function "
           "without __global__ or __device__, such as main, or a CUDA runtime call): hone does "
           "the host's work from the config. Put the host code between `#ifndef __CUDACC_RTC__` "
           "and `#endif` (NVRTC defines __CUDACC_RTC__, nvcc does not), or keep the kernels in a "
           "file of their own";
}

// A header of the C++ library's host side (streams, containers, threads), which NVRTC has not:
// the include belongs with the host code.
std::string host_header_hint(std::string_view log) {
    static const std::regex missing(
        R"re(cannot open source file "(iostream|ostream|istream|fstream|sstream|iomanip|vector|string|map|unordered_map|set|list|deque|memory|thread|mutex|future|chrono|random|functional|algorithm|numeric|filesystem)")re");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_search(log.begin(), log.end(), m, missing)) return "";
    return fmt::format(
        "hint: <{}> is a header of the C++ library's host side, which NVRTC (device code only) "
        "does not have: put its #include and the host code that uses it between `#ifndef "
        "__CUDACC_RTC__` and `#endif` (NVRTC defines __CUDACC_RTC__, nvcc does not)",
        m[1].str());
}

// NVRTC resolves the kernel's name through a name expression, which cannot pick among overloads
// (the message comes from its internal file __nv_name_map).
std::string overload_hint(std::string_view log) {
    static const std::regex overloaded(
        R"re(cannot determine which instance of overloaded function "([^"]+)")re");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_search(log.begin(), log.end(), m, overloaded)) return "";
    return fmt::format(
        "hint: kernel.name '{}' names several overloads of the source (the error's file "
        "__nv_name_map is NVRTC's lookup of the name): give the one to tune a name of its own, "
        "or make the kernel a template and name its arguments",
        m[1].str());
}

// ptxas refuses more than 48 KiB of static shared memory a block; dynamic shared memory may go
// up to the device's opt-in limit, which hone raises for the launch.
std::string shared_memory_hint(std::string_view log) {
    if (log.find("uses too much shared data") == std::string_view::npos) return "";
    return "hint: static shared memory (__shared__ arrays of a fixed size) is limited to 48 KiB "
           "a block; for more, declare `extern __shared__` memory and size it with "
           "launch.shared_bytes (hone raises the kernel's limit up to the device's), or keep such "
           "configurations out with a constraint";
}

}  // namespace

std::string compile_hint(const spec& s, std::string_view log) {
    if (std::string hint = shared_memory_hint(log); !hint.empty()) return hint;
    if (std::string hint = template_hint(s, log); !hint.empty()) return hint;
    if (std::string hint = host_code_hint(log); !hint.empty()) return hint;
    if (std::string hint = host_header_hint(log); !hint.empty()) return hint;
    if (std::string hint = overload_hint(log); !hint.empty()) return hint;
    return macro_name_hint(s, log);
}

std::string failure_log(std::string_view log) {
    std::string out;
    while (!log.empty()) {
        const auto end = log.find('\n');
        const std::string_view line = log.substr(0, end);
        log.remove_prefix(end == std::string_view::npos ? log.size() : end + 1);
        if (line.starts_with("ptxas info") || line.starts_with("ptxas         .")) continue;
        out.append(line);
        if (end != std::string_view::npos) out.push_back('\n');
    }
    return out;
}

std::string log_group_key(std::string_view log) {
    std::string out;
    for (std::size_t i = 0; i < log.size();) {
        const bool hex =
            log[i] == '0' && i + 1 < log.size() && (log[i + 1] == 'x' || log[i + 1] == 'X');
        if (std::isdigit(static_cast<unsigned char>(log[i]))) {
            i += hex ? 2 : 0;
            const auto more = [&](char c) {
                const auto u = static_cast<unsigned char>(c);
                return hex ? std::isxdigit(u) != 0 : std::isdigit(u) != 0 || c == '.';
            };
            while (i < log.size() && more(log[i])) ++i;
            out.push_back('#');
        } else {
            out.push_back(log[i++]);
        }
    }
    return out;
}

}  // namespace hone
