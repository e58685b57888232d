#include <fmt/format.h>

#include "common/clock.hpp"
#include "driver/driver.hpp"
#include "driver/nvml.hpp"
#include "measure/session.hpp"
#include "verify/verify.hpp"

namespace hone {
namespace {

void copy_limits(const launch_limits& l, job_result& r) {
    r.num_regs = l.num_regs;
    r.local_bytes = l.local_bytes;
    r.static_shared_bytes = l.static_shared_bytes;
    r.max_threads_per_block = l.max_threads_per_block;
    r.active_blocks_per_sm = l.active_blocks_per_sm;
    r.occupancy = l.occupancy;
}

}  // namespace

std::vector<CUdeviceptr> in_process_session::pointers(memory_kind k) const {
    std::vector<CUdeviceptr> out;
    for (const auto& b : buffers_) out.push_back(b.in_set(k).ptr());
    return out;
}

void in_process_session::fill_symbols(const cu::module& m, memory_kind k) {
    for (const auto& b : buffers_) {
        if (b.plan.symbol.empty()) continue;
        const auto [dst, size] = m.global(b.plan.symbol);
        if (b.plan.bytes() > size)
            throw cuda_error(CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE",
                             fmt::format("the kernel's variable '{}' holds {} bytes, fewer than "
                                         "the {} of the buffer that fills it",
                                         b.plan.symbol, size, b.plan.bytes()));
        cu::check(
            cu::driver().cuMemcpyDtoDAsync(dst, b.in_set(k).ptr(), b.plan.bytes(), stream_.get()),
            "cuMemcpyDtoDAsync (a kernel variable)");
    }
}

void in_process_session::reset_outputs(memory_kind k) {
    for (const auto& b : buffers_)
        if (b.pristine.ptr()) b.in_set(k).copy_from(b.pristine, stream_.get());
}

// Queues the GPU's count of mismatches of every verified buffer (slot i: the i-th verified
// buffer; types the GPU does not compare leave theirs unused), and the counts' copy home.
void in_process_session::queue_checks(memory_kind k) {
    compare_.reset(stream_);
    std::size_t slot = 0;
    for (auto& b : buffers_) {
        if (!b.reference_dev.ptr()) continue;
        compare_.queue(slot++, b.plan.type, b.in_set(k).ptr(), b.reference_dev.ptr(), b.plan.count,
                       plan_.rtol, plan_.atol, stream_);
    }
    compare_.fetch(stream_);
}

// Once the stream has passed the checks: empty when every verified buffer matches, otherwise
// what differs.
std::string in_process_session::finish_checks(memory_kind k) {
    std::string message;
    std::size_t slot = 0;
    for (auto& b : buffers_) {
        if (!b.reference_dev.ptr()) continue;
        const std::size_t mine = slot++;
        const bool on_gpu = is_gpu_comparable(b.plan.type);
        const uint64_t gpu_bad = on_gpu ? compare_.bad(mine) : 0;
        if (on_gpu && gpu_bad == 0) continue;
        // A mismatch (or a type the GPU does not compare): the host says what differs. Its
        // copies of the reference and the staging memory are made the first time.
        if (b.reference.empty()) {
            b.reference.resize(b.plan.bytes());
            b.reference_dev.download(b.reference.data());
        }
        if (staging_.bytes() < b.plan.bytes()) staging_ = cu::pinned_buffer(b.plan.bytes());
        b.in_set(k).download(staging_.data());
        const verify_outcome v = compare_buffers(b.plan.type, staging_.data(), b.reference.data(),
                                                 b.plan.count, plan_.rtol, plan_.atol, b.plan.name);
        std::string m = v.message;
        if (v.ok && gpu_bad)  // the two rules are meant to agree; trust the stricter
            m = fmt::format("buffer {}: {} elements differ on the GPU's check, none on the host's",
                            b.plan.name, gpu_bad);
        if (!m.empty()) message += (message.empty() ? "" : "; ") + m;
    }
    return message;
}

// The job's steps; driver failures propagate to run() as cuda_error.
void in_process_session::run_checked(const job& j, job_result& r) {
    auto t = steady_clock::now();
    const launch_desc& d = j.launch;
    const cu::module m(d.cubin.data());
    kernel_launch k(m, d, pointers(d.memory));
    fill_symbols(m, d.memory);
    const launch_limits limits = k.prepare(info_.attrs);
    copy_limits(limits, r);
    r.steps.load_s = seconds_since(t);
    if (!limits.refusal.empty()) {
        r.st = status::device_limits;
        r.message = limits.refusal;
        return;
    }
    // The first launch, timed, then its check, behind one wait: a fault in the launch
    // surfaces there. Its time starts the warm-up.
    t = steady_clock::now();
    reset_outputs(d.memory);
    warm_up_estimate warm;
    const auto q = steady_clock::now();
    start_.record(stream_);
    k.enqueue(stream_);
    stop_.record(stream_);
    warm.host_us_per_launch = seconds_since(q) * 1e6;
    if (j.verify) queue_checks(d.memory);
    stream_.synchronize();
    ++r.steps.waits;
    warm.busy_ms = cu::event::elapsed_ms(start_, stop_);
    warm.kernel_us = warm.busy_ms * 1000.0;
    if (j.verify) r.message = finish_checks(d.memory);
    r.steps.verify_s = seconds_since(t);
    if (!r.message.empty()) {
        r.st = status::wrong_result;
        return;
    }
    // Timing runs the kernel again and again on the buffers as the first launch left them:
    // an inout buffer then holds the output of earlier launches, which changes the work only
    // for kernels whose cost depends on the values.
    measure(k, d.function, warm, r);
}

job_result in_process_session::run(const job& j) {
    if (!fault_.empty()) throw env_error("the GPU session ended after a fault: " + fault_);
    const auto t0 = steady_clock::now();
    job_result r;
    ctx_.make_current();
    try {
        rewarm_if_idle(r.steps);
        run_checked(j, r);
        // Read right after the samples: the state the GPU measured them in.
        if (has_timing(r.st)) r.telemetry = nvml::read(info_.uuid);
    } catch (const cuda_error& e) {
        r.st = e.sticky() ? status::runtime_fault : status::launch_error;
        r.message = e.what();
        r.samples_us.clear();
        if (e.sticky()) fault_ = fmt::format("{} (job {})", e.what(), j.key);
    }
    idle_since_ = steady_clock::now();
    r.wall_s = seconds_since(t0);
    return r;
}

}  // namespace hone
