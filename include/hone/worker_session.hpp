// The supervised GPU session (make_worker_session in gpu.hpp), open to any session factory so
// that tests and embedders can supervise a session of their own.
#pragma once
#include <functional>
#include <memory>

#include "hone/gpu.hpp"

namespace hone {

using session_factory = std::function<std::unique_ptr<gpu_session>()>;

// Starts a worker process that calls `factory` and serves prepare/run over its socket. A job
// past its deadline_s is killed (status::timeout); a worker that dies or reports a sticky CUDA
// error (status::runtime_fault) is replaced, and the last plan is prepared again in the new
// one before the next job. Errors of prepare() in the worker are rethrown here with their type.
std::unique_ptr<gpu_session> make_supervised_session(session_factory factory);

}  // namespace hone
