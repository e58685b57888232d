// The kernel section: the source file, the kernel name and the compile options.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "spec/loader.hpp"
#include "spec/names.hpp"

namespace hone::spec_detail {
namespace fs = std::filesystem;

namespace {

// Kernel sources are text; anything larger is a wrong path, not a kernel.
constexpr std::size_t max_source_bytes = 64u << 20;

std::string read_source(const doc& d, const YAML::Node& n, const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in.is_open()) fail(d, n, fmt::format("cannot read kernel source {}", path));
    // Read with a cap: /proc files report size 0 yet can be endless.
    std::string text;
    char chunk[1 << 16];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
        if (text.size() > max_source_bytes)
            fail(d, n, fmt::format("kernel source {} is larger than 64 MiB", path));
    }
    // A UTF-8 byte order mark, which editors on Windows write and nvcc skips, is an
    // "unrecognized token" to NVRTC.
    if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
    return text;
}

std::vector<std::string> read_include_dirs(const doc& d, const YAML::Node& n) {
    std::vector<std::string> out;
    for (const auto& item : read_list(d, n, "folders")) {
        const std::string dir = resolve_path(d, read_string(d, item, "a folder"));
        std::error_code ec;
        if (!fs::is_directory(dir, ec))
            fail(d, item, fmt::format("include folder {} not found", dir));
        out.push_back(dir);
    }
    return out;
}

}  // namespace

std::string resolve_path(const doc& d, const std::string& path) {
    const fs::path p(path);
    return (p.is_absolute() ? p : fs::path(d.dir) / p).lexically_normal().string();
}

std::string require_file(const doc& d, const YAML::Node& n, const std::string& path,
                         std::string_view what) {
    const std::string full = resolve_path(d, path);
    std::error_code ec;
    if (!fs::is_regular_file(full, ec)) {
        if (fs::exists(full, ec))
            fail(d, n,
                 fmt::format("{} '{}' is not a regular file ({} is a device, a folder or a fifo)",
                             what, path, full));
        fail(d, n, fmt::format("{} '{}' not found (looked for {})", what, path, full));
    }
    return full;
}

void load_kernel(const doc& d, const entry& e, spec& s) {
    const auto m = read_map(d, e.value, "kernel",
                            {"source", "name", "include_dirs", "options", "max_registers",
                             "fast_math", "define_placeholders"});
    kernel_spec& k = s.kernel;
    k.pos = value_pos(d, e);
    const entry& source = require(d, e.value, m, "source", "kernel");
    const std::string source_path = read_string(d, source.value, "a file path");
    std::error_code ec;
    k.source_found = d.require_source || fs::is_regular_file(resolve_path(d, source_path), ec);
    if (k.source_found) {
        k.source_path = require_file(d, source.value, source_path, "kernel source");
        k.source_text = read_source(d, source.value, k.source_path);
    } else {
        k.source_path = resolve_path(d, source_path);
    }
    const entry& name = require(d, e.value, m, "name", "kernel");
    k.name = read_string(d, name.value, "a kernel name");
    k.is_template = k.name.find_first_of("<{") != std::string::npos;
    check_placeholders(d, name.value, k.name, s);
    if (k.source_found) check_kernel_in_source(d, name.value, k.name, s);
    if (const entry* def = find(m, "define_placeholders")) {
        k.define_placeholders = read_bool(d, def->value);
        if (!k.define_placeholders)
            for (auto& p : s.params)
                if (!p.define_given && k.name.find("{" + p.name + "}") != std::string::npos)
                    p.define = false;
    }
    if (const entry* dirs = find(m, "include_dirs"))
        k.include_dirs = read_include_dirs(d, dirs->value);
    if (const entry* opts = find(m, "options"))
        for (const auto& o : read_list(d, opts->value, "compiler options"))
            k.options.push_back(read_string(d, o, "an option"));
    if (const entry* regs = find(m, "max_registers")) {
        k.max_registers = read_expr(d, regs->value);
        const auto v = check_expr(s, k.max_registers, use_all, "max_registers");
        if (v && k.max_registers.eval_int(s.problem_bindings()) < 0)
            fail(d, regs->value, "max_registers must be >= 0 (0 = no limit)");
    }
    k.fast_math = expression::constant(false);
    if (const entry* fast = find(m, "fast_math")) {
        check_choice_word(d, fast->value, s, "fast_math", "true or false");
        k.fast_math = read_expr(d, fast->value);
        if (check_expr(s, k.fast_math, use_all, "fast_math"))
            k.fast_math.eval_bool(s.problem_bindings());
    }
}

}  // namespace hone::spec_detail
