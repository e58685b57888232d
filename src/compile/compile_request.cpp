// From a configuration to the NVRTC option list: every problem size and parameter becomes a
// macro, so kernels read them as compile-time constants; one with define: false does not (a
// parameter then reaches the kernel only through a {PARAM} placeholder of the name, a size
// through the kernel's arguments).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "compile/compile.hpp"
#include "compile/source_macros.hpp"

namespace hone {
namespace {

std::string source_folder(const std::string& path) {
    return std::filesystem::path(path).parent_path().string();
}

// Everything but the kernel name: shared by the tuned kernel and the reference kernel.
compile_request base_request(const spec& s, const config& c, const bindings& scope,
                             const std::string& arch) {
    compile_request r;
    r.source = s.kernel.source_text;
    r.source_name = s.kernel.source_path;
    r.options.push_back("--gpu-architecture=" + arch);
    std::vector<std::pair<std::string, std::string>> macros;
    auto define = [&](const std::string& name, std::string value) {
        // A value over several lines cannot be a #define line: such a macro stays an option.
        if (value.find('\n') != std::string::npos)
            r.options.push_back("-D" + name + "=" + value);
        else
            macros.emplace_back(name, std::move(value));
    };
    for (const auto& p : s.problem)
        if (p.define) define(p.name, std::to_string(p.value));
    for (std::size_t i = 0; i < s.params.size() && i < c.values.size(); ++i)
        if (s.params[i].define)  // else a template argument only
            define(s.params[i].name, define_text(c.values[i]));
    r.include_dirs = kernel_include_dirs(s.kernel);
    // Headers the kernel's own folders hold may read the macros; the toolkit's must not see them.
    std::vector<std::string> own = r.include_dirs;
    const auto& opts = s.kernel.options;
    for (std::size_t i = 0; i < opts.size(); ++i)
        if (opts[i] == "-I" && i + 1 < opts.size())
            own.push_back(opts[++i]);
        else if (opts[i].size() > 2 && opts[i].compare(0, 2, "-I") == 0)
            own.push_back(opts[i].substr(2));
    r.source = source_with_macros(r.source, r.source_name, macros, own);
    // A header the options include before the source (-include, --pre-include) reads the
    // macros as options, as before they were defined in the source.
    const bool pre_include = std::any_of(opts.begin(), opts.end(), [](const std::string& o) {
        return o == "-include" || o.rfind("--pre-include", 0) == 0 || o.rfind("-include=", 0) == 0;
    });
    if (pre_include)
        for (const auto& [name, value] : macros) r.options.push_back("-D" + name + "=" + value);
    for (const auto& dir : r.include_dirs) r.options.push_back("-I" + dir);
    const int64_t max_regs = s.kernel.max_registers.eval_int(scope);
    if (max_regs > 0) r.options.push_back(fmt::format("--maxrregcount={}", max_regs));
    if (s.kernel.fast_math.eval_bool(scope)) r.options.push_back("--use_fast_math");
    // The resource report (registers, spills, shared memory) comes from ptxas's verbose log.
    r.options.push_back("--ptxas-options=-v");
    r.options.insert(r.options.end(), s.kernel.options.begin(), s.kernel.options.end());
    return r;
}

// A kernel of C++ linkage has a mangled symbol, so its plain name is not found in the module:
// such names resolve through a name expression (nvrtcGetLoweredName) as template expressions
// do. That covers qualified names (ns::k) and every name of a source that declares nothing
// extern "C". A source that does keep its plain names: an extern "C" kernel declared inside
// a namespace has a plain symbol but no unqualified name expression.
bool resolve_by_expression(const std::string& name, const std::string& source) {
    return name.find("::") != std::string::npos || source.find("extern \"C\"") == std::string::npos;
}

void set_name(compile_request& r, const std::string& name, bool is_template, const spec& s,
              const bindings& scope, const source_pos& pos) {
    if (is_template) {
        r.name_expression = expand_name(name, s, scope, pos);
    } else if (resolve_by_expression(name, s.kernel.source_text)) {
        r.name_expression = name;
    } else {
        r.plain_name = name;
    }
}

}  // namespace

std::vector<std::string> kernel_include_dirs(const kernel_spec& k) {
    std::vector<std::string> dirs = k.include_dirs;
    dirs.push_back(source_folder(k.source_path));
    return dirs;
}

std::string kernel_source_hash(const kernel_spec& k) {
    return source_digest(k.source_text, k.source_path, kernel_include_dirs(k));
}

std::string expand_name(const std::string& pattern, const spec& s, const bindings& scope,
                        const source_pos& pos) {
    std::string out;
    std::size_t i = 0;
    while (i < pattern.size()) {
        const std::size_t open = pattern.find('{', i);
        out += pattern.substr(i, open - i);
        if (open == std::string::npos) break;
        const std::size_t close = pattern.find('}', open);
        if (close == std::string::npos) {
            throw input_error(pos, fmt::format("'{{' without '}}' in kernel name '{}'", pattern));
        }
        const std::string name = pattern.substr(open + 1, close - open - 1);
        const auto it = scope.find(name);
        if (it == scope.end()) {
            throw input_error(pos, fmt::format("'{{{}}}' in kernel name '{}' names no parameter, "
                                               "problem size or device attribute",
                                               name, pattern));
        }
        out += template_text(it->second);
        i = close + 1;
    }
    return out;
}

compile_request make_compile_request(const spec& s, const config& c, const bindings& scope,
                                     const std::string& arch) {
    compile_request r = base_request(s, c, scope, arch);
    set_name(r, s.kernel.name, s.kernel.is_template, s, scope, s.kernel.pos);
    return r;
}

compile_request make_reference_request(const spec& s, const config& ref_cfg, const bindings& scope,
                                       const std::string& arch) {
    compile_request r = base_request(s, ref_cfg, scope, arch);
    const std::string& name = s.verify.reference_kernel;
    const bool is_template = name.find_first_of("<{") != std::string::npos;
    set_name(r, name, is_template, s, scope, s.verify.pos);
    return r;
}

}  // namespace hone
