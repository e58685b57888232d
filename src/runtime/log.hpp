// What the kernel handle says on stderr, by HONE_LOG: off | error | warn (default) | info.
// An application's hot path never logs: messages come from first launches and open().
#pragma once
#include <string>

namespace hone::runtime {

enum class log_level { off, error, warn, info };

// HONE_LOG, read once per process; an unknown value is warned about once and means warn.
log_level current_log_level();
// "hone: warning: <text>" (or "hone: error: ", "hone: ") when `level` is enabled.
void log_line(log_level level, const std::string& text);
// True the first time `key` is seen in this process (thread-safe).
bool first_time(const std::string& key);

}  // namespace hone::runtime
