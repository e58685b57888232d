#include "runtime/log.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string_view>

namespace hone::runtime {

log_level current_log_level() {
    static const log_level level = [] {
        const char* env = std::getenv("HONE_LOG");
        const std::string_view v = env ? env : "";
        if (v.empty() || v == "warn" || v == "warning") return log_level::warn;
        if (v == "off" || v == "none" || v == "0") return log_level::off;
        if (v == "error") return log_level::error;
        if (v == "info" || v == "debug") return log_level::info;
        fmt::print(stderr,
                   "hone: warning: HONE_LOG={} is not a level: expected off, error, warn or info; "
                   "using warn\n",
                   v);
        return log_level::warn;
    }();
    return level;
}

void log_line(log_level level, const std::string& text) {
    if (level == log_level::off || static_cast<int>(level) > static_cast<int>(current_log_level()))
        return;
    const char* tag = level == log_level::error  ? "error: "
                      : level == log_level::warn ? "warning: "
                                                 : "";
    // One write per line, so that lines of several threads do not interleave.
    const std::string line = fmt::format("hone: {}{}\n", tag, text);
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
}

bool first_time(const std::string& key) {
    static std::mutex m;
    static std::set<std::string> seen;
    const std::lock_guard lock(m);
    return seen.insert(key).second;
}

}  // namespace hone::runtime
