#include "common/trace.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace hone {
namespace {

// Set when the library is loaded: before main, near the process's start.
const auto g_start = std::chrono::steady_clock::now();
thread_local std::string t_label;

}  // namespace

bool trace_on() {
    static const bool on = [] {
        const char* v = std::getenv("HONE_TRACE");
        return v && *v && std::strcmp(v, "0") != 0;
    }();
    return on;
}

namespace {

// HONE_TRACE=PATH (a value with a '/') appends the lines to that file instead of stderr: the
// GPU workers inherit it, whose stderr is a log the user never sees, and the processes of one
// command (ranks, workers) share one timeline. Lines of one write() each stay whole (O_APPEND).
int trace_fd() {
    static const int fd = [] {
        const char* v = std::getenv("HONE_TRACE");
        if (!v || !std::strchr(v, '/')) return 2;
        const int f = ::open(v, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        return f >= 0 ? f : 2;
    }();
    return fd;
}

}  // namespace

trace_label::trace_label(std::string label) : outer_(std::exchange(t_label, std::move(label))) {}
trace_label::~trace_label() {
    t_label = std::move(outer_);
}
const std::string& trace_label::current() {
    return t_label;
}

void trace_mark(std::string_view what) {
    if (!trace_on()) return;
    std::string labelled;
    if (!t_label.empty()) {
        labelled = t_label + ": " + std::string(what);
        what = labelled;
    }
    const double unix_s =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const double since =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - g_start).count();
    // One write a line, so that the lines of threads and processes do not interleave.
    char line[512];
    const int n =
        std::snprintf(line, sizeof line, "hone-trace %.6f %.6f %.*s\n", unix_s, since,
                      static_cast<int>(std::min<std::size_t>(what.size(), 400)), what.data());
    if (n <= 0) return;
    const int fd = trace_fd();
    if (fd == 2) std::fflush(stderr);
    [[maybe_unused]] const ssize_t w =
        ::write(fd, line, std::min<std::size_t>(static_cast<std::size_t>(n), sizeof line - 1));
}

}  // namespace hone
