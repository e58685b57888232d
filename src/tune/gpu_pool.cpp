// Each session of several is driven from a thread of its own, since collect() blocks until its
// oldest job is done: the thread hands over what it is given as soon as the session can take
// it, collects, and queues the result for the pipeline's thread, the only one that talks to
// the strategy, the compile pool and the store. One session is driven from the caller's
// thread, as a single-GPU run always was: with nothing else to wait for, collect() is the wait.
#include "tune/gpu_pool.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "common/trace.hpp"
#include "hone/error.hpp"

namespace hone {

gpu_pool::gpu_pool(std::vector<std::shared_ptr<gpu_session>> sessions, say_fn say, bool joinable)
    : say_(std::move(say)),
      threaded_(sessions.size() > 1 || joinable),
      trace_label_(trace_label::current()) {
    for (std::size_t i = 0; i < sessions.size(); ++i) {
        auto sl = std::make_unique<slot>();
        sl->s = std::move(sessions[i]);
        sl->index = i;
        sl->depth = std::max<std::size_t>(1, sl->s->max_in_flight());
        slots_.push_back(std::move(sl));
    }
    if (threaded())
        for (auto& sl : slots_) sl->thread = std::thread([this, p = sl.get()] { serve(*p); });
}

gpu_pool::~gpu_pool() {
    {
        std::lock_guard lk(m_);
        stopping_ = true;
        for (auto& sl : slots_) {
            sl->assigned -= sl->inbox.size();
            sl->inbox.clear();
        }
    }
    work_.notify_all();
    for (auto& sl : slots_)
        if (sl->thread.joinable()) sl->thread.join();
}

std::string gpu_pool::describe(const slot& sl) const {
    const device_info& d = sl.s->device();
    return fmt::format("GPU {} ({})", d.ordinal, d.uuid.empty() ? d.attrs.name : d.uuid);
}

std::size_t gpu_pool::size() const {
    std::lock_guard lk(m_);
    return slots_.size();
}

gpu_session& gpu_pool::session(std::size_t i) const {
    std::lock_guard lk(m_);
    return *slots_.at(i)->s;
}

std::size_t gpu_pool::depth(std::size_t i) const {
    std::lock_guard lk(m_);
    return slots_.at(i)->depth;
}

bool gpu_pool::live(std::size_t i) const {
    std::lock_guard lk(m_);
    return !slots_[i]->dropped;
}

std::size_t gpu_pool::live_count() const {
    std::lock_guard lk(m_);
    std::size_t n = 0;
    for (const auto& sl : slots_) n += sl->dropped ? 0 : 1;
    return n;
}

std::size_t gpu_pool::first_live() const {
    std::lock_guard lk(m_);
    for (const auto& sl : slots_)
        if (!sl->dropped && sl->ready) return sl->index;
    return slots_.size();
}

std::vector<std::string> gpu_pool::dropped() const {
    std::lock_guard lk(m_);
    std::vector<std::string> out;
    for (const auto& sl : slots_)
        if (sl->dropped && !sl->aside) out.push_back(describe(*sl) + ": " + sl->reason);
    return out;
}

std::size_t gpu_pool::ready_count() const {
    std::lock_guard lk(m_);
    std::size_t n = 0;
    for (const auto& sl : slots_) n += !sl->dropped && sl->ready ? 1 : 0;
    return n;
}

std::vector<std::optional<prepare_report>> gpu_pool::prepare(const run_plan& plan) {
    {
        std::lock_guard lk(m_);
        plan_ = plan;
    }
    std::vector<std::optional<prepare_report>> reports(slots_.size());
    if (!threaded()) {
        reports[0] = slots_[0]->s->prepare(plan);  // its error is the run's
        return reports;
    }
    std::vector<std::exception_ptr> errors(slots_.size());
    {
        std::unique_lock lk(m_);
        for (auto& sl : slots_) {
            sl->prepared.reset();
            sl->prepare_error = nullptr;
            sl->prepare_due = !sl->dropped;
        }
        work_.notify_all();
        done_cv_.wait(lk, [&] {
            return std::none_of(slots_.begin(), slots_.end(),
                                [](const auto& sl) { return sl->prepare_due && !sl->dropped; });
        });
        for (std::size_t i = 0; i < slots_.size(); ++i) {
            reports[i] = std::move(slots_[i]->prepared);
            errors[i] = slots_[i]->prepare_error;
        }
    }
    std::exception_ptr first;
    std::size_t ok = 0;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
        if (!errors[i]) {
            ok += reports[i] ? 1 : 0;
            continue;
        }
        if (!first) first = errors[i];
        std::string why;
        try {
            std::rethrow_exception(errors[i]);
        } catch (const std::exception& e) {
            why = e.what();
        }
        std::lock_guard lk(m_);
        drop(*slots_[i], "prepare failed: " + why);
    }
    if (ok == 0 && first) std::rethrow_exception(first);
    return reports;
}

std::size_t gpu_pool::room() const {
    if (!threaded()) {
        const slot& sl = *slots_[0];
        const std::size_t cap = std::max<std::size_t>(1, sl.s->max_in_flight());
        return cap > sl.inside.size() ? cap - sl.inside.size() : 0;
    }
    std::lock_guard lk(m_);
    std::size_t n = 0;
    for (const auto& sl : slots_)
        if (!sl->dropped && sl->ready && sl->assigned < sl->depth) n += sl->depth - sl->assigned;
    return n;
}

std::size_t gpu_pool::capacity() const {
    std::lock_guard lk(m_);
    std::size_t n = 0;
    for (const auto& sl : slots_) n += sl->dropped || !sl->ready ? 0 : sl->depth;
    return n;
}

void gpu_pool::submit(uint64_t tag, job j) {
    if (!threaded()) {
        slot& sl = *slots_[0];
        sl.s->submit(j);
        sl.inside.emplace_back(tag, std::move(j));
        ++outstanding_;
        return;
    }
    std::unique_lock lk(m_);
    slot* best = nullptr;
    auto room_of = [](const slot& sl) {
        return sl.assigned < sl.depth ? sl.depth - sl.assigned : std::size_t{0};
    };
    for (auto& sl : slots_) {
        if (sl->dropped || !sl->ready) continue;
        // The most room; among equals the least loaded, then the first.
        if (!best || room_of(*sl) > room_of(*best) ||
            (room_of(*sl) == room_of(*best) && sl->assigned < best->assigned))
            best = sl.get();
    }
    ++outstanding_;
    if (!best) {  // every session was dropped since room() was asked: lost at once
        done_.push_back({tag, 0, std::nullopt});
        return;
    }
    best->inbox.emplace_back(tag, std::move(j));
    ++best->assigned;
    gpu_session& s = *best->s;
    lk.unlock();
    work_.notify_all();
    s.wake();  // its thread may be waiting for the GPU with room for this job
}

void gpu_pool::submit_to(std::size_t i, uint64_t tag, job j) {
    if (!threaded()) throw std::logic_error("gpu_pool::submit_to with one session");
    std::unique_lock lk(m_);
    slot& sl = *slots_.at(i);
    ++outstanding_;
    if (sl.dropped) {  // dropped since the caller looked: lost at once
        done_.push_back({tag, i, std::nullopt});
        return;
    }
    sl.inbox.emplace_back(tag, std::move(j));
    ++sl.assigned;
    lk.unlock();
    work_.notify_all();
    sl.s->wake();
}

std::optional<gpu_done> gpu_pool::wait(double timeout_s, bool on_room) {
    if (outstanding_ == 0) throw std::logic_error("gpu_pool::wait with nothing in flight");
    if (!threaded()) {
        slot& sl = *slots_[0];
        gpu_done d;
        d.tag = sl.inside.front().first;
        d.result = sl.s->collect();
        sl.inside.pop_front();
        --outstanding_;
        return d;
    }
    std::unique_lock lk(m_);
    const auto ready = [&] { return !done_.empty() || (on_room && grown_); };
    if (timeout_s < 0)
        done_cv_.wait(lk, ready);
    else if (!done_cv_.wait_for(lk, std::chrono::duration<double>(timeout_s), ready))
        return std::nullopt;
    if (done_.empty()) {
        grown_ = false;
        return std::nullopt;
    }
    gpu_done d = std::move(done_.front());
    done_.pop_front();
    --outstanding_;
    return d;
}

void gpu_pool::abandon() {
    if (!threaded()) {
        while (outstanding_ > 0) wait();
        return;
    }
    {
        std::lock_guard lk(m_);
        for (auto& sl : slots_) {
            outstanding_ -= sl->inbox.size();
            sl->assigned -= sl->inbox.size();
            sl->inbox.clear();
        }
    }
    while (outstanding_ > 0) wait();
}

void gpu_pool::join(std::shared_ptr<gpu_session> s, std::function<bool()> wanted) {
    if (!threaded_) throw std::logic_error("gpu_pool::join on a pool that is not joinable");
    std::lock_guard lk(m_);
    if (!plan_) throw std::logic_error("gpu_pool::join before prepare");
    if (stopping_) return;
    auto sl = std::make_unique<slot>();
    sl->s = std::move(s);
    sl->index = slots_.size();
    sl->depth = std::max<std::size_t>(1, sl->s->max_in_flight());
    sl->ready = false;
    slot* p = sl.get();
    slots_.push_back(std::move(sl));
    p->thread = std::thread([this, p, wanted = std::move(wanted)] {
        const trace_label label(trace_label_);
        try {
            p->s->prepare(*plan_);  // plan_ is set once, before any join
        } catch (const std::exception& e) {
            std::lock_guard l(m_);
            drop(*p, std::string("prepare failed: ") + e.what());
            return;
        }
        if (wanted && !wanted()) {  // asked without m_: it may ask this pool in turn
            if (trace_on())
                trace_mark(fmt::format("GPU {}: joined a run, prepared, set aside",
                                       p->s->device().ordinal));
            std::lock_guard l(m_);
            p->aside = p->dropped = true;
            return;
        }
        if (trace_on())
            trace_mark(fmt::format("GPU {}: joined a run, prepared", p->s->device().ordinal));
        {
            std::lock_guard l(m_);
            p->ready = true;
            grown_ = true;
        }
        done_cv_.notify_all();
        serve(*p);
    });
}

void gpu_pool::drop(slot& sl, const std::string& why) {
    if (sl.dropped) return;
    sl.dropped = true;
    sl.reason = why;
    for (auto* q : {&sl.inside, &sl.inbox})
        for (auto& [tag, j] : *q) done_.push_back({tag, sl.index, std::nullopt});
    sl.inside.clear();
    sl.inbox.clear();
    sl.assigned = 0;
    done_cv_.notify_all();
    if (say_)
        say_(fmt::format(
            "{} dropped from the run: {}{}", describe(sl), why,
            std::any_of(slots_.begin(), slots_.end(), [](const auto& o) { return !o->dropped; })
                ? "; the run goes on with the other GPUs"
                : ""));
}

void gpu_pool::serve(slot& sl) {
    std::unique_lock lk(m_);
    for (;;) {
        work_.wait(lk, [&] {
            return sl.dropped || sl.prepare_due || !sl.inbox.empty() || !sl.inside.empty() ||
                   stopping_;
        });
        if (sl.dropped || (stopping_ && sl.inbox.empty() && sl.inside.empty())) return;
        if (sl.prepare_due) {
            lk.unlock();
            const trace_label label(trace_label_);
            std::optional<prepare_report> r;
            std::exception_ptr error;
            try {
                r = sl.s->prepare(*plan_);  // set before prepare_due, under m_
                if (trace_on()) trace_mark(fmt::format("slot {}: prepared", sl.index));
            } catch (...) {
                error = std::current_exception();
            }
            lk.lock();
            sl.prepared = std::move(r);
            sl.prepare_error = error;
            sl.prepare_due = false;
            done_cv_.notify_all();
            continue;
        }
        try {
            // Hand over first: the session measures the next job while this thread waits for
            // the current one.
            if (!sl.inbox.empty() &&
                sl.inside.size() < std::max<std::size_t>(1, sl.s->max_in_flight())) {
                sl.inside.push_back(std::move(sl.inbox.front()));
                sl.inbox.pop_front();
                const job& j = sl.inside.back().second;  // a deque's elements stay put
                lk.unlock();
                sl.s->submit(j);
                lk.lock();
                continue;
            }
            if (sl.inside.size() < std::max<std::size_t>(1, sl.s->max_in_flight())) {
                // Room for another job: wait for this one's result until a job is given (submit
                // wakes the session; one that cannot be woken waits a short span), so that it is
                // handed over at once rather than after this result: the GPU would otherwise
                // idle between jobs whenever they come one by one.
                lk.unlock();
                const bool ready = sl.s->wait_ready(gpu_session::ready_poll_s);
                lk.lock();
                if (!ready) continue;
            }
            lk.unlock();
            job_result r = sl.s->collect();
            lk.lock();
            const uint64_t tag = sl.inside.front().first;
            sl.inside.pop_front();
            --sl.assigned;
            done_.push_back({tag, sl.index, std::move(r)});
            done_cv_.notify_all();
        } catch (const std::exception& e) {
            // The session cannot go on (a worker that could not be started again, a lost
            // device): what it held goes to the others.
            if (!lk.owns_lock()) lk.lock();
            drop(sl, e.what());
            return;
        }
    }
}

}  // namespace hone
