// hone devices: the GPUs and the attributes that expressions can use.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands_internal.hpp"
#include "driver/gpu.hpp"

namespace hone::cli {
namespace {

int run_devices(bool json) {
    const std::vector<device_info> devices = list_devices();
    nlohmann::json out = nlohmann::json::array();
    for (const auto& d : devices) {
        bindings b;
        d.attrs.add_to(b);
        if (json) {
            nlohmann::json j{{"ordinal", d.ordinal},
                             {"name", d.attrs.name},
                             {"uuid", d.uuid},
                             {"arch", d.attrs.arch()},
                             {"driver_version", d.driver_version},
                             {"free_mem", d.free_mem}};
            for (const auto& [k, v] : b) j["attributes"][k] = display_text(v);
            out.push_back(j);
            continue;
        }
        fmt::print("#{} {} ({}), {}, driver {}.{}, {:.1f} GiB free of {:.1f} GiB\n", d.ordinal,
                   d.attrs.name, d.attrs.arch(), d.uuid, d.driver_version / 1000,
                   (d.driver_version % 1000) / 10, static_cast<double>(d.free_mem) / (1 << 30),
                   static_cast<double>(d.attrs.total_mem) / (1 << 30));
        for (const auto& [k, v] : b) fmt::print("    {:<28} {}\n", k, display_text(v));
    }
    if (json) std::cout << out.dump(2) << "\n";
    return 0;
}

}  // namespace

void register_devices(CLI::App& app, std::function<int()>& action) {
    auto json = std::make_shared<bool>(false);
    CLI::App* c = app.add_subcommand("devices",
                                     "List GPUs with the attributes that config "
                                     "expressions can use (needs a driver)");
    c->add_flag("--json", *json, "Machine-readable output");
    c->callback([json, &action] { action = [json] { return run_devices(*json); }; });
}

}  // namespace hone::cli
