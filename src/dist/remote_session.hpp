// GPUs of other MPI ranks as gpu_sessions of rank 0 (docs/distributed.md, "MPI"), and their
// compile pools as remote_compilers of rank 0's. Rank 0 owns the strategy, the compile pool and
// the database: what its own compile workers cannot take at once goes to another rank's pool;
// each job travels with its CUBIN to the rank whose GPU measures it; the result travels back and
// is stored by rank 0 as it arrives. Every other rank serves its local GPUs' sessions until rank 0
// says bye.
//
// Messages (JSON of worker/protocol.hpp, CBOR on the wire), rank 0 -> rank r, and the answers:
//   {type: hello, gpus, compile, cache_dir}
//                                        -> {type: hello, host, devices: [{info, isolated}],
//                                            compile_jobs}
//   {type: compile, slot: -2, id, request, timeout_s}
//                                        -> {type: compiled, slot: -2, id, result}  (any order)
//   {type: prepare, slot, plan}          -> {type: prepared, slot, report}
//   {type: job, slot, job}               -> {type: result, slot, result}   (in order per slot)
//   {type: bye}                          -> the rank stops serving
// Any request may be answered {type: error, slot, kind, message, ...} (error_reply): rank 0
// rethrows it with the rank named.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compile/remote_compiler.hpp"
#include "dist/mpi_link.hpp"
#include "driver/gpu.hpp"

namespace hone {

// What rank 0 asks of the other ranks: their GPUs (none for a run that only compiles), their
// compile pools (compiling what rank 0's own workers cannot take at once, into their caches at
// cache_dir, "" for their default).
struct rank_hello {
    bool gpus = true;
    bool compile = true;
    std::string cache_dir;
};

struct rank_links {
    std::vector<std::shared_ptr<gpu_session>> sessions;       // every GPU of the other ranks
    std::vector<std::shared_ptr<remote_compiler>> compilers;  // one a rank that compiles
};

// Rank 0: says hello to every other rank, runs `meanwhile` (rank 0 opens its own GPUs while the
// others open theirs: each opening starts a worker and CUDA, ~1 s), and returns a session for
// each GPU they serve, in rank order, and their compile pools. env_error when a rank answers
// with an error (its GPUs could not be opened).
rank_links connect_ranks(const std::shared_ptr<mpi_link>& link, const rank_hello& hello,
                         const std::function<void()>& meanwhile);

// Rank 0: tells every other rank to stop serving (at the end of the run, or when it fails).
void release_ranks(mpi_link& link);

// Every other rank: serves the sessions `open` returns (called at once, before rank 0's hello,
// and again for a later hello; an exception is sent to rank 0 as the answer to its hello) until
// rank 0 says bye.
using session_list_factory = std::function<std::vector<std::shared_ptr<gpu_session>>()>;
void serve_rank(mpi_link& link, const session_list_factory& open);

}  // namespace hone
