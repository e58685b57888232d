// hone workers: the resident GPU workers that `--keep-workers` left (process/resident.hpp).
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands_internal.hpp"
#include "process/resident.hpp"

namespace hone::cli {
namespace {

int run_workers(bool stop, bool json) {
    const std::string dir = resident_dir();
    if (dir.empty()) {
        fmt::print(stderr,
                   "hone: no folder for resident workers (HONE_RESIDENT_DIR, "
                   "XDG_RUNTIME_DIR/hone or /tmp/hone-UID, owned by this user, mode 0700)\n");
        return 3;
    }
    const int stopped = stop ? stop_idle_residents(dir) : 0;
    const std::vector<resident_info> left = list_residents(dir);
    if (json) {
        nlohmann::json out{
            {"folder", dir}, {"stopped", stopped}, {"workers", nlohmann::json::array()}};
        for (const auto& r : left)
            out["workers"].push_back(
                {{"socket", r.socket}, {"serves", r.what}, {"busy", r.busy}, {"pid", r.pid}});
        std::cout << out.dump(2) << "\n";
        return 0;
    }
    if (stop) fmt::print("stopped {} idle resident worker{}\n", stopped, stopped == 1 ? "" : "s");
    if (left.empty() && !stop) fmt::print("no resident workers in {}\n", dir);
    for (const auto& r : left) {
        fmt::print("{}  {}\n  {}\n",
                   r.busy ? std::string("busy (a command is using it)")
                          : fmt::format("idle, pid {}", r.pid),
                   r.socket, r.what.empty() ? "(what it serves is not recorded)" : r.what);
    }
    return 0;
}

}  // namespace

void register_workers(CLI::App& app, std::function<int()>& action) {
    auto stop = std::make_shared<bool>(false);
    auto json = std::make_shared<bool>(false);
    CLI::App* c = app.add_subcommand(
        "workers", "List (or stop) the resident GPU workers that `hone tune --keep-workers` left");
    c->footer(
        R"(A resident GPU worker keeps its CUDA context and profiler between commands, so that the
next `hone tune` on that GPU skips their start (~1 s a GPU, more when several start at once).
It holds GPU memory while it waits and ends by itself after the idle seconds given to
--keep-workers (or $HONE_KEEP_WORKERS). A command that finds one busy starts a worker of its
own. --stop ends the idle ones now (a busy one ends when its command is done and its time is up).

Examples:
  hone tune configs/vector_add.yaml --keep-workers 600
  hone workers
  hone workers --stop)");
    c->add_flag("--stop", *stop, "End the idle resident workers now");
    c->add_flag("--json", *json, "Machine-readable output");
    c->callback(
        [stop, json, &action] { action = [stop, json] { return run_workers(*stop, *json); }; });
}

}  // namespace hone::cli
