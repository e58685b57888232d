// The GPU worker's side of the socket (docs/worker-protocol.md, "GPU worker"). Internal.
#pragma once
#include "worker/worker_session.hpp"

namespace hone {

// Serves hello (which calls `factory`), prepare and run on fd until the supervisor closes it,
// or until a job ends with a sticky CUDA error (status::runtime_fault).
void serve_session(int fd, const session_factory& factory);

}  // namespace hone
