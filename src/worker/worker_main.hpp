// The worker's side of worker_process: what hone-worker's main() runs (and the unit tests'
// binary, with roles of its own). Internal to libhone.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace hone {

struct worker_args {
    int device = 0;             // --device N: the GPU worker's ordinal
    bool warm_profiler = true;  // --warm-profiler 0|1: enable the range profiler ahead
    int resident_s = 0;         // --resident S: fd 3 listens for clients; ends after S idle seconds
};

struct worker_role {
    std::string name;
    // Serves requests on fd until the supervisor closes it; the process exits when it returns
    // (code 0), or with code 70 when it throws.
    std::function<void(int fd, const worker_args& args)> serve;
};

// argv: <program> ROLE --parent PID [--device N] [--warm-profiler 0|1] [--resident S]. Refuses
// with exit code 2 and a message that says what the program is when fd 3 is not a socket or the
// arguments are not hone's. Otherwise arranges to die with the parent (which must be PID; not a
// resident, which outlives it: process/resident.hpp), ignores SIGINT (Ctrl-C reaches the whole
// process group: the supervisor decides what stops), serves ROLE on fd 3, and ends the process
// with _exit (no exit handlers).
int worker_main(int argc, char** argv, const std::vector<worker_role>& roles);

// The roles of hone-worker: "compile" (NVRTC) and "gpu" (the in-process GPU session; with
// --resident, serve_resident).
std::vector<worker_role> hone_worker_roles();

}  // namespace hone
