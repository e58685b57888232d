#include "tune/gpu_share.hpp"

#include "tune/gpu_pool.hpp"

namespace hone {

void gpu_share::open(gpu_pool& pool) {
    std::lock_guard lk(m_);
    pool_ = &pool;
}

void gpu_share::close() {
    std::lock_guard lk(m_);
    pool_ = nullptr;
}

bool gpu_share::lend(const std::vector<std::shared_ptr<gpu_session>>& sessions) {
    std::lock_guard lk(m_);
    if (!pool_) return false;
    for (const auto& s : sessions) pool_->join(s);
    return true;
}

bool gpu_share::is_open() const {
    std::lock_guard lk(m_);
    return pool_ != nullptr;
}

}  // namespace hone
