// hone export: a database's results in the field's formats (T4, Kernel Tuner's cache, CSV).
#include <fmt/format.h>

#include <iostream>

#include "cli/commands_internal.hpp"
#include "formats/csv.hpp"
#include "formats/kt_cache_writer.hpp"
#include "formats/output_file.hpp"
#include "formats/stored_runs.hpp"
#include "formats/t4.hpp"

namespace hone::cli {
namespace {

struct export_args {
    std::string db;
    std::string run;     // id prefix; "" = every run (csv), or the only one (t4, kt-cache)
    std::string output;  // "" = stdout
    std::string format;  // t4 | kt-cache | csv
};

int run_export(const export_args& a) {
    if (a.format.empty())
        throw input_error({"--format", 0, 0}, "choose what to write: --format t4, kt-cache or csv");
    auto runs = select_runs(read_stored_runs(a.db), a.run, a.db);
    // T4 and Kernel Tuner's cache describe one run each.
    if (a.format != "csv" && runs.size() > 1) {
        std::string list;
        for (const auto& r : runs) list += "\n  " + describe_run(r);
        throw input_error({"--run", 0, 0},
                          fmt::format("{} holds {} runs and a {} file holds one: choose it with "
                                      "--run ID (the first characters of its id):{}",
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
    if (a.output.empty() || a.output == "-") {
        std::cout << text << std::flush;
        return 0;
    }
    write_file_atomically(a.output, text, a.output.ends_with(".gz"));
    fmt::print(stderr, "wrote {} configuration{} of {} run{} to {} ({})\n", configs,
               configs == 1 ? "" : "s", runs.size(), runs.size() == 1 ? "" : "s", a.output,
               a.format == "t4" ? fmt::format("T4 {}", t4_schema_version) : a.format);
    return 0;
}

}  // namespace

void register_export(CLI::App& app, std::function<int()>& action) {
    auto a = std::make_shared<export_args>();
    CLI::App* c =
        app.add_subcommand("export", "Write stored results as T4, a Kernel Tuner cache or CSV");
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
(the first characters of the id that `hone show` and this command's error list print). CSV
writes every run unless --run is given, with run, kernel, device and origin columns when there
are several. Without -o the file goes to stdout; with -o it is written whole or not at all, and
gzip-compressed when the name ends in .gz.

Examples:
  hone export configs/vector_add.db --format t4 -o vector_add.t4.json
  hone export configs/vector_add.db --format kt-cache -o vector_add_cache.json
  hone export gemm.db --format csv > gemm.csv)txt");
    c->add_option("db", a->db, "Results database")->required();
    c->add_option("--format", a->format, "t4 | kt-cache | csv")
        ->check(CLI::IsMember({"t4", "kt-cache", "csv"}));
    c->add_option("-o,--output", a->output, "Output file (default: stdout; .gz: compressed)");
    c->add_option("--run", a->run, "The run to write: the first characters of its id");
    c->callback([a, &action] { action = [a] { return run_export(*a); }; });
}

}  // namespace hone::cli
