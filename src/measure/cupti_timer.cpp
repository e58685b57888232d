#include "measure/cupti_timer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "common/clock.hpp"
#include "driver/cupti_api.hpp"
#include "hone/error.hpp"

namespace hone {
namespace {

constexpr std::size_t buffer_bytes = 256u << 10;  // ~1300 kernel records
// How long take() waits for records to come in after the stream is done.
constexpr double max_wait_s = 0.02;
constexpr int forced_after = 3;

struct kernel_record {
    uint64_t start, end;
    uint32_t correlation;
};

// Shared with CUPTI's callbacks, which may run on CUPTI's own thread.
struct collector {
    std::mutex m;
    const cu::cupti_functions* f = nullptr;
    std::string wanted;
    std::vector<kernel_record> kept;
    bool broken = false;  // a record of the watched kernel lacked its timestamps
    std::vector<uint8_t*> spare;
};

collector& the_collector() {
    static collector c;
    return c;
}

std::atomic<cupti_timer*> the_timer{nullptr};  // set once enable() succeeded

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    collector& c = the_collector();
    uint8_t* b = nullptr;
    {
        std::lock_guard lock(c.m);
        if (!c.spare.empty()) {
            b = c.spare.back();
            c.spare.pop_back();
        }
    }
    if (!b) b = static_cast<uint8_t*>(std::aligned_alloc(8, buffer_bytes));
    *buffer = b;
    *size = b ? buffer_bytes : 0;
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    collector& c = the_collector();
    std::lock_guard lock(c.m);
    CUpti_Activity* rec = nullptr;
    while (c.f && c.f->cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
            rec->kind != CUPTI_ACTIVITY_KIND_KERNEL)
            continue;
        // The fields read here sit at the same offsets in every CUpti_ActivityKernelN.
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
        if (!k->name || c.wanted != k->name) continue;
        if (k->start == 0 || k->end < k->start) {
            c.broken = true;
            continue;
        }
        c.kept.push_back({k->start, k->end, k->correlationId});
    }
    if (buffer) c.spare.push_back(buffer);
}

}  // namespace

std::string choose_timer(const std::string& requested, bool usable, const std::string& why_not) {
    // auto is the profiler where the GPU's counters can be read: it reads kernels of a few us
    // as Nsight Compute does (event pairs add ~1 us) and gives the same figure from run to run
    // (two runs of 192 vector_add configurations of 2-4 us on an H200 agreed at a median ratio
    // of 1.0000 with the profiler, 1.004-1.104 with events in three calls); events where it
    // cannot.
    if (requested == "auto") return usable ? "profiler" : "events";
    if (requested == "events") return "events";
    if (usable) return requested;
    throw env_error(fmt::format(
        "timing.timer is {}, but CUPTI's {} cannot time kernels here: {} (timer: events times "
        "with CUDA events, as auto does where the profiler cannot)",
        requested, requested == "cupti" ? "activity records" : "range profiler", why_not));
}

cupti_timer* cupti_timer::enable(std::string& why) {
    static std::string failure;
    static cupti_timer* const timer = []() -> cupti_timer* {
        const cu::cupti_functions* f = cu::cupti(failure);
        if (!f) return nullptr;
        collector& c = the_collector();
        {
            std::lock_guard lock(c.m);
            c.f = f;
        }
        CUptiResult r = f->cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
        if (r != CUPTI_SUCCESS) {
            failure = "cuptiActivityRegisterCallbacks: " + cu::cupti_error(*f, r);
            return nullptr;
        }
        // Another tool in the process (Nsight Systems or Compute) may hold CUPTI: refused here.
        r = f->cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        if (r != CUPTI_SUCCESS) {
            failure = "cuptiActivityEnable: " + cu::cupti_error(*f, r);
            return nullptr;
        }
        auto* t = new cupti_timer();  // lives as long as the process: CUPTI holds its callbacks
        t->enabled_ = true;
        the_timer = t;
        return t;
    }();
    if (!timer) why = failure;
    return timer;
}

cupti_timer* cupti_timer::loaded() {
    return the_timer;
}

void cupti_timer::pause() {
    if (!enabled_) return;
    const collector& c = the_collector();
    c.f->cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    enabled_ = false;
}

void cupti_timer::resume() {
    if (enabled_) return;
    const collector& c = the_collector();
    const CUptiResult r = c.f->cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (r != CUPTI_SUCCESS) throw env_error("cuptiActivityEnable: " + cu::cupti_error(*c.f, r));
    enabled_ = true;
}

void cupti_timer::watch(const std::string& function) {
    collector& c = the_collector();
    c.f->cuptiActivityFlushAll(0);  // records of earlier kernels go while they are not wanted
    std::lock_guard lock(c.m);
    c.wanted = function;
    c.kept.clear();
    c.broken = false;
}

uint64_t cupti_timer::now() const {
    uint64_t t = 0;
    the_collector().f->cuptiGetTimestamp(&t);
    return t;
}

std::optional<std::vector<uint64_t>> cupti_timer::take(uint64_t since, std::size_t expected) {
    collector& c = the_collector();
    const auto t0 = steady_clock::now();
    for (int poll = 0;; ++poll) {
        // Complete buffers first; then forced, which may hand over records stamped 0 (a failed
        // round, taken again once, then events).
        c.f->cuptiActivityFlushAll(poll < forced_after ? 0 : CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        {
            std::lock_guard lock(c.m);
            std::vector<kernel_record> mine;
            for (const auto& k : c.kept)
                if (k.start >= since) mine.push_back(k);
            const bool done = c.broken || mine.size() >= expected;
            if (done || seconds_since(t0) > max_wait_s) {
                const bool ok = !c.broken && mine.size() == expected;
                c.kept.clear();
                c.broken = false;
                if (!ok) return std::nullopt;
                std::sort(mine.begin(), mine.end(), [](const auto& a, const auto& b) {
                    return a.correlation < b.correlation;
                });
                std::vector<uint64_t> out;
                for (const auto& k : mine) out.push_back(k.end - k.start);
                return out;
            }
        }
        std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
}

std::vector<double> samples_from_durations(const std::vector<uint64_t>& durations_ns, int batch) {
    if (batch < 1 || durations_ns.size() % static_cast<std::size_t>(batch) != 0)
        throw std::logic_error("samples_from_durations: not whole batches");
    std::vector<double> out;
    for (std::size_t i = 0; i < durations_ns.size(); i += static_cast<std::size_t>(batch)) {
        uint64_t sum = 0;
        for (int b = 0; b < batch; ++b) sum += durations_ns[i + static_cast<std::size_t>(b)];
        out.push_back(static_cast<double>(sum) / 1000.0 / batch);
    }
    return out;
}

}  // namespace hone
