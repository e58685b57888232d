// A host emulation of the CUDA built-ins that kernels_src/sgemm_large.cu uses, so that the
// kernel's indexing, pipelines and split-K logic run on a CPU under AddressSanitizer and
// UndefinedBehaviorSanitizer. The threads of a block are fibers (ucontext) on one OS thread,
// run one at a time from barrier to barrier in an order the caller picks; blocks run one after
// another. What it checks:
//   - races between threads of a block: every thread runs a whole barrier interval at once, in
//     launch order, reversed, or shuffled, so a read of shared data written by another thread in
//     the same interval (a missing __syncthreads) reads a different value in one of the orders;
//   - divergent barriers: a thread that reaches __syncthreads while another thread of its block
//     returned, or returns while others wait at one, is an error;
//   - shared memory is a heap block of exactly the launch's dynamic size, filled with NaN at each
//     block's start (unwritten data shows in the result), so ASan sees any access past it;
//   - cp.async copies are deferred: they land only when the issuing thread's
//     cp.async.wait_group lets their group complete, so a tile read before the wait (or before
//     the barrier after it) is NaN or an older tile;
//   - 16-byte alignment of every cp.async source and destination, and (UBSan) of every float4
//     access, float4 being 16-byte aligned as on the GPU;
//   - at a thread's end, a cp.async group that was never waited for is an error.
// What it cannot check: the GPU's memory model across blocks (blocks never run concurrently
// here), warp-level timing, and anything NVRTC-specific (hone check compiles every kernel).
#pragma once

#include <ucontext.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define EMU_ASAN 1
#else
#define EMU_ASAN 0
#endif

#define SGEMM_HOST_EMULATION 1
#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) alignas(n)

struct alignas(16) float4 {
    float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) {
    return {x, y, z, w};
}

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};

namespace emu {

[[noreturn]] inline void fail(const char* what) {
    std::fprintf(stderr, "emulator: %s\n", what);
    std::fflush(stderr);
    std::abort();
}

// This thread's cp.async copies: not yet committed, and committed groups oldest first.
struct pending_copy {
    float* dst;
    const float* src;
};

struct fiber {
    dim3 idx;
    ucontext_t ctx;
    std::vector<char> stack;
    enum { runnable, at_barrier, done } state = runnable;
    std::vector<pending_copy> uncommitted;
    std::deque<std::vector<pending_copy>> groups;
};

inline dim3 block_idx, block_dim, grid_dim;
inline float* shared_base = nullptr;
inline fiber* current = nullptr;
inline const std::function<void()>* block_body = nullptr;
inline ucontext_t scheduler;
inline const void* scheduler_stack_bottom = nullptr;  // ASan: the OS thread's stack
inline std::size_t scheduler_stack_size = 0;

// ASan must be told when the stack changes. target: the fiber switched to, or null for the
// scheduler (the OS thread's own stack); last: the calling fiber never runs again.
inline void switch_to(ucontext_t* from, ucontext_t* to, const fiber* target, bool last = false) {
#if EMU_ASAN
    void* fake = nullptr;
    if (target)
        __sanitizer_start_switch_fiber(&fake, target->stack.data(), target->stack.size());
    else
        __sanitizer_start_switch_fiber(last ? nullptr : &fake, scheduler_stack_bottom,
                                       scheduler_stack_size);
    swapcontext(from, to);
    // Back here: a fiber resumed by the scheduler learns the scheduler's stack.
    __sanitizer_finish_switch_fiber(fake, target ? nullptr : &scheduler_stack_bottom,
                                    target ? nullptr : &scheduler_stack_size);
#else
    (void)target;
    (void)last;
    swapcontext(from, to);
#endif
}

inline void sync() {
    fiber* self = current;
    self->state = fiber::at_barrier;
    switch_to(&self->ctx, &scheduler, nullptr);
}

// Runs body on `threads` fibers, barrier interval by barrier interval; order(round, n) gives
// the order of the fibers in each round (a permutation of 0 .. n-1).
class block_runner {
  public:
    explicit block_runner(unsigned threads, std::size_t stack_bytes = 256 * 1024)
        : fibers_(threads) {
        for (unsigned t = 0; t < threads; ++t) {
            fibers_[t].idx = dim3{t, 0, 0};
            fibers_[t].stack.resize(stack_bytes);
        }
    }

    void run(const std::function<void()>& body,
             const std::function<std::vector<unsigned>(unsigned, unsigned)>& order) {
        block_body = &body;
        for (auto& f : fibers_) {
            f.state = fiber::runnable;
            f.uncommitted.clear();
            f.groups.clear();
            getcontext(&f.ctx);
            f.ctx.uc_stack.ss_sp = f.stack.data();
            f.ctx.uc_stack.ss_size = f.stack.size();
            f.ctx.uc_link = nullptr;  // entry() switches back itself
            makecontext(&f.ctx, &block_runner::entry, 0);
        }
        for (unsigned round = 0;; ++round) {
            for (unsigned t : order(round, static_cast<unsigned>(fibers_.size()))) {
                fiber& f = fibers_.at(t);
                if (f.state == fiber::done) continue;
                f.state = fiber::runnable;
                current = &f;
                switch_to(&scheduler, &f.ctx, &f);
                current = nullptr;
            }
            std::size_t done = 0;
            for (const auto& f : fibers_) done += f.state == fiber::done;
            if (done == fibers_.size()) return;
            if (done > 0)
                fail(
                    "divergent __syncthreads: some threads of the block returned, others wait at a "
                    "barrier");
        }
    }

  private:
    static void entry() {
        fiber* self = current;
#if EMU_ASAN
        __sanitizer_finish_switch_fiber(nullptr, &scheduler_stack_bottom, &scheduler_stack_size);
#endif
        (*block_body)();
        if (!self->uncommitted.empty()) fail("a thread ended with cp.async copies never committed");
        for (const auto& g : self->groups)
            if (!g.empty()) fail("a thread ended with a cp.async group never waited for");
        self->state = fiber::done;
        switch_to(&self->ctx, &scheduler, nullptr, true);
        fail("a finished fiber was resumed");
    }

    std::vector<fiber> fibers_;
};

}  // namespace emu

#define threadIdx (emu::current->idx)
#define blockIdx (emu::block_idx)
#define blockDim (emu::block_dim)
#define gridDim (emu::grid_dim)
#define SGEMM_DYNAMIC_SHARED(name) float* const name = emu::shared_base

inline void __syncthreads() {
    emu::sync();
}
// Blocks run one after another here, so the fence has nothing to order.
inline void __threadfence() {}
inline int atomicAdd(int* p, int v) {
    const int old = *p;
    *p = old + v;
    return old;
}
inline float4 __ldcg(const float4* p) {
    return *p;
}

inline void cp_async16(float* smem_dst, const float* gmem_src) {
    if (reinterpret_cast<std::uintptr_t>(smem_dst) % 16 ||
        reinterpret_cast<std::uintptr_t>(gmem_src) % 16)
        emu::fail("cp.async of 16 bytes with an address not 16-byte aligned");
    emu::current->uncommitted.push_back({smem_dst, gmem_src});
}
inline void cp_async_commit() {
    emu::current->groups.push_back(std::move(emu::current->uncommitted));
    emu::current->uncommitted.clear();
}
template <int PENDING>
inline void cp_async_wait() {
    auto& groups = emu::current->groups;
    while (groups.size() > static_cast<std::size_t>(PENDING)) {
        for (const auto& c : groups.front()) std::memcpy(c.dst, c.src, 16);
        groups.pop_front();
    }
}
