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

// A configuration may run this many times slower per launch than the verify reference before
// the watchdog takes it for hung (vector_add's slowest is ~4x its fastest, SGEMM's ~2.5x).
constexpr double watchdog_slowdown = 100.0;

// The watchdog's deadline for one job: timing.timeout_s (the floor: module load, and kernels
// with no reference to go by) + the warm-up and sampling budgets + what the launches those
// budgets cannot cut short (the verified one, the first round of min_samples, the last of the
// warm-up and of the samples) take if each is watchdog_slowdown x the reference's time
// (reference_us; 0 when there is no reference).
double job_deadline_s(const timing_spec& t, double reference_us);

}  // namespace hone
