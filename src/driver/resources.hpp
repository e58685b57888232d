// Owners of driver objects. Destructors ignore errors: after a sticky error every call fails,
// and the process is about to end anyway.
#pragma once
#include <cstdint>
#include <string>
#include <utility>

#include "driver/cuda_api.hpp"

namespace hone::cu {

// The device's primary context (the one the runtime API would share), made current.
class primary_context {
  public:
    explicit primary_context(int ordinal);
    ~primary_context();
    primary_context(const primary_context&) = delete;
    primary_context& operator=(const primary_context&) = delete;
    // Contexts are current per thread: call before work on a thread that may be new.
    void make_current() const;
    CUdevice device() const { return dev_; }
    CUcontext get() const { return ctx_; }

  private:
    CUdevice dev_ = 0;
    CUcontext ctx_ = nullptr;
};

class module {
  public:
    // A CUBIN, or NUL-terminated PTX text (JIT-compiled by the driver).
    explicit module(const void* image);
    ~module();
    module(const module&) = delete;
    module& operator=(const module&) = delete;
    CUfunction function(const std::string& name) const;
    // A __constant__ or __device__ variable: its address and size. Throws cuda_error naming it
    // when the module has none of that name.
    std::pair<CUdeviceptr, std::size_t> global(const std::string& name) const;

  private:
    CUmodule mod_ = nullptr;
};

class device_buffer {
  public:
    device_buffer() = default;
    // managed: cuMemAllocManaged with CU_MEM_ATTACH_GLOBAL; else cuMemAlloc.
    device_buffer(uint64_t bytes, bool managed);
    ~device_buffer();
    device_buffer(device_buffer&& o) noexcept;
    device_buffer& operator=(device_buffer&& o) noexcept;
    CUdeviceptr ptr() const { return ptr_; }
    uint64_t bytes() const { return bytes_; }
    void upload(const void* src) const;  // bytes() bytes, synchronous
    void download(void* dst) const;      // bytes() bytes, synchronous
    // bytes bytes from src (page-locked, left alone until s has done it) to offset, queued on s.
    void upload_part(const void* src, uint64_t offset, uint64_t bytes, CUstream s) const;
    // bytes() bytes from src (same size) on the GPU, queued on s: ~3 TB/s instead of the
    // host link's ~10-25 GB/s.
    void copy_from(const device_buffer& src, CUstream s) const;

  private:
    CUdeviceptr ptr_ = 0;
    uint64_t bytes_ = 0;
};

// Page-locked host memory (cuMemAllocHost): device-to-host copies at the link's full speed.
class pinned_buffer {
  public:
    pinned_buffer() = default;
    explicit pinned_buffer(uint64_t bytes);
    ~pinned_buffer();
    pinned_buffer(pinned_buffer&& o) noexcept;
    pinned_buffer& operator=(pinned_buffer&& o) noexcept;
    uint8_t* data() const { return data_; }
    uint64_t bytes() const { return bytes_; }

  private:
    uint8_t* data_ = nullptr;
    uint64_t bytes_ = 0;
};

class stream {
  public:
    // Blocking (CU_STREAM_DEFAULT): synchronous copies, which go through the legacy default
    // stream, are then ordered with the kernels queued here. non_blocking: they are not.
    explicit stream(bool non_blocking = false);
    ~stream();
    stream(const stream&) = delete;
    stream& operator=(const stream&) = delete;
    CUstream get() const { return s_; }
    void synchronize() const;

  private:
    CUstream s_ = nullptr;
};

// Holds a stream at a point until the host releases it (cuStreamWaitValue32 on a page-locked
// word): work queued behind hold() starts only once all of it is queued and release() is called.
class stream_gate {
  public:
    stream_gate();
    stream_gate(const stream_gate&) = delete;
    stream_gate& operator=(const stream_gate&) = delete;
    // Queues the wait on s. False, with nothing queued, where the driver refuses waits on memory.
    bool hold(const stream& s);
    void release();  // lets the last hold() pass; harmless when none is pending

  private:
    pinned_buffer word_;
    CUdeviceptr device_word_ = 0;
    uint32_t value_ = 0;
    bool usable_ = true;
};

class event {
  public:
    event();
    ~event();
    event(const event&) = delete;
    event& operator=(const event&) = delete;
    void record(const stream& s) const;
    // Milliseconds from start to end; both recorded and end completed (synchronises on end).
    static float elapsed_ms(const event& start, const event& end);

  private:
    CUevent e_ = nullptr;
};

}  // namespace hone::cu
