#include "tune/gpu_share.hpp"

#include "hone/final_word.hpp"
#include "tune/gpu_pool.hpp"

namespace hone {

bool worth_lending(std::size_t left, std::size_t gpus, std::size_t lent, bool final_word_due,
                   std::size_t cost) {
    if (lent == 0 || left == 0) return false;
    if (final_word_due || gpus > 1) return true;
    return left * lent > cost * (gpus + lent);
}

std::size_t gpu_share::default_final_word_cost() {
    return static_cast<std::size_t>(final_rounds) * final_max;
}

void gpu_share::open(gpu_pool& pool, std::size_t left, bool final_word_due) {
    std::lock_guard lk(m_);
    pool_ = &pool;
    left_ = left;
    due_ = final_word_due;
}

void gpu_share::progress(std::size_t left, bool final_word_due) {
    std::lock_guard lk(m_);
    left_ = left;
    due_ = final_word_due;
}

void gpu_share::close() {
    std::lock_guard lk(m_);
    pool_ = nullptr;
}

lend_answer gpu_share::lend(const std::vector<std::shared_ptr<gpu_session>>& sessions) {
    std::lock_guard lk(m_);
    if (!pool_) return lend_answer::not_open;
    // GPUs the run has or will have: one set aside or dropped is not one of them.
    if (!worth_lending(left_, pool_->live_count(), sessions.size(), due_, cost_))
        return lend_answer::declined;
    for (const auto& s : sessions) pool_->join(s, [this] { return still_worth(); });
    return lend_answer::lent;
}

bool gpu_share::still_worth() const {
    std::lock_guard lk(m_);
    return pool_ && worth_lending(left_, pool_->ready_count(), 1, due_, cost_);
}

bool gpu_share::is_open() const {
    std::lock_guard lk(m_);
    return pool_ != nullptr;
}

}  // namespace hone
