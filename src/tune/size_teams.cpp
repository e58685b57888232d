#include "tune/size_teams.hpp"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "tune/gpu_share.hpp"

namespace hone {
namespace {

struct size_run {
    gpu_share share;
    bool started = false, ended = false;
    std::vector<int> gpus;  // its team's, then those lent to it
};

std::vector<int> ordinals(const session_list& team) {
    std::vector<int> out;
    for (const auto& s : team) out.push_back(s->device().ordinal);
    return out;
}

class scheduler {
  public:
    // The first sizes are dealt before any team starts, team t the t-th, so that which team
    // runs which size does not depend on which thread the system starts first.
    explicit scheduler(const size_teams_job& job) : job_(job), runs_(job.order.size()) {
        for (std::size_t t = 0; t < job_.teams.size() && next_ < job_.order.size(); ++t)
            first_.push_back(deal(t));
    }

    void run() {
        std::vector<std::thread> threads;
        for (std::size_t t = 0; t < job_.teams.size(); ++t)
            threads.emplace_back([this, t] { team(t); });
        for (auto& th : threads) th.join();
        if (error_) std::rethrow_exception(error_);
    }

  private:
    bool stopping() const { return (job_.stop && *job_.stop) || error_; }

    // The next size, started on team t; the caller holds m_ (or no thread runs yet).
    std::size_t deal(std::size_t t) {
        const std::size_t i = job_.order[next_++];
        runs_[i].started = true;
        runs_[i].gpus = ordinals(job_.teams[t]);
        return i;
    }

    void team(std::size_t t) {
        for (bool first = t < first_.size();; first = false) {
            std::size_t i = 0;
            {
                std::unique_lock lock(m_);
                if (stopping()) {
                    if (first) {  // dealt, never run
                        runs_[first_[t]].ended = true;
                        changed_.notify_all();
                    }
                    return;
                }
                if (first) {
                    i = first_[t];
                } else if (next_ == job_.order.size()) {
                    if (lend(t, lock)) continue;
                    return;
                } else {
                    i = deal(t);
                }
            }
            try {
                job_.run(i, job_.teams[t], runs_[i].share);
            } catch (...) {
                std::lock_guard lock(m_);
                runs_[i].ended = true;
                if (!error_) error_ = std::current_exception();
                changed_.notify_all();
                return;
            }
            std::lock_guard lock(m_);
            runs_[i].ended = true;
            changed_.notify_all();
            if (job_.ended) job_.ended(i, runs_[i].gpus);
        }
    }

    // With no size left: lends team t to a run still searching and waits for that run's end.
    // False when no run is left to lend to, or none that the team would shorten (a run that
    // declines does so for good: its evaluations left only fall).
    bool lend(std::size_t t, std::unique_lock<std::mutex>& lock) {
        std::vector<bool> declined(runs_.size(), false);
        for (;;) {
            if (stopping()) return false;
            std::size_t pick = runs_.size();
            bool waiting = false;  // a run that may still take the team once open
            for (std::size_t i = 0; i < runs_.size(); ++i) {
                if (!runs_[i].started || runs_[i].ended || declined[i]) continue;
                if (!runs_[i].share.is_open()) {
                    waiting = true;
                    continue;
                }
                if (pick == runs_.size() || runs_[i].gpus.size() < runs_[pick].gpus.size() ||
                    (runs_[i].gpus.size() == runs_[pick].gpus.size() &&
                     job_.weight[i] > job_.weight[pick]))
                    pick = i;
            }
            if (pick == runs_.size()) {
                if (!waiting) return false;
                // A run not open yet (preparing) or no longer (its final word): look again soon.
                changed_.wait_for(lock, std::chrono::milliseconds(20));
                continue;
            }
            const lend_answer a = runs_[pick].share.lend(job_.teams[t]);
            if (a == lend_answer::declined) declined[pick] = true;
            if (a != lend_answer::lent) continue;
            for (int g : ordinals(job_.teams[t])) runs_[pick].gpus.push_back(g);
            changed_.wait(lock, [&] { return runs_[pick].ended; });
            return true;
        }
    }

    const size_teams_job& job_;
    std::vector<size_run> runs_;
    std::mutex m_;
    std::condition_variable changed_;  // a run ended
    std::size_t next_ = 0;
    std::vector<std::size_t> first_;  // team t's first size, dealt before the teams start
    std::exception_ptr error_;
};

}  // namespace

void run_size_teams(const size_teams_job& job) {
    scheduler(job).run();
}

}  // namespace hone
