#include <fmt/format.h>


#include "common/clock.hpp"
#include "hone/driver.hpp"
#include "hone/verify.hpp"
#include "measure/session.hpp"

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

void in_process_session::reset_outputs(memory_kind k) {
    for (const auto& b : buffers_)
        if (b.pristine.ptr()) b.in_set(k).copy_from(b.pristine, stream_.get());
}

std::string in_process_session::check_outputs(memory_kind k) {
    std::string message;
    for (auto& b : buffers_) {
        if (!b.reference_dev.ptr()) continue;
        const std::optional<uint64_t> gpu_bad =
            compare_.count_bad(b.plan.type, b.in_set(k).ptr(), b.reference_dev.ptr(), b.plan.count,
                               plan_.rtol, plan_.atol, stream_);
        if (gpu_bad == 0u) continue;
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
                            b.plan.name, *gpu_bad);
        if (!m.empty()) message += (message.empty() ? "" : "; ") + m;
    }
    return message;
}

// The job's steps; driver failures propagate to run() as cuda_error.
void in_process_session::run_checked(const job& j, job_result& r) {
    const launch_desc& d = j.launch;
    const cu::module m(d.cubin.data());
    kernel_launch k(m, d, pointers(d.memory));
    const launch_limits limits = k.prepare(info_.attrs);
    copy_limits(limits, r);
    if (!limits.refusal.empty()) {
        r.st = status::device_limits;
        r.message = limits.refusal;
        return;
    }
    reset_outputs(d.memory);
    k.enqueue(stream_);
    // No synchronisation here: the check (or the warm-up) queues behind the launch and waits
    // for both, and a fault in the launch surfaces there.
    if (j.verify) {
        r.message = check_outputs(d.memory);
        if (!r.message.empty()) {
            r.st = status::wrong_result;
            return;
        }
    }
    // Timing runs the kernel again and again on the buffers as the first launch left them:
    // an inout buffer then holds the output of earlier launches, which changes the work only
    // for kernels whose cost depends on the values.
    measure(k, r);
}

job_result in_process_session::run(const job& j) {
    if (!fault_.empty()) throw env_error("the GPU session ended after a fault: " + fault_);
    const auto t0 = steady_clock::now();
    job_result r;
    ctx_.make_current();
    try {
        run_checked(j, r);
    } catch (const cuda_error& e) {
        r.st = e.sticky() ? status::runtime_fault : status::launch_error;
        r.message = e.what();
        r.samples_us.clear();
        if (e.sticky()) fault_ = fmt::format("{} (job {})", e.what(), j.key);
    }
    r.wall_s = seconds_since(t0);
    return r;
}

}  // namespace hone
