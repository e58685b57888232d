// GPUs lent between the runs of one command (`hone tune` over several problem sizes): a run
// opens itself once its GPUs are prepared, GPUs that have run out of sizes join it, and it
// closes when its search ends. Sizes are dealt whole to teams of GPUs; without lending, the
// teams that finish first would wait idle for the last sizes.
#pragma once
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace hone {

class gpu_pool;
class gpu_session;

enum class lend_answer { lent, not_open, declined };

class gpu_share {
  public:
    // final_word_cost: what a run's final word costs, in evaluations (worth_lending).
    explicit gpu_share(std::size_t final_word_cost = default_final_word_cost())
        : cost_(final_word_cost) {}
    static std::size_t default_final_word_cost();
    // The run's side: joins go to `pool` until close(); close() returns once none is under way.
    // `left`: the evaluations still to run; `final_word_due`: its results come from several
    // GPUs already (progress() updates both as results come).
    void open(gpu_pool& pool, std::size_t left, bool final_word_due);
    void progress(std::size_t left, bool final_word_due);
    void close();
    // The lender's side: the sessions join the open run's pool and stay in it until the run
    // ends (lent); not_open when the run is not open (not yet, or no longer); declined when
    // they would cost the run more than they save (worth_lending). A lent session asks again
    // once it is prepared, with what is left then, and is set aside (measures nothing for this
    // run) when the run has come too near its end meanwhile or its search has ended.
    lend_answer lend(const std::vector<std::shared_ptr<gpu_session>>& sessions);
    bool is_open() const;

  private:
    bool still_worth() const;  // one more prepared GPU, now

    mutable std::mutex m_;
    gpu_pool* pool_ = nullptr;
    std::size_t cost_;
    std::size_t left_ = 0;
    bool due_ = false;
};

// Whether `lent` GPUs joining a run on `gpus` GPUs with `left` evaluations to go shorten it. A run
// measured on one GPU so far needs no final word; once another GPU measures its finalists it
// does, and that costs `cost` evaluations on one GPU after the search (final_rounds x
// final_max: near the end of a run the finalists are all ties as a rule). The lent GPUs save
// left x lent / (gpus + lent) evaluations' worth of the run's time.
bool worth_lending(std::size_t left, std::size_t gpus, std::size_t lent, bool final_word_due,
                   std::size_t cost);

}  // namespace hone
