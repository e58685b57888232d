#include "hone/record.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/digest.hpp"
#include "hone/error.hpp"
#include "record/params_json.hpp"

namespace hone {

std::string run_identity::id() const {
    // The leading tag versions the recipe: changing the fields must not collide with old ids.
    digest d;
    d.add("run_identity/1").add(kernel_name).add(source_hash).add(spec_hash).add(problem);
    d.add(device_name).add(device_uuid).add(arch).add(std::to_string(driver_version));
    d.add(nvrtc_version).add(tool_version);
    if (!origin.empty()) d.add("origin").add(origin);  // measured runs keep their old ids
    return d.hex();
}

bool same_subject(const run_identity& a, const run_identity& b) {
    return a.config_path == b.config_path && a.kernel_name == b.kernel_name &&
           a.problem == b.problem && a.device_uuid == b.device_uuid && a.origin == b.origin;
}

std::string describe_change(const run_identity& older, const run_identity& newer) {
    std::vector<std::string> what;
    auto version = [&](const char* name, const std::string& a, const std::string& b) {
        if (a != b) what.push_back(fmt::format("{} ({} -> {})", name, a, b));
    };
    if (older.source_hash != newer.source_hash) what.emplace_back("source");
    if (older.spec_hash != newer.spec_hash) what.emplace_back("config");
    version("NVRTC", older.nvrtc_version, newer.nvrtc_version);
    version("driver", std::to_string(older.driver_version), std::to_string(newer.driver_version));
    version("hone", older.tool_version, newer.tool_version);
    if (older.device_name != newer.device_name || older.arch != newer.arch)
        what.emplace_back("device");
    if (what.empty()) what.emplace_back("identity");
    std::string list;
    for (std::size_t i = 0; i < what.size(); ++i)
        list += (i == 0 ? "" : i + 1 == what.size() ? " and " : ", ") + what[i];
    return list + " changed since the stored results: re-measuring";
}

std::string tool_version() {
    return HONE_VERSION;
}

nlohmann::ordered_json params_to_json(const param_list& params) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const auto& p : params) {
        std::visit([&](const auto& x) { j[p.first] = x; }, p.second);
    }
    return j;
}

param_list params_from_json(const nlohmann::ordered_json& j) {
    if (!j.is_object())
        throw env_error(fmt::format("parameters are not a JSON object: {}", j.dump()));
    param_list out;
    for (const auto& [name, x] : j.items()) {
        if (x.is_boolean()) {
            out.emplace_back(name, x.get<bool>());
        } else if (x.is_number_integer()) {
            out.emplace_back(name, x.get<int64_t>());
        } else if (x.is_number_float()) {
            out.emplace_back(name, x.get<double>());
        } else if (x.is_string()) {
            out.emplace_back(name, x.get<std::string>());
        } else {
            throw env_error(fmt::format("parameter {} has no scalar value: {}", name, x.dump()));
        }
    }
    return out;
}

}  // namespace hone
