#include "hone/status.hpp"

#include <array>
#include <utility>

namespace hone {
namespace {

// The names are stored in result databases: never rename one.
constexpr std::array<std::pair<status, const char*>, 9> names{{
    {status::ok, "ok"},
    {status::not_converged, "not_converged"},
    {status::compile_error, "compile_error"},
    {status::compile_timeout, "compile_timeout"},
    {status::device_limits, "device_limits"},
    {status::launch_error, "launch_error"},
    {status::wrong_result, "wrong_result"},
    {status::runtime_fault, "runtime_fault"},
    {status::timeout, "timeout"},
}};

}  // namespace

const char* status_name(status s) {
    for (const auto& [st, name] : names)
        if (st == s) return name;
    return "unknown";
}

std::optional<status> parse_status(std::string_view s) {
    for (const auto& [st, name] : names)
        if (s == name) return st;
    return std::nullopt;
}

}  // namespace hone
