#include "measure/session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "driver/devices.hpp"
#include "hone/driver.hpp"
#include "hone/verify.hpp"
#include "measure/inputs.hpp"
#include "measure/memory_budget.hpp"

namespace hone {

const cu::device_buffer& session_buffer::in_set(memory_kind k) const {
    const cu::device_buffer& b = k == memory_kind::device ? device : managed;
    if (!b.ptr())
        throw std::logic_error(fmt::format("buffer '{}' has no {} memory copy (not in the plan)",
                                           plan.name,
                                           k == memory_kind::device ? "device" : "managed"));
    return b;
}

namespace {

int64_t free_device_memory() {
    size_t free = 0, total = 0;
    cu::check(cu::driver().cuMemGetInfo(&free, &total), "cuMemGetInfo");
    return static_cast<int64_t>(free);
}

}  // namespace

in_process_session::in_process_session(int ordinal)
    : info_(cu::read_device_info(ordinal)), ctx_(ordinal) {
    info_.free_mem = free_device_memory();
    compare_.emplace(static_cast<int>(info_.attrs.sm_count));
}

void in_process_session::prepare(const run_plan& plan) {
    if (!fault_.empty()) throw env_error("the GPU session ended after a fault: " + fault_);
    ctx_.make_current();
    buffers_.clear();  // free the previous plan's memory before measuring what is free
    flush_ = cu::device_buffer();
    staging_ = cu::pinned_buffer();
    plan_ = plan;
    info_.free_mem = free_device_memory();
    check_device_memory(device_bytes_needed(plan_, info_.attrs.l2_bytes), info_.free_mem);
    allocate_and_fill();
    if (plan_.timing.l2_flush)
        flush_ = cu::device_buffer(flush_buffer_bytes(info_.attrs.l2_bytes), false);
    if (plan_.reference) compute_reference();
}

void in_process_session::allocate_and_fill() {
    uint64_t staging_bytes = 0;
    for (const auto& p : plan_.buffers) {
        session_buffer b;
        b.plan = p;
        const std::vector<uint8_t> input = generate_input(p);
        if (p.role == buffer_role::inout) b.image = input;
        if (p.role == buffer_role::out) {
            // Outputs start as poison, the reference's too, so that elements nobody writes
            // compare equal and elements only one launch writes are caught.
            b.image.resize(p.bytes());
            fill_poison(p.type, b.image.data(), p.count);
        }
        const std::vector<uint8_t>& first = p.role == buffer_role::out ? b.image : input;
        if (!b.image.empty()) {
            b.pristine = cu::device_buffer(p.bytes(), false);
            b.pristine.upload(b.image.data());
        }
        if (p.verify) staging_bytes = std::max(staging_bytes, p.bytes());
        if (needs_device_set(plan_, p)) {
            b.device = cu::device_buffer(p.bytes(), false);
            b.device.upload(first.data());
        }
        if (needs_managed_set(plan_, p)) {
            b.managed = cu::device_buffer(p.bytes(), true);
            b.managed.upload(first.data());
        }
        buffers_.push_back(std::move(b));
    }
    staging_ = staging_bytes ? cu::pinned_buffer(staging_bytes) : cu::pinned_buffer();
}

void in_process_session::compute_reference() {
    const launch_desc& ref = *plan_.reference;
    try {
        const cu::module m(ref.cubin.data());
        kernel_launch k(m, ref, pointers(ref.memory));
        const launch_limits limits = k.prepare(info_.attrs);
        if (!limits.refusal.empty()) throw env_error(limits.refusal);
        k.enqueue(stream_);
        stream_.synchronize();
        for (auto& b : buffers_) {
            if (!b.plan.verify) continue;
            b.reference.resize(b.plan.bytes());
            b.in_set(ref.memory).download(b.reference.data());
            b.reference_dev = cu::device_buffer(b.plan.bytes(), false);
            b.reference_dev.copy_from(b.in_set(ref.memory), stream_.get());
        }
        stream_.synchronize();
    } catch (const cuda_error& e) {
        if (e.sticky()) fault_ = e.what();
        throw env_error(
            fmt::format("the verify reference ({}) failed: {}", ref.function, e.what()));
    } catch (const env_error& e) {
        throw env_error(fmt::format("the verify reference ({}) cannot run on this device: {}",
                                    ref.function, e.what()));
    }
}

std::unique_ptr<gpu_session> make_in_process_session(int ordinal) {
    return std::make_unique<in_process_session>(ordinal);
}

}  // namespace hone
