// hone import-t1: a hone config from a T1 tuning-input file.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/commands_internal.hpp"
#include "common/input_limits.hpp"
#include "formats/output_file.hpp"
#include "formats/t1_import.hpp"
#include "hone/error.hpp"

namespace hone::cli {
namespace {

struct import_t1_args {
    std::string input, output;
    bool force = false;
};

std::string read_text(const std::string& path) {
    std::optional<std::string> text = read_file_capped(path, max_text_input_bytes());
    if (!text) throw_unreadable(path, errno);
    return std::move(*text);
}

int run_import_t1(const import_t1_args& a) {
    check_output_path(a.output, {a.input});
    // A config is often edited by hand after its import: replacing one is asked for.
    std::error_code ec;
    if (!a.force && std::filesystem::exists(a.output, ec))
        throw input_error({a.output, 0, 0},
                          "exists: a config may hold edits of its own; add "
                          "--force to replace it, or choose another name "
                          "(nothing was written)");
    const t1_translation t = translate_t1(read_text(a.input), a.input, a.output);
    // Written beside the target, then renamed: a failure leaves no partial config behind.
    write_file_atomically(a.output, t.yaml);
    print_text("wrote {}: {} parameters, {} of {} constraints translated{}\n", a.output, t.params,
               t.constraints_translated, t.constraints,
               t.notes.empty() ? ""
                               : fmt::format("; {} note{} (also in the file as # NOTE)",
                                             t.notes.size(), t.notes.size() == 1 ? "" : "s"));
    for (const auto& n : t.notes) print_text("  note: {}\n", n);
    print_text("next: hone space {}\n", a.output);
    return 0;
}

}  // namespace

void register_import_t1(CLI::App& app, std::function<int()>& action) {
    auto a = std::make_shared<import_t1_args>();
    CLI::App* c = app.add_subcommand("import-t1",
                                     "Write a hone config from a T1 tuning-input file (parameters, "
                                     "constraints, kernel, launch, arguments)");
    c->footer(
        R"(T1 is the tuning-input format of the autotuning benchmark hub (BAT, Kernel Tuner, KTT). The
config gets:
  - the parameters, their "Values" evaluated without Python (lists, [32 * i for i in range(1, 32)],
    [1] + [2 * i for i in range(1, 11)], list(range(...)));
  - the constraints ("Conditions"), which hone reads as written: and, or, not, chained
    comparisons, // and ** as in Python;
  - the kernel file (relative to the config; it need not exist for `hone space`), its name and
    compiler options;
  - ProblemSize as problem sizes; the block from LocalSize; the grid as Kernel Tuner computes it,
    ceil(ProblemSize / product of GridDiv), or from GlobalSize when there is no ProblemSize
    (blocks for CUDA, threads for OpenCL);
  - the arguments: vectors as buffers (type, size, fill), scalars as values.
What does not translate exactly (a constraint hone cannot read, a division that is not exact, a
fill kind, constant memory, a kernel in OpenCL, BenchmarkConfig, ...) is listed here and left
in the config as a "# NOTE:" comment. A file that is not T1, misses a required field, or has
Values that cannot be evaluated is refused (exit code 2) and nothing is written.

Examples:
  hone import-t1 gemm_milo.T1.json -o gemm.yaml
  hone space gemm.yaml)");
    c->add_option("file", a->input, "T1 file (JSON)")->required()->check(CLI::ExistingFile);
    c->add_option("-o,--output", a->output, "The config to write (YAML)")->required();
    c->add_flag("--force", a->force, "Replace an existing config of that name");
    c->callback([a, &action] { action = [a] { return run_import_t1(*a); }; });
}

}  // namespace hone::cli
