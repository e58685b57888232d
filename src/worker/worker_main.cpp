#include "worker/worker_main.hpp"

#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string_view>
#include <thread>

#include "common/trace.hpp"
#include "compile/compile_worker.hpp"
#include "driver/cuda_api.hpp"
#include "driver/gpu.hpp"
#include "hone/record.hpp"
#include "measure/profiler_timer.hpp"
#include "worker/serve_session.hpp"

namespace hone {
namespace {

constexpr int socket_fd = 3;

bool is_socket(int fd) {
    struct stat st {};
    return ::fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

bool parse_long(std::string_view text, long& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc{} && end == text.data() + text.size();
}

int refuse(const char* program, const std::string& why) {
    fmt::print(stderr,
               "{}: {}.\nThis is hone's worker process (hone {}): libhone starts it to run NVRTC "
               "compiles and GPU work in isolation, and talks to it over a socket at fd 3. It is "
               "not meant to be run by hand; it must be installed beside libhone or named by "
               "$HONE_WORKER.\n",
               program, why, tool_version());
    return 2;
}

}  // namespace

int worker_main(int argc, char** argv, const std::vector<worker_role>& roles) {
    const char* program = argc > 0 ? argv[0] : "hone-worker";
    if (!is_socket(socket_fd)) return refuse(program, "fd 3 is not a socket");
    if (argc < 2) return refuse(program, "no role given");
    const worker_role* role = nullptr;
    for (const auto& r : roles) {
        if (r.name == argv[1]) role = &r;
    }
    if (!role) return refuse(program, fmt::format("unknown role '{}'", argv[1]));
    worker_args args;
    long parent = -1;
    for (int i = 2; i < argc; i += 2) {
        const std::string_view flag = argv[i];
        long value = 0;
        if (i + 1 >= argc || !parse_long(argv[i + 1], value)) {
            return refuse(program, fmt::format("'{}' needs an integer", flag));
        }
        if (flag == "--parent") {
            parent = value;
        } else if (flag == "--device") {
            args.device = static_cast<int>(value);
        } else if (flag == "--warm-profiler") {
            args.warm_profiler = value != 0;
        } else if (flag == "--resident" && value > 0) {
            args.resident_s = static_cast<int>(value);
        } else {
            return refuse(program, fmt::format("unknown option '{}'", flag));
        }
    }
    if (parent <= 0) return refuse(program, "no --parent given");

    // Dies with the thread that spawned it; a parent already gone before this took effect has
    // left the worker to another process.
    if (args.resident_s == 0) ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != static_cast<pid_t>(parent)) return 1;
    std::signal(SIGINT, SIG_IGN);
    std::setvbuf(stdout, nullptr, _IONBF, 0);  // output survives a crash
    int code = 0;
    try {
        role->serve(socket_fd, args);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hone worker: %s\n", e.what());
        code = 70;
    }
    // No exit handlers: the driver's would tear down a context a sticky error has ruined.
    std::fflush(nullptr);
    ::_exit(code);
}

std::vector<worker_role> hone_worker_roles() {
    return {
        {"compile", [](int fd, const worker_args&) { serve_compiles(fd); }},
        {"gpu",
         [](int fd, const worker_args& a) {
             const int reported = a.device;
             if (trace_on()) trace_mark(fmt::format("GPU {}: worker process began", reported));
             cu::prefer_one_work_queue();
             const int ordinal = cu::see_only_device(reported);
             // CUPTI's profiler interface needs no context: initialised beside CUDA's start.
             // Not before it: cuptiProfilerInitialize before cuInit fails (CUPTI_ERROR_UNKNOWN,
             // H200, CUDA 13.0), and the run falls back to events.
             const bool ahead = a.warm_profiler;
             if (ahead)
                 std::thread([reported] {
                     if (trace_on())
                         trace_mark(fmt::format("GPU {}: profiler init begins", reported));
                     profiler_timer::initialize_early();
                     if (trace_on())
                         trace_mark(fmt::format("GPU {}: profiler init ends", reported));
                 }).detach();
             serve_gpu(fd, a.resident_s,
                       [=] { return make_in_process_session(ordinal, ahead, reported); });
         }},
    };
}

}  // namespace hone
