// hone export: stored results in another form: the field's formats (T4, Kernel Tuner's cache,
// CSV) with --format, and with --wisdom what an application's kernel handle reads
// (hone/kernel.hpp).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <set>
#include <tuple>

#include "cli/commands_internal.hpp"
#include "cli/options.hpp"
#include "common/terminal_text.hpp"
#include "formats/csv.hpp"
#include "formats/kt_cache_writer.hpp"
#include "formats/output_file.hpp"
#include "formats/stored_runs.hpp"
#include "formats/t4.hpp"
#include "hone/error.hpp"
#include "hone/wisdom.hpp"

namespace hone::cli {
namespace {

namespace fs = std::filesystem;

struct export_args {
    std::string db;
    std::string run;     // run number or id prefix; "" = every run (csv), or the only one
    std::string output;  // "" = stdout
    std::string format;  // t4 | kt-cache | csv
    std::string wisdom;  // or a wisdom file for hone::kernel
    int top = 16;
    bool merge = false;
};

auto entry_key(const tuned_entry& e) {
    return std::tie(e.kernel, e.source_hash, e.spec_hash, e.device_name, e.problem, e.origin);
}

// An existing file at `path` is replaced only when it is a wisdom file: any other file named by
// mistake is left as it was (a database never gets here: check_output_path refuses it first).
std::vector<tuned_entry> existing_wisdom(const std::string& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return {};
    try {
        return read_tuned(path);
    } catch (const input_error& e) {
        throw input_error(
            e.pos(), fmt::format("{} (the file exists and is not a hone wisdom file: it was left "
                                 "unchanged; give --wisdom another name)",
                                 e.message()));
    }
}

int export_wisdom(const export_args& a) {
    std::error_code ec;
    if (!fs::is_regular_file(a.db, ec))  // opening a store would create it
        throw input_error({a.db, 0, 0}, "no such results database");
    check_output_path(a.wisdom, {a.db});
    std::set<std::string> ids;  // --run: those runs only (an unknown one is refused here)
    if (!a.run.empty())
        for (const auto& r : select_runs(read_stored_runs(a.db), a.run, a.db))
            ids.insert(r.identity.id());
    std::vector<tuned_entry> fresh = tuned_from_db(a.db, ids);
    // A database that holds nothing ranked cannot give a wisdom file: bad input (exit 2), as
    // for any refused input; exit 1 is for failures a run found.
    if (fresh.empty()) {
        fmt::print(stderr, "error: {}: no run has a ranked configuration: nothing to export\n",
                   terminal_text(a.db));
        return 2;
    }
    std::vector<tuned_entry> old = existing_wisdom(a.wisdom);
    std::vector<tuned_entry> out;
    std::size_t kept = 0;
    if (a.merge) {
        std::set<decltype(entry_key(fresh.front()))> replaced;
        for (const auto& e : fresh) replaced.insert(entry_key(e));
        for (auto& e : old) {
            if (replaced.count(entry_key(e))) continue;
            out.push_back(std::move(e));
            ++kept;
        }
    }
    std::set<std::string> kernels, devices;
    for (auto& e : fresh) {
        kernels.insert(e.kernel);
        devices.insert(e.device_name);
        out.push_back(std::move(e));
    }
    write_wisdom(a.wisdom, out, static_cast<std::size_t>(a.top));
    fmt::print("{}: {} entries ({} kernel{}, {} device{}) from {}{}\n", a.wisdom, out.size(),
               kernels.size(), kernels.size() == 1 ? "" : "s", devices.size(),
               devices.size() == 1 ? "" : "s", a.db,
               a.merge ? fmt::format(", {} kept from the file", kept) : "");
    return 0;
}

int export_format(const export_args& a) {
    const bool to_stdout = a.output.empty() || a.output == "-";
    if (!to_stdout) check_output_path(a.output, {a.db});
    auto runs = select_runs(read_stored_runs(a.db), a.run, a.db);
    // T4 and Kernel Tuner's cache describe one run each.
    if (a.format != "csv" && runs.size() > 1) {
        std::string list;
        for (const auto& r : runs) list += "\n  " + describe_run(r);
        throw input_error({"--run", 0, 0},
                          fmt::format("{} holds {} runs and a {} file holds one: choose it with "
                                      "--run N (its number or the first characters of its id):{}",
                                      a.db, runs.size(), a.format, list));
    }
    std::string text;
    if (a.format == "t4") {
        text = write_t4(runs.front());
    } else if (a.format == "kt-cache") {
        text = write_kt_cache(runs.front());
    } else {
        std::vector<const run_records*> all;
        for (const auto& r : runs) all.push_back(&r);
        text = write_csv(all);
    }
    std::size_t configs = 0;
    for (const auto& r : runs) configs += r.records.size();
    if (to_stdout) {
        write_stdout(text);
        return 0;
    }
    write_file_atomically(a.output, text, a.output.ends_with(".gz"));
    fmt::print(stderr, "wrote {} configuration{} of {} run{} to {} ({})\n", configs,
               configs == 1 ? "" : "s", runs.size(), runs.size() == 1 ? "" : "s", a.output,
               a.format == "t4" ? fmt::format("T4 {}", t4_schema_version) : a.format);
    return 0;
}

int run_export(const export_args& a) {
    if (!a.wisdom.empty() && !a.format.empty())
        throw input_error({"--wisdom", 0, 0}, "give --wisdom FILE or --format, not both");
    if (!a.wisdom.empty()) return export_wisdom(a);
    if (a.format.empty())
        throw input_error({"--format", 0, 0},
                          "choose what to write: --format t4, kt-cache or csv, or --wisdom FILE");
    return export_format(a);
}

}  // namespace

void register_export(CLI::App& app, std::function<int()>& action) {
    auto a = std::make_shared<export_args>();
    CLI::App* c = app.add_subcommand(
        "export", "Write stored results as T4, a Kernel Tuner cache, CSV or a wisdom file");
    c->footer(R"txt(Formats:
  t4        T4 results JSON (the autotuning community's exchange format; schema 1.0.0): per
            configuration its parameters, times (compilation, every raw runtime, validation,
            benchmark; milliseconds), invalidity (correct, compile, runtime, timeout,
            correctness, constraints), measurements (time, GB/s, GFLOP/s, metrics) and a
            "hone" object with what T4 has no field for, so `hone import` gives the run back.
  kt-cache  Kernel Tuner's cache JSON: loads in Kernel Tuner's tune_kernel(cache=...,
            simulation_mode=True) with the same tune_params, and in `hone import`. Failures are
            written as CompilationFailedConfig, InvalidConfig (device_limits) or
            RuntimeFailedConfig (launch_error, runtime_fault, timeout, wrong_result).
  csv       one row per configuration: parameters, status, median/CI/mean/stddev/min/max (µs),
            n, GB/s, GFLOP/s, registers, spills, shared memory, occupancy, compile time,
            metrics, message (RFC 4180 quoting).

A T4 file or a cache holds one run: when the database holds several, choose one with --run
(its number, or the first characters of its id, as `hone show` and this command's error list
print them). CSV
writes every run unless --run is given, with run, kernel, device and origin columns when there
are several. Without -o the file goes to stdout; with -o it is written whole or not at all, and
gzip-compressed when the name ends in .gz.

--wisdom FILE writes a small, diffable JSON file for hone::kernel (hone/kernel.hpp): for each
run of the database (kernel, source and spec hash, device, problem sizes) the best configuration
with its time and objective value, the next best ones with their time relative to the best
(which the handle's nearest-size rule interpolates), and the identity it was tuned under
(device name, uuid, arch, driver, NVRTC and hone versions). Entries are sorted and each
configuration takes one line, so that re-tuning one size shows as a small diff.

An existing FILE is replaced only when it is a wisdom file; with --merge its entries for other
runs are kept (several databases into one file).

Examples:
  hone export configs/vector_add.db --format t4 -o vector_add.t4.json
  hone export configs/vector_add.db --format kt-cache -o vector_add_cache.json
  hone export gemm.db --format csv > gemm.csv
  hone export configs/vector_add.db --wisdom wisdom.json
  hone export configs/sgemm.db --wisdom wisdom.json --merge --top 32)txt");
    c->add_option("db", a->db, "Results database")->required();
    c->add_option("--format", a->format, "t4 | kt-cache | csv")
        ->check(CLI::IsMember({"t4", "kt-cache", "csv"}));
    c->add_option("-o,--output", a->output, "Output file (default: stdout; .gz: compressed)");
    c->add_option("--run", a->run,
                  "The run to write: its number or the first characters of its id");
    c->add_option("--wisdom", a->wisdom, "Write a wisdom file for hone::kernel");
    c->add_option("--top", a->top,
                  "Wisdom: configurations kept per entry, best first (default 16; 0 = all)")
        ->check(whole_number(0, std::numeric_limits<int>::max()));
    c->add_flag("--merge", a->merge,
                "Wisdom: keep the entries of an existing file that this database does not replace");
    c->callback([a, &action] { action = [a] { return run_export(*a); }; });
}

}  // namespace hone::cli
