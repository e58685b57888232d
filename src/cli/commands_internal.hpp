#pragma once
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/terminal_text.hpp"
#include "compile/remote_compiler.hpp"

namespace hone {
struct spec;
}

namespace hone::cli {

// "" or a line for check and space, which count and compile one set of problem sizes: which
// values of the config's size lists they used, and how to choose others (--set).
std::string size_list_note(const spec& s);

// fmt::print to stdout for text that holds names and values read from files: their control
// characters are shown escaped (common/terminal_text.hpp). A failed write is caught by main.
template <typename... T>
void print_text(fmt::format_string<T...> format, T&&... args) {
    const std::string text = terminal_text(fmt::format(format, std::forward<T>(args)...));
    std::fwrite(text.data(), 1, text.size(), stdout);
}

// Each registers its subcommand; parsing it sets `action` to the command's body.
void register_check(CLI::App& app, std::function<int()>& action);
void register_tune(CLI::App& app, std::function<int()>& action);
void register_show(CLI::App& app, std::function<int()>& action);
void register_devices(CLI::App& app, std::function<int()>& action);
void register_workers(CLI::App& app, std::function<int()>& action);
void register_export(CLI::App& app, std::function<int()>& action);
void register_selection_quality(CLI::App& app, std::function<int()>& action);
void register_import(CLI::App& app, std::function<int()>& action);
void register_report(CLI::App& app, std::function<int()>& action);
void register_space(CLI::App& app, std::function<int()>& action);
void register_import_t1(CLI::App& app, std::function<int()>& action);
void register_replay(CLI::App& app, std::function<int()>& action);
void register_merge(CLI::App& app, std::function<int()>& action);

// `hone check`, also the body of `hone tune --dry-run` (same compile pool and cache).
struct check_args {
    std::string config;
    std::vector<std::string> sets;
    std::string arch;
    int sample = 0;
    uint64_t seed = 1;
    int jobs = 0;
    bool json = false;
    bool failures_only = false;
    bool use_cache = false;
    std::string cache_dir;
    std::vector<std::shared_ptr<remote_compiler>> compilers;  // other MPI ranks' pools
};
int run_check(const check_args& a);

}  // namespace hone::cli
