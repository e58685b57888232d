// GPUs of other MPI ranks as gpu_sessions of rank 0 (docs/distributed.md, "MPI"). Rank 0 owns
// the strategy, the compile pool and the database: it compiles, and each job travels with its
// CUBIN to the rank whose GPU measures it; the result travels back and is stored by rank 0 as
// it arrives. Every other rank serves its local GPUs' sessions until rank 0 says bye.
//
// Messages (JSON of worker/protocol.hpp, CBOR on the wire), rank 0 -> rank r, and the answers:
//   {type: hello}                        -> {type: hello, host, devices: [{info, isolated}]}
//   {type: prepare, slot, plan}          -> {type: prepared, slot, report}
//   {type: job, slot, job}               -> {type: result, slot, result}   (in order per slot)
//   {type: bye}                          -> the rank stops serving
// Any request may be answered {type: error, slot, kind, message, ...} (error_reply): rank 0
// rethrows it with the rank named.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "dist/mpi_link.hpp"
#include "driver/gpu.hpp"

namespace hone {

// Rank 0: says hello to every other rank and returns a session for each GPU they serve, in rank
// order. env_error when a rank answers with an error (its GPUs could not be opened).
std::vector<std::shared_ptr<gpu_session>> connect_ranks(const std::shared_ptr<mpi_link>& link);

// Rank 0: tells every other rank to stop serving (at the end of the run, or when it fails).
void release_ranks(mpi_link& link);

// Every other rank: serves the sessions `open` returns (called on rank 0's hello; an exception
// is sent to rank 0 as the answer) until rank 0 says bye.
using session_list_factory = std::function<std::vector<std::shared_ptr<gpu_session>>()>;
void serve_rank(mpi_link& link, const session_list_factory& open);

}  // namespace hone
