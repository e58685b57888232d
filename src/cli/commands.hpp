// The subcommands: each registers its options and runs over the library.
#pragma once
#include <CLI/CLI.hpp>

namespace hone::cli {

void register_commands(CLI::App& app);
int run_selected(CLI::App& app);

}  // namespace hone::cli
