#pragma once
#include <CLI/CLI.hpp>

#include <functional>

namespace hone::cli {

// Each registers its subcommand; parsing it sets `action` to the command's body.
void register_check(CLI::App& app, std::function<int()>& action);
void register_tune(CLI::App& app, std::function<int()>& action);
void register_show(CLI::App& app, std::function<int()>& action);
void register_devices(CLI::App& app, std::function<int()>& action);

}  // namespace hone::cli
