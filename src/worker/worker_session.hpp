// The supervised GPU session (make_worker_session in gpu.hpp), open to any worker command so
// that tests can supervise a scripted session of their own.
#pragma once
#include <functional>
#include <memory>

#include "driver/gpu.hpp"
#include "process/worker_process.hpp"

namespace hone {

// What a GPU worker runs at hello to make its session (serve_session).
using session_factory = std::function<std::unique_ptr<gpu_session>()>;

// Starts the worker process `cmd` (make_worker_session: `hone-worker gpu --device N`), which
// serves hello/prepare/run over its socket (docs/worker-protocol.md). A job
// past its deadline_s is killed (status::timeout); a worker that dies or reports a sticky CUDA
// error (status::runtime_fault) is replaced, and the last plan is prepared again in the new
// one before the next job. Errors of prepare() in the worker are rethrown here with their type.
std::unique_ptr<gpu_session> make_supervised_session(worker_command cmd);

// $HONE_KEEP_WORKERS: how long a GPU worker stays resident after a command, for the next one
// to reuse (0 or unset: not at all; process/resident.hpp). env_error for a value that is not
// whole seconds.
int keep_workers_s();

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
