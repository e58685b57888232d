// Kernel duration three ways on the same launches, to choose the timer that agrees with Nsight
// Compute's gpu__time_duration for short kernels (issue 12):
//   probe_profiler profiler   gpu__time_duration.sum from CUPTI's range profiler (the metric ncu
//                             reports), one range a launch (auto range, user replay, one pass)
//   probe_profiler userrange  the same metric, a pushed range around each timed launch
//   probe_profiler plain      the launches alone, for `ncu --kernel-name probe_vadd` to time
// Each timed launch of probe_vadd follows a read of L2's size (as hone's flush). Prints one line a
// size: N, launches, median us. PROBE_METRICS (comma-separated, default gpu__time_duration.sum)
// adds metrics, printed as medians over the timed launches; PROBE_IDLE_MS leaves the GPU idle
// that long before each flush and launch (as under Nsight Compute, which spends milliseconds
// between the launches it profiles); PROBE_GAP_MS idles between the flush and the launch.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "probe_check.hpp"

__global__ void probe_vadd(const float* a, const float* b, float* c, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void probe_vadd4(const float4* a, const float4* b, float4* c, unsigned n4) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        const float4 x = a[i], y = b[i];
        c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}

__global__ void probe_flush(const float4* p, unsigned long long n, float* sink) {
    float acc = 0;
    for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) {
        float4 v;
        asm volatile("ld.global.cg.v4.f32 {%0,%1,%2,%3}, [%4];"
                     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                     : "l"(p + i));
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 12345.678f) *sink = acc;
}

// One read in each of `pages` pages `stride` bytes apart, spread over every SM, so that what
// the timed kernel left in the translation caches is evicted (PROBE_TLB=1).
__global__ void probe_tlb(const char* p, unsigned long long stride, unsigned pages, float* sink) {
    float acc = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < pages * 8u;
         i += gridDim.x * blockDim.x) {
        const unsigned page = (i * 2654435761u) % pages;  // scattered
        acc += *reinterpret_cast<const volatile float*>(p + page * stride + (i % 8u) * 4096ull);
    }
    if (acc == 12345.678f) *sink = acc;
}

// 64 KiB of constant memory read by every warp of 2 blocks an SM, so that the constant caches
// (the kernel's parameters among them) keep nothing of the timed kernel (PROBE_CCACHE=1).
__constant__ float probe_const[16384];
// One read of each pointer (through L2, not L1): refills the translation caches for the pages
// read, and little else.
__global__ void probe_touch(const float* p, const float* q, const float* r, float* sink) {
    float v = __ldcg(p) + (q ? __ldcg(q) : 0.f) + (r ? __ldcg(r) : 0.f);
    if (v == 12345.f) *sink = v;
}

__global__ void probe_ccache(float* sink) {
    float acc = 0;
    for (unsigned i = (threadIdx.x / 32) * 8; i < 16384; i += 8 * (blockDim.x / 32))
        acc += probe_const[i];  // warp-uniform: one constant-cache line a warp a step
    if (acc == 12345.678f) *sink = acc;
}

// Straight-line code of ~256 KiB (16,384 dependent FMAs with distinct constants), run on every
// SM: what the timed kernel left in the SMs' instruction caches is evicted (PROBE_ICACHE=1).
template <int B>
__global__ void probe_bigcode(float* sink) {
    float x = threadIdx.x;
    x += B;
#pragma unroll
    for (int i = 0; i < 1024; ++i) x = fmaf(x, 1.0001f + i * 1e-7f, i * 3e-7f);
    if (x == 12345.678f) *sink = x;
}
template <int... B>
void launch_bigcode(float* sink, std::integer_sequence<int, B...>) {
    (probe_bigcode<B><<<132, 128>>>(sink), ...);
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

struct profiler {
    CUpti_Profiler_Host_Object* host = nullptr;
    CUpti_RangeProfiler_Object* rp = nullptr;
    std::vector<uint8_t> config, data;
    std::vector<std::string> metric_names;
    std::vector<const char*> metrics;
    bool user_range = false;
    size_t capacity = 0;

    void init(CUcontext ctx, int dev, size_t ranges, bool user) {
        const char* env = std::getenv("PROBE_METRICS");
        std::string list = env && *env ? env : "gpu__time_duration.sum";
        for (size_t at = 0; at <= list.size();) {
            size_t comma = list.find(',', at);
            if (comma == std::string::npos) comma = list.size();
            if (comma > at) metric_names.push_back(list.substr(at, comma - at));
            at = comma + 1;
        }
        for (const auto& m : metric_names) metrics.push_back(m.c_str());
        user_range = user;
        capacity = ranges;
        CUpti_Profiler_Initialize_Params ip{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
        CHECK_ZERO(cuptiProfilerInitialize(&ip));
        CUpti_Device_GetChipName_Params cn{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
        cn.deviceIndex = dev;
        CHECK_ZERO(cuptiDeviceGetChipName(&cn));
        CUpti_Profiler_GetCounterAvailability_Params ca{
            CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
        ca.ctx = ctx;
        CHECK_ZERO(cuptiProfilerGetCounterAvailability(&ca));
        std::vector<uint8_t> avail(ca.counterAvailabilityImageSize);
        ca.pCounterAvailabilityImage = avail.data();
        CHECK_ZERO(cuptiProfilerGetCounterAvailability(&ca));
        CUpti_Profiler_Host_Initialize_Params hi{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
        hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        hi.pChipName = cn.pChipName;
        hi.pCounterAvailabilityImage = avail.data();
        CHECK_ZERO(cuptiProfilerHostInitialize(&hi));
        host = hi.pHostObject;
        CUpti_Profiler_Host_ConfigAddMetrics_Params am{
            CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
        am.pHostObject = host;
        am.ppMetricNames = metrics.data();
        am.numMetrics = metrics.size();
        CHECK_ZERO(cuptiProfilerHostConfigAddMetrics(&am));
        CUpti_Profiler_Host_GetConfigImageSize_Params cs{
            CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
        cs.pHostObject = host;
        CHECK_ZERO(cuptiProfilerHostGetConfigImageSize(&cs));
        config.resize(cs.configImageSize);
        CUpti_Profiler_Host_GetConfigImage_Params gi{
            CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
        gi.pHostObject = host;
        gi.pConfigImage = config.data();
        gi.configImageSize = config.size();
        CHECK_ZERO(cuptiProfilerHostGetConfigImage(&gi));
        CUpti_Profiler_Host_GetNumOfPasses_Params np{
            CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
        np.pConfigImage = config.data();
        np.configImageSize = config.size();
        CHECK_ZERO(cuptiProfilerHostGetNumOfPasses(&np));
        fprintf(stderr, "chip %s, passes %zu\n", cn.pChipName, np.numOfPasses);
        CUpti_RangeProfiler_Enable_Params en{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
        en.ctx = ctx;
        CHECK_ZERO(cuptiRangeProfilerEnable(&en));
        rp = en.pRangeProfilerObject;
        CUpti_RangeProfiler_GetCounterDataSize_Params ds{
            CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
        ds.pRangeProfilerObject = rp;
        ds.pMetricNames = metrics.data();
        ds.numMetrics = metrics.size();
        ds.maxNumOfRanges = ranges;
        ds.maxNumRangeTreeNodes = static_cast<uint32_t>(ranges);
        CHECK_ZERO(cuptiRangeProfilerGetCounterDataSize(&ds));
        data.resize(ds.counterDataSize);
        fprintf(stderr, "counter data %zu bytes for %zu ranges, config %zu bytes\n", data.size(),
                ranges, config.size());
    }

    void begin() {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci{
            CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
        ci.pRangeProfilerObject = rp;
        ci.pCounterData = data.data();
        ci.counterDataSize = data.size();
        CHECK_ZERO(cuptiRangeProfilerCounterDataImageInitialize(&ci));
        CUpti_RangeProfiler_SetConfig_Params sc{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
        sc.pRangeProfilerObject = rp;
        sc.pConfig = config.data();
        sc.configSize = config.size();
        sc.pCounterDataImage = data.data();
        sc.counterDataImageSize = data.size();
        sc.range = user_range ? CUPTI_UserRange : CUPTI_AutoRange;
        // PROBE_KREPLAY: CUPTI's kernel replay (as Nsight Compute replays), else user replay.
        sc.replayMode = std::getenv("PROBE_KREPLAY") ? CUPTI_KernelReplay : CUPTI_UserReplay;
        sc.maxRangesPerPass = capacity;
        sc.numNestingLevels = 1;
        sc.minNestingLevel = 1;
        sc.passIndex = 0;
        sc.targetNestingLevel = 1;
        CHECK_ZERO(cuptiRangeProfilerSetConfig(&sc));
        CUpti_RangeProfiler_Start_Params st{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
        st.pRangeProfilerObject = rp;
        CHECK_ZERO(cuptiRangeProfilerStart(&st));
    }
    void push() {
        CUpti_RangeProfiler_PushRange_Params p{CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
        p.pRangeProfilerObject = rp;
        p.pRangeName = "t";
        CHECK_ZERO(cuptiRangeProfilerPushRange(&p));
    }
    void pop() {
        CUpti_RangeProfiler_PopRange_Params p{CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
        p.pRangeProfilerObject = rp;
        CHECK_ZERO(cuptiRangeProfilerPopRange(&p));
    }
    // Every range's metric values, in range order, with their names.
    std::vector<std::pair<std::string, std::vector<double>>> end() {
        CUpti_RangeProfiler_Stop_Params sp{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        sp.pRangeProfilerObject = rp;
        CHECK_ZERO(cuptiRangeProfilerStop(&sp));
        if (!sp.isAllPassSubmitted) fprintf(stderr, "not all passes submitted\n");
        CUpti_RangeProfiler_DecodeData_Params dd{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
        dd.pRangeProfilerObject = rp;
        CHECK_ZERO(cuptiRangeProfilerDecodeData(&dd));
        if (dd.numOfRangeDropped) fprintf(stderr, "%zu ranges dropped\n", dd.numOfRangeDropped);
        CUpti_RangeProfiler_GetCounterDataInfo_Params inf{
            CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
        inf.pCounterDataImage = data.data();
        inf.counterDataImageSize = data.size();
        CHECK_ZERO(cuptiRangeProfilerGetCounterDataInfo(&inf));
        std::vector<std::pair<std::string, std::vector<double>>> out;
        for (size_t i = 0; i < inf.numTotalRanges; ++i) {
            CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri{
                CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
            ri.pCounterDataImage = data.data();
            ri.counterDataImageSize = data.size();
            ri.rangeIndex = i;
            ri.rangeDelimiter = "/";
            CHECK_ZERO(cuptiRangeProfilerCounterDataGetRangeInfo(&ri));
            std::vector<double> v(metrics.size());
            CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{
                CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
            ev.pHostObject = host;
            ev.pCounterDataImage = data.data();
            ev.counterDataImageSize = data.size();
            ev.ppMetricNames = metrics.data();
            ev.numMetrics = metrics.size();
            ev.rangeIndex = i;
            ev.pMetricValues = v.data();
            CHECK_ZERO(cuptiProfilerHostEvaluateToGpuValues(&ev));
            out.emplace_back(ri.rangeName ? ri.rangeName : "?", v);
        }
        return out;
    }
};

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "plain";
    const int reps = argc > 2 ? std::atoi(argv[2]) : 30;
    CHECK_ZERO(cudaSetDevice(0));
    CHECK_ZERO(cudaFree(0));
    CUcontext ctx;
    CHECK_ZERO(cuCtxGetCurrent(&ctx));
    int l2 = 0;
    CHECK_ZERO(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    float4* fl;
    float* sink;
    const unsigned long long fl_n = (unsigned long long)l2 / sizeof(float4);
    CHECK_ZERO(cudaMalloc(&fl, fl_n * sizeof(float4)));
    CHECK_ZERO(cudaMemset(fl, 0, fl_n * sizeof(float4)));
    CHECK_ZERO(cudaMalloc(&sink, 4));
    profiler p;
    const bool prof = mode != "plain";
    const char* idle_env = std::getenv("PROBE_IDLE_MS");
    const int idle_ms = idle_env ? std::atoi(idle_env) : 0;
    // PROBE_GAP_MS: idle that long between the flush (and evictions) and the timed kernel, so
    // that the timed kernel, not the flush, meets SMs that have been idle.
    const char* gap_env = std::getenv("PROBE_GAP_MS");
    const int gap_ms = gap_env ? std::atoi(gap_env) : 0;
    const bool icache = std::getenv("PROBE_ICACHE") != nullptr;
    const bool vec4 = std::getenv("PROBE_VEC4") != nullptr;
    const bool tlb = std::getenv("PROBE_TLB") != nullptr;
    // 4 GiB in pages of 2 MiB: 2,048 pages, more than the translation caches hold (i % 8 picks
    // one of 8 reads 4 KiB apart in each page).
    // PROBE_TLB_KB: another page size (64 KiB pages: 65,536 of them in the same 4 GiB).
    const char* tlb_kb = std::getenv("PROBE_TLB_KB");
    const unsigned long long tlb_stride = (tlb_kb ? std::atoll(tlb_kb) : 2048ull) << 10;
    const unsigned tlb_pages = static_cast<unsigned>((4ull << 30) / tlb_stride);
    char* tlb_buf = nullptr;
    if (tlb) {
        CHECK_ZERO(cudaMalloc(&tlb_buf, tlb_stride * tlb_pages));
        CHECK_ZERO(cudaMemset(tlb_buf, 0, tlb_stride * tlb_pages));
    }
    const bool ccache = std::getenv("PROBE_CCACHE") != nullptr;
    // PROBE_UNMAP=before|after: map and unmap 2 MiB of device memory (the VMM API) before or
    // after the flush, each sample: the driver must invalidate the GPU's translation caches on an
    // unmap, which no kernel can do (probe_tlb only evicts what a kernel's reads reach).
    const char* unmap_env = std::getenv("PROBE_UNMAP");
    const std::string unmap = unmap_env ? unmap_env : "";
    CUmemGenericAllocationHandle vm_handle{};
    CUdeviceptr vm_va = 0;
    size_t vm_size = 0;
    if (!unmap.empty()) {
        CUmemAllocationProp prop{};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = 0;
        CHECK_ZERO(
            cuMemGetAllocationGranularity(&vm_size, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        CHECK_ZERO(cuMemCreate(&vm_handle, vm_size, &prop, 0));
        CHECK_ZERO(cuMemAddressReserve(&vm_va, vm_size, 0, 0, 0));
    }
    auto map_unmap = [&] {
        CHECK_ZERO(cudaDeviceSynchronize());
        CHECK_ZERO(cuMemMap(vm_va, vm_size, 0, vm_handle, 0));
        CUmemAccessDesc acc{};
        acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        acc.location.id = 0;
        acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CHECK_ZERO(cuMemSetAccess(vm_va, vm_size, &acc, 1));
        CHECK_ZERO(cuMemUnmap(vm_va, vm_size));
    };
    // PROBE_MEMOP=flush|gpu|sys: a stream memory operation between the flush and the timed
    // launch (CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES, or a memory barrier of GPU or system scope):
    // operations the driver carries out with the GPU's own cache and ordering methods, which no
    // kernel can issue. PROBE_PERSIST=1: cuCtxResetPersistingL2Cache after the flush (an L2
    // operation of the driver's); PROBE_RDMA=1: cuFlushGPUDirectRDMAWrites (the driver's flush
    // of writes into the GPU's memory).
    const char* memop_env = std::getenv("PROBE_MEMOP");
    const std::string memop = memop_env ? memop_env : "";
    // PROBE_PERSIST=before puts the reset before the flush; PROBE_NOFLUSH=1 leaves the flush out
    // (does the reset alone leave L2 cold?).
    const char* persist_env = std::getenv("PROBE_PERSIST");
    const bool persist = persist_env != nullptr;
    const bool persist_before = persist && std::string(persist_env) == "before";
    const bool noflush = std::getenv("PROBE_NOFLUSH") != nullptr;
    const bool rdma = std::getenv("PROBE_RDMA") != nullptr;
    auto memory_op = [&] {
        CUstreamBatchMemOpParams op{};
        if (memop == "flush") {
            op.flushRemoteWrites.operation = CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES;
        } else {
            op.memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
            op.memoryBarrier.flags = memop == "sys" ? CU_STREAM_MEMORY_BARRIER_TYPE_SYS
                                                    : CU_STREAM_MEMORY_BARRIER_TYPE_GPU;
        }
        CHECK_ZERO(cuStreamBatchMemOp(nullptr, 1, &op, 0));
    };
    // [16 code,] [tlb,] [constants,] flush, vadd
    // PROBE_TOUCH=far|abc|ab|c (after PROBE_UNMAP=after): one read of the flush buffer, or of
    // each of the timed kernel's buffers named, between the invalidation and the timed launch.
    const char* touch_env = std::getenv("PROBE_TOUCH");
    const std::string touch = touch_env ? touch_env : "";
    const size_t per_sample =
        (icache ? 18 : 2) - (noflush ? 1 : 0) + (tlb ? 1 : 0) + (ccache ? 1 : 0) +
        (touch.empty() ? 0 : 1) +
        (persist ? 1 : 0);  // cuCtxResetPersistingL2Cache runs on the GPU: a range of its own
    if (prof) p.init(ctx, 0, per_sample * reps + 2, mode == "userrange");
    // PROBE_MIN_EXP: the smallest size, 2^PROBE_MIN_EXP floats (default 14; 10 is one block).
    const char* min_exp_env = std::getenv("PROBE_MIN_EXP");
    const int min_exp = min_exp_env ? std::atoi(min_exp_env) : 14;
    for (int e = min_exp; e <= 28; e += 2) {
        const unsigned n = 1u << e;
        float *a, *b, *c;
        CHECK_ZERO(cudaMalloc(&a, n * 4ull));
        CHECK_ZERO(cudaMalloc(&b, n * 4ull));
        CHECK_ZERO(cudaMalloc(&c, n * 4ull));
        CHECK_ZERO(cudaMemset(a, 0, n * 4ull));
        CHECK_ZERO(cudaMemset(b, 0, n * 4ull));
        const unsigned grid = (n + 255) / 256, grid4 = (n / 4 + 255) / 256;
        auto timed = [&] {  // PROBE_VEC4: one float4 a thread, as hone's vector_add VEC=4
            if (vec4)
                probe_vadd4<<<grid4, 256>>>(reinterpret_cast<const float4*>(a),
                                            reinterpret_cast<const float4*>(b),
                                            reinterpret_cast<float4*>(c), n / 4);
            else
                probe_vadd<<<grid, 256>>>(a, b, c, n);
        };
        for (int w = 0; w < 5; ++w) timed();  // warm
        CHECK_ZERO(cudaDeviceSynchronize());
        std::vector<double> us;
        cudaEvent_t t0, t1;
        CHECK_ZERO(cudaEventCreate(&t0));
        CHECK_ZERO(cudaEventCreate(&t1));
        const auto w0 = std::chrono::steady_clock::now();
        if (prof) p.begin();
        for (int r = 0; r < reps; ++r) {
            if (idle_ms > 0) {
                CHECK_ZERO(cudaDeviceSynchronize());
                std::this_thread::sleep_for(std::chrono::milliseconds(idle_ms));
            }
            if (icache) launch_bigcode(sink, std::make_integer_sequence<int, 16>{});
            if (tlb) probe_tlb<<<264, 256>>>(tlb_buf, tlb_stride, tlb_pages, sink);
            if (ccache) probe_ccache<<<264, 256>>>(sink);
            if (unmap == "before") map_unmap();
            if (persist_before) CHECK_ZERO(cuCtxResetPersistingL2Cache());
            if (!noflush) probe_flush<<<264, 512>>>(fl, fl_n, sink);
            if (unmap == "after") map_unmap();
            if (!memop.empty()) memory_op();
            if (persist && !persist_before) CHECK_ZERO(cuCtxResetPersistingL2Cache());
            if (rdma)
                CHECK_ZERO(
                    cuFlushGPUDirectRDMAWrites(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                               CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER));
            if (touch == "far")
                probe_touch<<<1, 1>>>(reinterpret_cast<const float*>(fl + fl_n / 2), nullptr,
                                      nullptr, sink);
            else if (touch == "abc")
                probe_touch<<<1, 1>>>(a, b, c, sink);
            else if (touch == "ab")  // the inputs' translations warm, the output's cold
                probe_touch<<<1, 1>>>(a, b, nullptr, sink);
            else if (touch == "c")
                probe_touch<<<1, 1>>>(c, nullptr, nullptr, sink);
            if (gap_ms > 0) {
                CHECK_ZERO(cudaDeviceSynchronize());
                std::this_thread::sleep_for(std::chrono::milliseconds(gap_ms));
            }
            if (prof && p.user_range) p.push();
            timed();
            if (prof && p.user_range) p.pop();
        }
        CHECK_ZERO(cudaDeviceSynchronize());
        std::string names;
        if (prof) {
            // Auto ranges: each sample's kernels in launch order, probe_vadd last.
            const auto ranges = p.end();
            if (std::getenv("PROBE_DUMP"))  // every range of the first two samples
                for (size_t i = 0; i < std::min(ranges.size(), 2 * per_sample); ++i)
                    fprintf(stderr, "N=2^%d range %zu: %.3f us\n", e, i,
                            ranges[i].second[0] / 1000);
            std::vector<std::vector<double>> per_metric(p.metrics.size());
            // User ranges: one a sample, around the timed launch alone.
            const size_t stride = p.user_range ? 1 : per_sample;
            for (size_t i = stride - 1; i < ranges.size(); i += stride)
                for (size_t m = 0; m < p.metrics.size(); ++m)
                    per_metric[m].push_back(ranges[i].second[m]);
            us = per_metric[0];
            for (double& x : us) x /= 1000.0;
            for (size_t m = 1; m < p.metrics.size(); ++m)
                names += p.metric_names[m] + "=" + std::to_string(median(per_metric[m])) + " ";
        }
        const double wall_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0)
                .count();
        printf(
            "%s N=2^%d launches=%d median_us=%.3f min_us=%.3f ranges_kept=%zu wall_ms=%.2f  %s\n",
            mode.c_str(), e, reps, median(us),
            us.empty() ? 0 : *std::min_element(us.begin(), us.end()), us.size(), wall_ms,
            names.c_str());
        fflush(stdout);
        CHECK_ZERO(cudaFree(a));
        CHECK_ZERO(cudaFree(b));
        CHECK_ZERO(cudaFree(c));
    }
    return 0;
}
