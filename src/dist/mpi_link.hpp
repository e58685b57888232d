// MPI for hone, loaded at run time: libhone_mpi.so (plugins/mpi) is opened with dlopen only when
// a run asks for MPI, so that hone neither links nor needs MPI otherwise. Messages are the JSON
// forms of worker/protocol.hpp, CBOR-encoded, between rank 0 and the others.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace hone {

// Whether an MPI launcher (mpirun, srun with PMI or PMIx) started this process, by the variables
// it sets; and the number of ranks it started (0 when it does not say).
bool launched_by_mpi();
int launcher_world_size();
// This rank's place among the ranks on its host (local rank, local size), as the launcher's
// environment gives it before MPI starts; nullopt where it does not.
std::optional<std::pair<int, int>> launcher_local_rank();

// Where libhone_mpi.so is looked for: $HONE_MPI_PLUGIN when set, else beside the hone
// executable, in ../lib and ../lib/hone from it, then the library path.
std::vector<std::string> mpi_plugin_candidates();

class mpi_link {
  public:
    // Loads the plugin and initialises MPI. `why` says what asked for MPI (for the messages).
    // env_error, saying what is missing and how to get it, when the plugin or MPI's library
    // cannot be loaded or MPI does not start.
    static std::shared_ptr<mpi_link> open(const std::string& why);
    ~mpi_link();  // MPI_Finalize
    mpi_link(const mpi_link&) = delete;
    mpi_link& operator=(const mpi_link&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }
    int local_rank() const { return local_rank_; }  // among the ranks on this host
    int local_size() const { return local_size_; }

    // Thread-safe: every MPI call is made under one lock (MPI_THREAD_SERIALIZED).
    void send(int dest, const nlohmann::json& message);
    // The next message from `source` (-1: any rank) with its sender, waiting up to timeout_s
    // (< 0: without end); nullopt when none came.
    std::optional<std::pair<int, nlohmann::json>> receive(int source, double timeout_s);
    [[noreturn]] void abort(int code);

    struct api;

  private:
    mpi_link() = default;
    std::unique_ptr<api> api_;
    void* handle_ = nullptr;
    int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
    std::mutex m_;
};

// The GPU ordinals of `ordinals` that the rank `local_rank` of `local_size` on one host takes:
// every local_size-th from its local rank on, so that the host's GPUs are shared out.
std::vector<int> local_share(const std::vector<int>& ordinals, int local_rank, int local_size);

}  // namespace hone
