#include "measure/profiler_timer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

#include "driver/cupti_api.hpp"

namespace hone {
namespace {

double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

constexpr const char* duration_metric = "gpu__time_duration.sum";
constexpr std::size_t min_ranges = 256;  // counter data for 256 ranges of one metric: ~40 KiB

struct failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Throws `failure` naming the call, with a hint where the cause is known.
void check(const cu::cupti_functions& f, CUptiResult r, const char* call) {
    if (r == CUPTI_SUCCESS) return;
    std::string hint;
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
        r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
        hint =
            " (the GPU's counters are restricted to administrators: run as root, or load the "
            "driver with NVreg_RestrictProfilingToAdminUsers=0)";
    else if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ||
             r == CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED)
        hint = " (another profiler holds CUPTI in this process)";
    throw failure(fmt::format("{}: {}{}", call, cu::cupti_error(f, r), hint));
}

// A zeroed parameter struct whose structSize is CUPTI's own <T>_STRUCT_SIZE (the offset of its
// end, without sizeof's trailing padding: CUPTI refuses a padded size as an invalid parameter).
#define HONE_PARAMS(T) params<T>(T##_STRUCT_SIZE)
template <typename P>
P params(std::size_t size) {
    P p{};
    p.structSize = size;
    return p;
}

}  // namespace

struct profiler_timer::state {
    const cu::cupti_functions* f = nullptr;
    const cu::profiler_functions* p = nullptr;
    CUpti_Profiler_Host_Object* host = nullptr;
    CUpti_RangeProfiler_Object* range = nullptr;
    std::vector<uint8_t> config, data;
    std::size_t capacity = 0;  // ranges the counter data holds
    bool started = false;
    // Host time in each step of a round, for HONE_TIMER_STATS (printed on stderr at the end):
    // the profiler's cost a round is what sets its rounds' length.
    double begin_s = 0, stop_s = 0, decode_s = 0, evaluate_s = 0;
    double image_s = 0, config_s = 0, start_s = 0;  // begin's image init, SetConfig, Start
    std::size_t rounds = 0, ranges_read = 0;
    double first[4] = {0, 0, 0, 0};  // the first round's begin, stop, decode and evaluate

    void size_data(std::size_t ranges) {
        auto ds = HONE_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
        ds.pRangeProfilerObject = range;
        const char* names[] = {duration_metric};
        ds.pMetricNames = names;
        ds.numMetrics = 1;
        ds.maxNumOfRanges = ranges;
        ds.maxNumRangeTreeNodes = static_cast<uint32_t>(ranges);
        check(*f, p->cuptiRangeProfilerGetCounterDataSize(&ds),
              "cuptiRangeProfilerGetCounterDataSize");
        data.assign(ds.counterDataSize, 0);
        capacity = ranges;
    }

    ~state() {
        if (std::getenv("HONE_TIMER_STATS") && rounds) {
            std::fprintf(stderr,
                         "hone: profiler timer: %zu rounds, %zu ranges; per round: begin %.1f us, "
                         "stop %.1f us, decode %.1f us, evaluate %.1f us (%.2f us a range); "
                         "begin's image %.1f us, config %.1f us, start %.1f us\n",
                         rounds, ranges_read, 1e6 * begin_s / rounds, 1e6 * stop_s / rounds,
                         1e6 * decode_s / rounds, 1e6 * evaluate_s / rounds,
                         ranges_read ? 1e6 * evaluate_s / ranges_read : 0.0, 1e6 * image_s / rounds,
                         1e6 * config_s / rounds, 1e6 * start_s / rounds);
            std::fprintf(stderr,
                         "hone: profiler timer: first round: begin %.1f ms, stop %.1f ms, decode "
                         "%.1f ms, evaluate %.1f ms\n",
                         1e3 * first[0], 1e3 * first[1], 1e3 * first[2], 1e3 * first[3]);
        }
        if (range) {
            auto d = HONE_PARAMS(CUpti_RangeProfiler_Disable_Params);
            d.pRangeProfilerObject = range;
            p->cuptiRangeProfilerDisable(&d);
        }
        if (host) {
            auto d = HONE_PARAMS(CUpti_Profiler_Host_Deinitialize_Params);
            d.pHostObject = host;
            p->cuptiProfilerHostDeinitialize(&d);
        }
    }
};

namespace {

// Once a process; never undone (CUPTI keeps it anyway).
CUptiResult initialize_once(const cu::profiler_functions& p) {
    static std::once_flag once;
    static CUptiResult init = CUPTI_SUCCESS;
    std::call_once(once, [&] {
        auto ip = HONE_PARAMS(CUpti_Profiler_Initialize_Params);
        init = p.cuptiProfilerInitialize(&ip);
    });
    return init;
}

}  // namespace

void profiler_timer::initialize_early() {
    std::string why;
    if (!cu::cupti(why)) return;
    if (const cu::profiler_functions* p = cu::cupti_profiler(why)) (void)initialize_once(*p);
}

profiler_timer::profiler_timer(std::unique_ptr<state> s) : s_(std::move(s)) {}
profiler_timer::~profiler_timer() = default;

std::unique_ptr<profiler_timer> profiler_timer::enable(CUcontext ctx, int ordinal,
                                                       std::string& why) {
    const auto e0 = std::chrono::steady_clock::now();
    auto s = std::make_unique<state>();
    s->f = cu::cupti(why);
    if (!s->f) return nullptr;
    s->p = cu::cupti_profiler(why);
    if (!s->p) return nullptr;
    const cu::cupti_functions& f = *s->f;
    const cu::profiler_functions& p = *s->p;
    std::vector<double> marks;
    auto mark = [&] { marks.push_back(1e3 * since(e0)); };
    mark();
    try {
        check(f, initialize_once(p), "cuptiProfilerInitialize");
        mark();

        auto chip = HONE_PARAMS(CUpti_Device_GetChipName_Params);
        chip.deviceIndex = static_cast<std::size_t>(ordinal);
        check(f, p.cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");
        auto avail = HONE_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
        avail.ctx = ctx;
        check(f, p.cuptiProfilerGetCounterAvailability(&avail),
              "cuptiProfilerGetCounterAvailability");
        std::vector<uint8_t> image(avail.counterAvailabilityImageSize);
        avail.pCounterAvailabilityImage = image.data();
        check(f, p.cuptiProfilerGetCounterAvailability(&avail),
              "cuptiProfilerGetCounterAvailability");
        mark();

        auto hi = HONE_PARAMS(CUpti_Profiler_Host_Initialize_Params);
        hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        hi.pChipName = chip.pChipName;
        hi.pCounterAvailabilityImage = image.data();
        check(f, p.cuptiProfilerHostInitialize(&hi), "cuptiProfilerHostInitialize");
        mark();
        s->host = hi.pHostObject;
        const char* names[] = {duration_metric};
        auto add = HONE_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
        add.pHostObject = s->host;
        add.ppMetricNames = names;
        add.numMetrics = 1;
        check(f, p.cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");
        auto cs = HONE_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
        cs.pHostObject = s->host;
        check(f, p.cuptiProfilerHostGetConfigImageSize(&cs), "cuptiProfilerHostGetConfigImageSize");
        s->config.resize(cs.configImageSize);
        auto ci = HONE_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
        ci.pHostObject = s->host;
        ci.pConfigImage = s->config.data();
        ci.configImageSize = s->config.size();
        check(f, p.cuptiProfilerHostGetConfigImage(&ci), "cuptiProfilerHostGetConfigImage");
        // One pass, or every sample would need its launches replayed.
        auto np = HONE_PARAMS(CUpti_Profiler_Host_GetNumOfPasses_Params);
        np.pConfigImage = s->config.data();
        np.configImageSize = s->config.size();
        check(f, p.cuptiProfilerHostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses");
        if (np.numOfPasses != 1)
            throw failure(fmt::format("{} needs {} passes on {}", duration_metric, np.numOfPasses,
                                      chip.pChipName));

        mark();
        auto en = HONE_PARAMS(CUpti_RangeProfiler_Enable_Params);
        en.ctx = ctx;
        check(f, p.cuptiRangeProfilerEnable(&en), "cuptiRangeProfilerEnable");
        s->range = en.pRangeProfilerObject;
        mark();
        s->size_data(min_ranges);
        mark();
        if (std::getenv("HONE_TIMER_STATS")) {
            std::string text;
            for (double ms : marks) text += fmt::format(" {:.1f}", ms);
            std::fprintf(stderr,
                         "hone: profiler enable, ms from the start after loading, initialize, "
                         "availability, host initialize, config image, range enable, data:%s\n",
                         text.c_str());
        }
    } catch (const failure& e) {
        why = e.what();
        // The counters serve one process a GPU: say who may hold them.
        if (why.find("HARDWARE_BUSY") != std::string::npos)
            why +=
                " (another process profiles this GPU: Nsight Compute, or an idle resident "
                "hone worker, which `hone workers --stop` ends)";
        return nullptr;
    }
    return std::unique_ptr<profiler_timer>(new profiler_timer(std::move(s)));
}

bool profiler_timer::begin(std::size_t ranges, std::string& why) {
    state& s = *s_;
    const cu::cupti_functions& f = *s.f;
    const cu::profiler_functions& p = *s.p;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        if (s.started) {  // a round that threw before its finish()
            s.started = false;
            auto sp = HONE_PARAMS(CUpti_RangeProfiler_Stop_Params);
            sp.pRangeProfilerObject = s.range;
            check(f, p.cuptiRangeProfilerStop(&sp), "cuptiRangeProfilerStop");
        }
        if (ranges > s.capacity) s.size_data(std::max(ranges, 2 * s.capacity));
        auto init = HONE_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
        init.pRangeProfilerObject = s.range;
        init.pCounterData = s.data.data();
        init.counterDataSize = s.data.size();
        auto t1 = std::chrono::steady_clock::now();
        check(f, p.cuptiRangeProfilerCounterDataImageInitialize(&init),
              "cuptiRangeProfilerCounterDataImageInitialize");
        s.image_s += since(t1);
        t1 = std::chrono::steady_clock::now();
        auto sc = HONE_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
        sc.pRangeProfilerObject = s.range;
        sc.pConfig = s.config.data();
        sc.configSize = s.config.size();
        sc.pCounterDataImage = s.data.data();
        sc.counterDataImageSize = s.data.size();
        sc.range = CUPTI_AutoRange;        // a range a kernel launch
        sc.replayMode = CUPTI_UserReplay;  // one pass: nothing is replayed
        // The image's capacity, not the round's count: a pass sized to the round, or to a few
        // ranges more, lost ranges on an H200 (60 of 63 came; of 192 configurations' rounds 97
        // lost some with none to spare, 6 with 32, none with 64).
        sc.maxRangesPerPass = s.capacity;
        sc.numNestingLevels = 1;
        sc.minNestingLevel = 1;
        sc.passIndex = 0;
        sc.targetNestingLevel = 1;
        check(f, p.cuptiRangeProfilerSetConfig(&sc), "cuptiRangeProfilerSetConfig");
        s.config_s += since(t1);
        t1 = std::chrono::steady_clock::now();
        auto st = HONE_PARAMS(CUpti_RangeProfiler_Start_Params);
        st.pRangeProfilerObject = s.range;
        check(f, p.cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
        s.start_s += since(t1);
        s.started = true;
        s.begin_s += since(t0);
        if (++s.rounds == 1) s.first[0] = since(t0);
        return true;
    } catch (const failure& e) {
        why = e.what();
        return false;
    }
}

std::optional<std::vector<uint64_t>> profiler_timer::finish(std::string& why) {
    state& s = *s_;
    const cu::cupti_functions& f = *s.f;
    const cu::profiler_functions& p = *s.p;
    if (!s.started) throw std::logic_error("profiler_timer::finish without begin");
    s.started = false;
    try {
        auto t0 = std::chrono::steady_clock::now();
        auto sp = HONE_PARAMS(CUpti_RangeProfiler_Stop_Params);
        sp.pRangeProfilerObject = s.range;
        check(f, p.cuptiRangeProfilerStop(&sp), "cuptiRangeProfilerStop");
        const bool first = s.rounds == 1;
        if (first) s.first[1] = since(t0);
        s.stop_s += since(t0);
        t0 = std::chrono::steady_clock::now();
        auto dd = HONE_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
        dd.pRangeProfilerObject = s.range;
        check(f, p.cuptiRangeProfilerDecodeData(&dd), "cuptiRangeProfilerDecodeData");
        if (dd.numOfRangeDropped) {
            why = fmt::format("the profiler dropped {} ranges", dd.numOfRangeDropped);
            return std::nullopt;
        }
        auto info = HONE_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
        info.pCounterDataImage = s.data.data();
        info.counterDataImageSize = s.data.size();
        check(f, p.cuptiRangeProfilerGetCounterDataInfo(&info),
              "cuptiRangeProfilerGetCounterDataInfo");
        if (first) s.first[2] = since(t0);
        s.decode_s += since(t0);
        t0 = std::chrono::steady_clock::now();
        std::vector<uint64_t> out;
        const char* names[] = {duration_metric};
        for (std::size_t i = 0; i < info.numTotalRanges; ++i) {
            double ns = 0;
            auto ev = HONE_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
            ev.pHostObject = s.host;
            ev.pCounterDataImage = s.data.data();
            ev.counterDataImageSize = s.data.size();
            ev.ppMetricNames = names;
            ev.numMetrics = 1;
            ev.rangeIndex = i;
            ev.pMetricValues = &ns;
            check(f, p.cuptiProfilerHostEvaluateToGpuValues(&ev),
                  "cuptiProfilerHostEvaluateToGpuValues");
            if (!(ns > 0)) {
                why = fmt::format("range {} has no duration", i);
                return std::nullopt;
            }
            out.push_back(static_cast<uint64_t>(std::llround(ns)));
        }
        if (first) s.first[3] = since(t0);
        s.evaluate_s += since(t0);
        s.ranges_read += out.size();
        return out;
    } catch (const failure& e) {
        why = e.what();
        return std::nullopt;
    }
}

std::optional<std::vector<uint64_t>> kernel_durations(const std::vector<uint64_t>& ranges_ns,
                                                      std::size_t count, std::size_t batch,
                                                      std::size_t lead, std::string& why) {
    std::size_t per_sample = lead + batch;
    if (lead > 0 && ranges_ns.size() == count * (per_sample - 1)) --per_sample;
    if (batch == 0 || ranges_ns.size() != count * per_sample) {
        why = fmt::format("the profiler gave {} ranges for {} launches", ranges_ns.size(),
                          count * (lead + batch));
        return std::nullopt;
    }
    std::vector<uint64_t> out;
    for (std::size_t i = 0; i < ranges_ns.size(); ++i)  // each sample's last `batch` ranges
        if (i % per_sample >= per_sample - batch) out.push_back(ranges_ns[i]);
    return out;
}

}  // namespace hone
