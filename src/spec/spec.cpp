// load_spec: YAML text to a validated spec. Sections load in dependency order, whatever
// their order in the file.
#include "hone/spec.hpp"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/input_limits.hpp"
#include "spec/loader.hpp"

namespace hone {
namespace fs = std::filesystem;

namespace {
// A named namespace, so that the using-directive stays in this file when a unity build
// compiles it together with others.
namespace loading {
using namespace spec_detail;

const key_list sections = {"kernel", "problem", "params", "constraints", "buffers", "args",
                           "launch", "metrics", "verify", "timing",      "search",  "output"};

const entry& require_section(const doc& d, const std::vector<entry>& top, std::string_view name) {
    const entry* e = find(top, name);
    if (!e) throw input_error({d.file, 1, 1}, fmt::format("missing required section '{}'", name));
    return *e;
}

YAML::Node parse_yaml(const std::string& text, const std::string& path) {
    refuse_tabs(text, path);
    YAML::Node root = YAML::Load(text);
    if (root.IsNull())
        throw input_error(
            {path, 1, 1},
            "the file is empty; expected a map with the sections kernel, launch, args, ...");
    return root;
}

std::string folder_of(const std::string& path) {
    std::error_code ec;
    const fs::path abs = fs::absolute(fs::path(path), ec);
    return (ec ? fs::path(path) : abs).parent_path().lexically_normal().string();
}

spec load(const std::string& text, const std::string& path,
          const std::map<std::string, int64_t>& overrides, const load_options& opt) {
    const doc d{path, folder_of(path), opt.require_source};
    const YAML::Node root = parse_yaml(text, path);
    const auto top = read_map(d, root, "the config", sections);
    spec s;
    s.path = path;
    s.dir = d.dir;
    load_problem(d, find(top, "problem"), overrides, s);
    load_params(d, find(top, "params"), s);
    load_kernel(d, require_section(d, top, "kernel"), s);
    load_constraints(d, find(top, "constraints"), s);
    load_buffers(d, find(top, "buffers"), s);
    load_args(d, require_section(d, top, "args"), s);
    load_launch(d, require_section(d, top, "launch"), s);
    load_metrics(d, find(top, "metrics"), s);
    load_verify(d, find(top, "verify"), s);
    load_timing(d, find(top, "timing"), s);
    load_search(d, find(top, "search"), s);
    const entry* output = find(top, "output");
    s.output = output ? resolve_path(d, read_string(d, output->value, "a file path"))
                      : resolve_path(d, fs::path(path).stem().string() + ".db");
    return s;
}

}  // namespace loading
}  // namespace

const std::vector<std::string>& device_attribute_names() {
    static const std::vector<std::string> names = {"arch",
                                                   "cc_major",
                                                   "cc_minor",
                                                   "l2_bytes",
                                                   "max_shared_per_block",
                                                   "max_shared_per_block_optin",
                                                   "max_shared_per_sm",
                                                   "max_threads_per_block",
                                                   "max_threads_per_sm",
                                                   "regs_per_block",
                                                   "regs_per_sm",
                                                   "sm_count",
                                                   "total_mem",
                                                   "warp_size"};
    return names;
}

const param_spec* spec::find_param(std::string_view name) const {
    for (const auto& p : params)
        if (p.name == name) return &p;
    return nullptr;
}

const buffer_spec* spec::find_buffer(std::string_view name) const {
    for (const auto& b : buffers)
        if (b.name == name) return &b;
    return nullptr;
}

bindings spec::problem_bindings() const {
    bindings b;
    for (const auto& p : problem) b[p.name] = p.value;
    return b;
}

spec load_spec(const std::string& path, const std::map<std::string, int64_t>& overrides,
               const load_options& opt) {
    const std::optional<std::string> text = read_file_capped(path, max_text_input_bytes());
    if (!text) throw input_error({path, 0, 0}, "cannot read the file");
    return load_spec_text(*text, path, overrides, opt);
}

spec load_spec_text(const std::string& text, const std::string& path,
                    const std::map<std::string, int64_t>& overrides, const load_options& opt) {
    // YAML would read a compressed or binary file as text and report a tab or a bad character
    // somewhere in it.
    if (text.starts_with("\x1f\x8b"))
        throw input_error({path, 0, 0}, "is gzip-compressed: a config is YAML text (gunzip it)");
    if (text.substr(0, 4096).find('\0') != std::string::npos)
        throw input_error({path, 0, 0}, "is a binary file (it holds NUL bytes), not a YAML config");
    try {
        return loading::load(text, path, overrides, opt);
    } catch (const YAML::DeepRecursion& e) {
        // yaml-cpp's own message for this is "bad file".
        throw input_error({path, e.mark.line + 1, e.mark.column + 1},
                          "malformed YAML: nested too deeply");
    } catch (const YAML::Exception& e) {
        // Malformed YAML, or a yaml-cpp limit (nesting depth): both point at the text.
        const bool known = e.mark.line >= 0;
        throw input_error({path, known ? e.mark.line + 1 : 0, known ? e.mark.column + 1 : 0},
                          fmt::format("malformed YAML: {}", e.msg));
    }
}

}  // namespace hone
