#include "cli/commands.hpp"

#include "cli/commands_internal.hpp"

namespace hone::cli {
namespace {
std::function<int()> g_action;
}

void register_commands(CLI::App& app) {
    register_tune(app, g_action);
    register_check(app, g_action);
    register_show(app, g_action);
    register_devices(app, g_action);
    register_workers(app, g_action);
    register_export(app, g_action);
    register_selection_quality(app, g_action);
    register_import(app, g_action);
    register_report(app, g_action);
    register_space(app, g_action);
    register_import_t1(app, g_action);
    register_replay(app, g_action);
    register_merge(app, g_action);
}

int run_selected(CLI::App&) {
    return g_action ? g_action() : 2;
}

}  // namespace hone::cli
