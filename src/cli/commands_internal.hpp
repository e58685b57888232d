#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hone::cli {

// Each registers its subcommand; parsing it sets `action` to the command's body.
void register_check(CLI::App& app, std::function<int()>& action);
void register_tune(CLI::App& app, std::function<int()>& action);
void register_show(CLI::App& app, std::function<int()>& action);
void register_devices(CLI::App& app, std::function<int()>& action);
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
};
int run_check(const check_args& a);

}  // namespace hone::cli
