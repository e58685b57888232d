// GPUs lent between the runs of one command (`hone tune` over several problem sizes): a run
// opens itself once its GPUs are prepared, GPUs that have run out of sizes join it, and it
// closes when its search ends. Sizes are dealt whole to teams of GPUs; without lending, the
// teams that finish first would wait idle for the last sizes.
#pragma once
#include <memory>
#include <mutex>
#include <vector>

namespace hone {

class gpu_pool;
class gpu_session;

class gpu_share {
  public:
    // The run's side: joins go to `pool` until close(); close() returns once none is under way.
    void open(gpu_pool& pool);
    void close();
    // The lender's side: the sessions join the open run's pool and stay in it until the run
    // ends; false, with nothing lent, when the run is not open (not yet, or no longer).
    bool lend(const std::vector<std::shared_ptr<gpu_session>>& sessions);
    bool is_open() const;

  private:
    mutable std::mutex m_;
    gpu_pool* pool_ = nullptr;
};

}  // namespace hone
