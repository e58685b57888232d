#include "driver/resources.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace hone::cu {

primary_context::primary_context(int ordinal) {
    const api& a = driver();
    check(a.cuDeviceGet(&dev_, ordinal), "cuDeviceGet");
    check(a.cuDevicePrimaryCtxRetain(&ctx_, dev_), "cuDevicePrimaryCtxRetain");
    try {
        make_current();
    } catch (...) {
        a.cuDevicePrimaryCtxRelease(dev_);
        throw;
    }
}

primary_context::~primary_context() {
    driver().cuDevicePrimaryCtxRelease(dev_);
}

void primary_context::make_current() const {
    check(driver().cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
}

module::module(const void* image) {
    check(driver().cuModuleLoadData(&mod_, image), "cuModuleLoadData");
}

module::~module() {
    driver().cuModuleUnload(mod_);
}

CUfunction module::function(const std::string& name) const {
    CUfunction f = nullptr;
    check(driver().cuModuleGetFunction(&f, mod_, name.c_str()), "cuModuleGetFunction");
    return f;
}

std::pair<CUdeviceptr, std::size_t> module::global(const std::string& name) const {
    CUdeviceptr p = 0;
    std::size_t bytes = 0;
    check(driver().cuModuleGetGlobal(&p, &bytes, mod_, name.c_str()),
          fmt::format("cuModuleGetGlobal('{}': no __constant__ or __device__ variable of that "
                      "name in the kernel's module?)",
                      name)
              .c_str());
    return {p, bytes};
}

device_buffer::device_buffer(uint64_t bytes, bool managed) : bytes_(bytes) {
    const api& a = driver();
    check(managed ? a.cuMemAllocManaged(&ptr_, bytes, CU_MEM_ATTACH_GLOBAL)
                  : a.cuMemAlloc(&ptr_, bytes),
          managed ? "cuMemAllocManaged" : "cuMemAlloc");
}

device_buffer::~device_buffer() {
    if (ptr_) driver().cuMemFree(ptr_);
}

device_buffer::device_buffer(device_buffer&& o) noexcept
    : ptr_(std::exchange(o.ptr_, 0)), bytes_(std::exchange(o.bytes_, 0)) {}

device_buffer& device_buffer::operator=(device_buffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
}

void device_buffer::upload(const void* src) const {
    check(driver().cuMemcpyHtoD(ptr_, src, bytes_), "cuMemcpyHtoD");
}

void device_buffer::upload_part(const void* src, uint64_t offset, uint64_t bytes,
                                CUstream s) const {
    if (offset + bytes > bytes_) throw std::logic_error("upload_part beyond the buffer");
    check(driver().cuMemcpyHtoDAsync(ptr_ + offset, src, bytes, s), "cuMemcpyHtoDAsync");
}

void device_buffer::download(void* dst) const {
    check(driver().cuMemcpyDtoH(dst, ptr_, bytes_), "cuMemcpyDtoH");
}

void device_buffer::copy_from(const device_buffer& src, CUstream s) const {
    check(driver().cuMemcpyDtoDAsync(ptr_, src.ptr_, std::min(bytes_, src.bytes_), s),
          "cuMemcpyDtoDAsync");
}

pinned_buffer::pinned_buffer(uint64_t bytes) : bytes_(bytes) {
    void* p = nullptr;
    check(driver().cuMemAllocHost(&p, bytes), "cuMemAllocHost");
    data_ = static_cast<uint8_t*>(p);
}

pinned_buffer::~pinned_buffer() {
    if (data_) driver().cuMemFreeHost(data_);
}

pinned_buffer::pinned_buffer(pinned_buffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}

pinned_buffer& pinned_buffer::operator=(pinned_buffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(bytes_, o.bytes_);
    return *this;
}

stream::stream(bool non_blocking) {
    check(driver().cuStreamCreate(&s_, non_blocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT),
          "cuStreamCreate");
}

stream::~stream() {
    driver().cuStreamDestroy(s_);
}

void stream::synchronize() const {
    check(driver().cuStreamSynchronize(s_), "cuStreamSynchronize");
}

event::event() {
    check(driver().cuEventCreate(&e_, CU_EVENT_DEFAULT), "cuEventCreate");
}

event::~event() {
    driver().cuEventDestroy(e_);
}

void event::record(const stream& s) const {
    check(driver().cuEventRecord(e_, s.get()), "cuEventRecord");
}

float event::elapsed_ms(const event& start, const event& end) {
    const api& a = driver();
    check(a.cuEventSynchronize(end.e_), "cuEventSynchronize");
    float ms = 0;
    check(a.cuEventElapsedTime(&ms, start.e_, end.e_), "cuEventElapsedTime");
    return ms;
}

stream_gate::stream_gate() : word_(sizeof(uint32_t)) {
    *reinterpret_cast<volatile uint32_t*>(word_.data()) = 0;
    check(driver().cuMemHostGetDevicePointer(&device_word_, word_.data(), 0),
          "cuMemHostGetDevicePointer");
}

bool stream_gate::hold(const stream& s) {
    if (!usable_) return false;
    const CUresult r =
        driver().cuStreamWaitValue32(s.get(), device_word_, value_ + 1, CU_STREAM_WAIT_VALUE_GEQ);
    if (r == CUDA_ERROR_NOT_SUPPORTED) {
        usable_ = false;
        return false;
    }
    check(r, "cuStreamWaitValue32");
    ++value_;
    return true;
}

void stream_gate::release() {
    __atomic_store_n(reinterpret_cast<uint32_t*>(word_.data()), value_, __ATOMIC_RELEASE);
}

}  // namespace hone::cu
