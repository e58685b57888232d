#include "measure/session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "common/clock.hpp"
#include "common/trace.hpp"
#include "driver/devices.hpp"
#include "driver/driver.hpp"
#include "measure/gpu_fill.hpp"
#include "measure/helpers.hpp"
#include "measure/inputs.hpp"
#include "measure/memory_budget.hpp"
#include "measure/warm_up.hpp"
#include "verify/verify.hpp"

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

in_process_session::in_process_session(int ordinal, bool profiler_ahead, int reported_ordinal)
    : ordinal_(ordinal),
      info_(cu::read_device_info(ordinal)),
      ctx_(ordinal),
      helpers_(helper_kernels_image()),
      spin_(helpers_),
      compare_(helpers_, static_cast<int>(info_.attrs.sm_count)),
      profiler_ahead_(profiler_ahead) {
    if (reported_ordinal >= 0) info_.ordinal = reported_ordinal;
    info_.free_mem = free_device_memory();
    if (trace_on()) trace_mark(fmt::format("GPU {}: session made", info_.ordinal));
    // The clock starts to ramp while the caller prepares (prepare() waits for this, then
    // settles the clock): on its own stream, so that prepare's copies do not wait for it.
    spin_.enqueue(warm_stream_, static_cast<uint64_t>(clock_prespin_ms * 1e6));
}

prepare_report in_process_session::prepare(const run_plan& plan) {
    if (!fault_.empty()) throw env_error("the GPU session ended after a fault: " + fault_);
    ctx_.make_current();
    buffers_.clear();  // free the previous plan's memory before measuring what is free
    flush_ = l2_flush();
    staging_ = cu::pinned_buffer();
    plan_ = plan;
    info_.free_mem = free_device_memory();
    check_device_memory(device_bytes_needed(plan_, info_.attrs.l2_bytes), info_.free_mem);
    prepare_report report;
    const auto mark = [&](std::string_view what) {
        if (trace_on()) trace_mark(fmt::format("GPU {}: prepare: {}", info_.ordinal, what));
    };
    mark("begins");
    allocate_and_fill(report);
    mark("inputs filled");
    std::size_t verified = 0;
    for (const auto& b : plan_.buffers) verified += b.verify ? 1 : 0;
    compare_.reserve(verified);
    if (plan_.timing.l2_flush)
        flush_ = l2_flush(helpers_, flush_buffer_bytes(info_.attrs.l2_bytes),
                          static_cast<int>(info_.attrs.sm_count));
    if (plan_.reference) {
        const auto t0 = steady_clock::now();
        report.reference_us = compute_reference();
        report.reference_s = seconds_since(t0);
    }
    mark("reference run");
    choose_timer(report);
    mark("timer chosen");
    report.clock_s = warm_clocks(report.clock_mhz);
    mark("clock warm");
    return report;
}

void in_process_session::release() {
    if (!fault_.empty()) return;
    ctx_.make_current();
    stream_.synchronize();
    buffers_.clear();
    flush_ = l2_flush();
    staging_ = cu::pinned_buffer();
    plan_ = run_plan();
}

// Each buffer's host image goes over the host link once; every other copy of it (the pristine
// image jobs start from, the device and managed sets) is made on the GPU. The image is made in
// parts in a small page-locked stage, each part's copy running while the next is filled: a
// whole pageable image cost page faults (which slowed two workers preparing at once) and a copy
// at a third of the link's speed.
void in_process_session::allocate_and_fill(prepare_report& report) {
    cu::pinned_buffer stage;  // grown to the largest part pair, freed once all are up
    for (const auto& p : plan_.buffers) {
        auto t0 = steady_clock::now();
        session_buffer b;
        b.plan = p;
        if (p.role != buffer_role::in) b.pristine = cu::device_buffer(p.bytes(), false);
        if (needs_device_set(plan_, p)) b.device = cu::device_buffer(p.bytes(), false);
        if (needs_managed_set(plan_, p)) b.managed = cu::device_buffer(p.bytes(), true);
        std::vector<const cu::device_buffer*> copies;
        for (const cu::device_buffer* copy : {&b.pristine, &b.device, &b.managed})
            if (copy->ptr()) copies.push_back(copy);
        // Outputs start as poison, the reference's too, so that elements nobody writes compare
        // equal and elements only one launch writes are caught. Elements of up to 4 bytes get
        // it from a memset on the GPU; other buffers from a host image.
        const std::size_t elem = elem_size(p.type);
        if (p.role == buffer_role::out && elem <= 4) {
            for (const cu::device_buffer* copy : copies)
                fill_pattern_on_gpu(*copy, elem, poison_bits(p.type), stream_.get());
        } else if (!copies.empty()) {
            // Inputs are generated on the GPU where it can (a host image took 0.06-0.2 s for
            // 2^25 elements, four runs at once on one host's cores), else uploaded.
            if (fill_input_on_gpu(helpers_, p, *copies.front(),
                                  static_cast<int>(info_.attrs.sm_count), stream_.get())) {
                stream_.synchronize();
                report.inputs_s += seconds_since(t0);
            } else {
                upload_image(p, *copies.front(), stage, report);
            }
            t0 = steady_clock::now();
            for (std::size_t k = 1; k < copies.size(); ++k)
                copies[k]->copy_from(*copies.front(), stream_.get());
        }
        buffers_.push_back(std::move(b));
        stream_.synchronize();
        report.upload_s += seconds_since(t0);
    }
}

// p's host image into dst: parts filled in turn into the two halves of stage, each half's copy
// queued on stream_ and waited for before that half is filled again.
void in_process_session::upload_image(const buffer_plan& p, const cu::device_buffer& dst,
                                      cu::pinned_buffer& stage, prepare_report& report) {
    const std::size_t elem = elem_size(p.type);
    if (p.init.kind == init_kind::file && p.role != buffer_role::out) {
        auto t0 = steady_clock::now();
        const std::vector<uint8_t> image = generate_input(p);
        report.inputs_s += seconds_since(t0);
        t0 = steady_clock::now();
        dst.upload(image.data());
        report.upload_s += seconds_since(t0);
        return;
    }
    constexpr uint64_t half_bytes = uint64_t{16} << 20;
    const uint64_t part_elems =
        std::max<uint64_t>(1, half_bytes / (elem * image_part_elems)) * image_part_elems;
    const uint64_t half = std::min(part_elems, p.count) * elem;
    if (stage.bytes() < 2 * half) stage = cu::pinned_buffer(2 * half);
    for (uint64_t first = 0, k = 0; first < p.count; first += part_elems, ++k) {
        const uint64_t count = std::min(part_elems, p.count - first);
        uint8_t* out = stage.data() + (k % 2) * half;
        auto t0 = steady_clock::now();
        fill_image_part(p, out, first, count);
        report.inputs_s += seconds_since(t0);
        // The copy before this one used the other half; the one before that, this half.
        t0 = steady_clock::now();
        stream_.synchronize();
        dst.upload_part(out, first * elem, count * elem, stream_.get());
        report.upload_s += seconds_since(t0);
    }
}

// Runs the reference once and keeps its outputs on the GPU; returns the launch's time in
// microseconds (a first launch: an upper bound on what the kernel takes).
double in_process_session::compute_reference() {
    const launch_desc& ref = *plan_.reference;
    try {
        const cu::module m(ref.cubin.data());
        kernel_launch k(m, ref, pointers(ref.memory));
        fill_symbols(m, ref.memory);
        const launch_limits limits = k.prepare(info_.attrs);
        if (!limits.refusal.empty()) throw env_error(limits.refusal);
        start_.record(stream_);
        k.enqueue(stream_);
        stop_.record(stream_);
        const double us = cu::event::elapsed_ms(start_, stop_) * 1000.0;
        for (auto& b : buffers_) {
            if (!b.plan.verify) continue;
            b.reference_dev = cu::device_buffer(b.plan.bytes(), false);
            b.reference_dev.copy_from(b.in_set(ref.memory), stream_.get());
        }
        stream_.synchronize();
        return us;
    } catch (const cuda_error& e) {
        if (e.sticky()) fault_ = e.what();
        throw env_error(
            fmt::format("the verify reference ({}) failed: {}", ref.function, e.what()));
    } catch (const env_error& e) {
        throw env_error(fmt::format("the verify reference ({}) cannot run on this device: {}",
                                    ref.function, e.what()));
    }
}

std::unique_ptr<gpu_session> make_in_process_session(int ordinal, bool profiler_ahead,
                                                     int reported_ordinal) {
    return std::make_unique<in_process_session>(ordinal, profiler_ahead, reported_ordinal);
}

}  // namespace hone
