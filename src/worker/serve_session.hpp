// The GPU worker's side of the socket (docs/worker-protocol.md, "GPU worker"). Internal.
#pragma once
#include "worker/worker_session.hpp"

namespace hone {

// Serves hello (which calls `factory`), prepare and run on fd until the supervisor closes it,
// or until a job ends with a sticky CUDA error (status::runtime_fault).
void serve_session(int fd, const session_factory& factory);

// A resident worker (process/resident.hpp): serves one client at a time on the connections of
// listen_fd as serve_session does, keeping its session (CUDA context, profiler, loaded
// helpers) from one client to the next and releasing each client's plan when it leaves. Ends
// after idle_s seconds without a client, or after a sticky CUDA error.
void serve_resident(int listen_fd, double idle_s, const session_factory& factory);

// A GPU worker's fd 3 (worker_main's --resident S): serve_resident when resident_s > 0, else
// serve_session.
void serve_gpu(int fd, int resident_s, const session_factory& factory);

}  // namespace hone
