// How long CUDA takes to start in a fresh process (what every GPU worker pays before its first
// job): cuInit, the primary context, the first allocation and the first launch-ready module.
// Run once per process; the variants are environment settings (bench/probes/probe_init.sh).
#include <cuda.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {
double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}
void check(CUresult r, const char* what) {
    if (r != CUDA_SUCCESS) {
        std::fprintf(stderr, "%s failed: %d\n", what, static_cast<int>(r));
        std::exit(1);
    }
}
}  // namespace

int main() {
    const double t0 = now_ms();
    check(cuInit(0), "cuInit");
    const double t1 = now_ms();
    CUdevice dev;
    const char* ord = std::getenv("PROBE_DEVICE");  // the ordinal to open (0)
    check(cuDeviceGet(&dev, ord ? std::atoi(ord) : 0), "cuDeviceGet");
    CUuuid id;
    check(cuDeviceGetUuid(&id, dev), "uuid");
    int sms = 0;
    check(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev), "attr");
    const double t2 = now_ms();
    if (const char* f = std::getenv("PROBE_CTX_FLAGS"))
        check(cuDevicePrimaryCtxSetFlags(dev, static_cast<unsigned>(std::atoi(f))), "flags");
    CUcontext ctx;
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "retain");
    check(cuCtxSetCurrent(ctx), "set current");
    const double t3 = now_ms();
    CUdeviceptr p;
    check(cuMemAlloc(&p, 1 << 20), "alloc");
    const double t4 = now_ms();
    CUstream s;
    check(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "stream");
    check(cuMemsetD8Async(p, 0, 1 << 20, s), "memset");
    check(cuStreamSynchronize(s), "sync");
    const double t5 = now_ms();
    std::printf(
        "init_ms %.1f attrs_ms %.1f ctx_ms %.1f alloc_ms %.1f first_op_ms %.1f total_ms %.1f "
        "uuid %02x%02x%02x%02x\n",
        t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t5 - t0, id.bytes[0] & 0xff,
        id.bytes[1] & 0xff, id.bytes[2] & 0xff, id.bytes[3] & 0xff);
    return 0;
}
