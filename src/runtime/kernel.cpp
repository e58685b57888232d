// The kernel handle: selection, compile and load on the first launch of a size in a context;
// afterwards a hash lookup and cuLaunchKernel. Compiled code is loaded as a context-independent
// library (cuLibraryLoadData), so one CUBIN serves every context; the function is fetched per
// context (cuKernelGetFunction) when a size is first launched there.
#include "hone/kernel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <unordered_map>

#include "compile/compile.hpp"
#include "compile/compile_cache.hpp"
#include "driver/cuda_api.hpp"
#include "driver/devices.hpp"
#include "driver/driver.hpp"
#include "hone/spec.hpp"
#include "hone/tuner.hpp"
#include "runtime/bind.hpp"
#include "runtime/capture.hpp"
#include "runtime/log.hpp"
#include "runtime/select.hpp"
#include "space/space.hpp"
#include "tune/internal.hpp"

namespace hone {
namespace {

constexpr std::size_t max_sizes = 32;
constexpr std::size_t max_args = 64;
constexpr double compile_timeout_s = 300;

// A size launched in one context: everything cuLaunchKernel needs. Never freed while the handle
// lives, so that the hot path may use it after dropping the lock.
struct resolved {
    uint64_t ctx_id = 0;
    std::vector<int64_t> sizes;
    CUfunction fn = nullptr;
    std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
    uint32_t shared_bytes = 0;
    bool cooperative = false;
    std::vector<uint64_t> scalar_slots;  // per argument: the scalar's value at these sizes
    std::vector<uint64_t> buffer_bytes;  // per argument: the buffer's size (capture)
    // A resolution that failed for the input's sake (no valid configuration, a compile error):
    // kept, so that later launches fail at once with the same message.
    bool failed = false;
    source_pos error_pos;
    std::string error;
};

struct library {
    CUlibrary lib = nullptr;
    std::string function;  // lowered name
};

// Set when a capture could not be written: capturing stops in every handle of the process.
std::atomic<bool> capture_off{false};

uint64_t hash_key(uint64_t ctx, const int64_t* v, std::size_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ ctx;
    for (std::size_t i = 0; i < n; ++i) {
        h ^= static_cast<uint64_t>(v[i]) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    }
    return h;
}

}  // namespace

const char* tier_name(selection_tier t) {
    switch (t) {
        case selection_tier::exact:
            return "exact";
        case selection_tier::nearest:
            return "nearest";
        case selection_tier::architecture:
            return "architecture";
        case selection_tier::fallback:
            return "fallback";
    }
    return "?";
}

std::string kernel_selection::describe() const {
    std::string out =
        fmt::format("{} at {} on {}: {} {}", kernel, problem, device, tier_name(tier), key);
    if (from_tuned) {
        out += fmt::format(" (tuned on {} at {}", entry.device_name, entry.problem_text());
        if (tuned_rank > 0) out += fmt::format(", rank {}, {:.4g} us", tuned_rank, tuned_time_us);
        out += ")";
    }
    if (!neighbours.empty()) {
        std::string n;
        for (const auto& [p, w] : neighbours)
            n += fmt::format("{}{} w={:.2f}", n.empty() ? "" : "; ", p, w);
        out += fmt::format(", interpolated from {}: {:.3f}x the best there", n, predicted_rel);
    }
    for (const auto& note : notes) out += "; " + note;
    return out;
}

struct kernel::impl {
    spec s;
    runtime::arg_layout layout;
    std::vector<tuned_entry> entries;  // this kernel's
    std::string tuned_path;
    std::string source_hash, spec_hash, nvrtc;
    std::size_t stale = 0;
    kernel_options opt;
    bool capture = false;

    mutable std::shared_mutex map_mutex;
    std::unordered_map<uint64_t, std::vector<resolved*>> map;

    mutable std::mutex slow_mutex;  // everything below
    std::deque<std::unique_ptr<resolved>> all;
    std::map<std::string, library> libraries;  // by compile cache key
    std::map<int, device_info> devices;        // by CUdevice
    std::unique_ptr<compile_cache> cache;
    std::once_flag primary_once;
    CUcontext primary = nullptr;

    ~impl() {
        // Libraries are context-independent: unloading needs no context. At process exit the
        // driver may be gone already; errors are ignored then.
        try {
            const cu::api& a = cu::driver();
            for (auto& [key, l] : libraries) a.cuLibraryUnload(l.lib);
        } catch (...) {
        }
    }

    [[noreturn]] void size_error(const std::string& what) const {
        std::string names;
        for (const auto& p : s.problem) names += (names.empty() ? "" : ", ") + p.name;
        throw input_error({s.path, 0, 0},
                          fmt::format("{}: {}; the spec's problem sizes are {}", s.kernel.name,
                                      what, names.empty() ? "none" : names));
    }

    // The given sizes in spec order.
    void order_sizes(problem_sizes given, int64_t* out) const {
        const std::size_t n = s.problem.size();
        bool seen[max_sizes] = {};
        for (const size_value& g : given) {
            std::size_t i = 0;
            while (i < n && s.problem[i].name != g.name) ++i;
            if (i == n)
                size_error(fmt::format(
                    "launch() names the problem size '{}', which the spec does not have", g.name));
            if (seen[i])
                size_error(fmt::format("launch() gives the problem size '{}' twice", g.name));
            if (g.out_of_range)
                size_error(fmt::format("problem size '{}' is above 2^63-1", g.name));
            seen[i] = true;
            out[i] = g.value;
        }
        for (std::size_t i = 0; i < n; ++i)
            if (!seen[i])
                size_error(
                    fmt::format("launch() does not give the problem size '{}'", s.problem[i].name));
    }

    CUcontext current_context() {
        const cu::api& a = cu::driver();
        CUcontext ctx = nullptr;
        cu::check(a.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
        if (ctx) return ctx;
        // As the runtime API does: the device's primary context, made current on this thread.
        // Retained for the life of the process, as the runtime keeps it.
        std::call_once(primary_once, [&] {
            CUdevice dev = 0;
            cu::check(a.cuDeviceGet(&dev, opt.device), "cuDeviceGet");
            cu::check(a.cuDevicePrimaryCtxRetain(&primary, dev), "cuDevicePrimaryCtxRetain");
        });
        cu::check(a.cuCtxSetCurrent(primary), "cuCtxSetCurrent");
        return primary;
    }

    resolved* find(uint64_t ctx, const int64_t* v, std::size_t n) const {
        const uint64_t h = hash_key(ctx, v, n);
        const std::shared_lock lock(map_mutex);
        const auto it = map.find(h);
        if (it == map.end()) return nullptr;
        for (resolved* r : it->second)
            if (r->ctx_id == ctx && std::equal(v, v + n, r->sizes.begin())) return r;
        return nullptr;
    }

    const device_info& device(CUdevice dev) {
        auto it = devices.find(static_cast<int>(dev));
        if (it == devices.end())
            it = devices.emplace(static_cast<int>(dev), cu::read_device_info(static_cast<int>(dev)))
                     .first;
        return it->second;
    }

    runtime::select_inputs inputs() const { return {s, entries, source_hash, spec_hash, nvrtc}; }

    spec sized(const std::vector<int64_t>& sizes) const {
        spec out = s;
        for (std::size_t i = 0; i < out.problem.size(); ++i) out.problem[i].value = sizes[i];
        return out;
    }

    // Compiles (or takes from the caches) the configuration and returns its library.
    const library& load(const spec& at, const std::vector<int64_t>& sizes, const hone::config& c,
                        const bindings& scope, const std::string& arch,
                        const std::string& key_text) {
        const compile_request req = make_compile_request(at, c, scope, arch);
        const std::string key = req.cache_key();
        if (const auto it = libraries.find(key); it != libraries.end()) return it->second;
        std::optional<compile_result> r;
        if (opt.use_cache && !cache) {
            try {
                cache = std::make_unique<compile_cache>(
                    opt.cache_dir.empty() ? compile_cache::default_dir() : opt.cache_dir);
            } catch (
                const env_error& e) {  // no cache: every first launch compiles, and says why once
                opt.use_cache = false;
                runtime::log_line(runtime::log_level::warn,
                                  fmt::format("compile cache: {}; compiling without it", e.what()));
            }
        }
        if (cache) r = cache->get(key);
        if (!r) {
            r = compile_nvrtc(req, compile_timeout_s);
            if (r->ok && cache) {
                try {
                    cache->put(key, *r);
                } catch (const env_error& e) {  // a read-only cache costs the next run a compile
                    if (runtime::first_time("cache-put:" + cache->dir()))
                        runtime::log_line(runtime::log_level::warn,
                                          fmt::format("compile cache: {}", e.what()));
                }
            }
        }
        if (!r->ok)
            throw input_error(
                s.kernel.pos,
                fmt::format("{}: configuration {} does not compile at {}{}:\n{}", s.kernel.name,
                            key_text, runtime::problem_text(s, sizes),
                            r->timed_out ? " (NVRTC ran past its deadline)" : "", r->log));
        library l;
        l.function = r->lowered_name;
        cu::check(cu::driver().cuLibraryLoadData(&l.lib, r->cubin.data(), nullptr, nullptr, 0,
                                                 nullptr, nullptr, 0),
                  "cuLibraryLoadData");
        return libraries.emplace(key, std::move(l)).first->second;
    }

    // Fills r for the selected configuration in the current context; input_error when it
    // cannot compile or its launch cannot be evaluated.
    void prepare(resolved& r, const kernel_selection& sel, const device_info& dev) {
        const cu::api& a = cu::driver();
        const spec at = sized(r.sizes);
        hone::config c;
        for (const auto& [name, v] : sel.params) c.values.push_back(v);
        const bindings scope = c.scope(at, runtime::size_scope(at, r.sizes, dev.attrs));
        const library& l = load(at, r.sizes, c, scope, dev.attrs.arch(), sel.key);
        CUkernel k = nullptr;
        cu::check(a.cuLibraryGetKernel(&k, l.lib, l.function.c_str()), "cuLibraryGetKernel");
        cu::check(a.cuKernelGetFunction(&r.fn, k), "cuKernelGetFunction");
        const launch_dims d = eval_launch(at, at.launch.grid, at.launch.block, scope);
        r.grid = d.grid;
        r.block = d.block;
        r.shared_bytes = d.shared_bytes;
        r.cooperative = at.launch.cooperative;
        const std::vector<kernel_arg> args = eval_args(at, scope);
        r.scalar_slots.assign(args.size(), 0);
        r.buffer_bytes.assign(args.size(), 0);
        for (std::size_t i = 0; i < args.size(); ++i) {
            if (args[i].buffer < 0) {
                r.scalar_slots[i] = args[i].bits;
            } else {
                const buffer_spec& b = at.buffers[static_cast<std::size_t>(args[i].buffer)];
                r.buffer_bytes[i] =
                    static_cast<uint64_t>(std::max<int64_t>(0, b.count.eval_int(scope))) *
                    elem_size(b.type);
            }
        }
        // The launch must fit the compiled function: its register count limits the block.
        int max_threads = 0, static_shared = 0;
        cu::check(a.cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, r.fn),
                  "cuFuncGetAttribute");
        cu::check(a.cuFuncGetAttribute(&static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, r.fn),
                  "cuFuncGetAttribute");
        const int64_t threads = int64_t{r.block[0]} * r.block[1] * r.block[2];
        if (threads > max_threads)
            throw input_error(
                s.kernel.pos,
                fmt::format("{}: configuration {} launches blocks of {} threads; compiled, it "
                            "allows {} on {}",
                            s.kernel.name, sel.key, threads, max_threads, dev.attrs.name));
        const int64_t shared = int64_t{static_shared} + r.shared_bytes;
        if (shared > dev.attrs.max_shared_per_block_optin)
            throw input_error(
                s.kernel.pos,
                fmt::format("{}: configuration {} needs {} bytes of shared memory per block; "
                            "{} has {}",
                            s.kernel.name, sel.key, shared, dev.attrs.name,
                            dev.attrs.max_shared_per_block_optin));
        if (shared > dev.attrs.max_shared_per_block)
            cu::check(a.cuFuncSetAttribute(r.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           static_cast<int>(r.shared_bytes)),
                      "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    }

    // The first launch of a size in a context. Returns the entry, cached (failures too).
    resolved* resolve(uint64_t ctx_id, const int64_t* v, const uint64_t* slots, CUstream stream) {
        const std::size_t n = s.problem.size();
        const std::lock_guard lock(slow_mutex);
        if (resolved* r = find(ctx_id, v, n)) return r;
        auto r = std::make_unique<resolved>();
        r->ctx_id = ctx_id;
        r->sizes.assign(v, v + n);
        CUdevice dev_handle = 0;
        cu::check(cu::driver().cuCtxGetDevice(&dev_handle), "cuCtxGetDevice");
        const device_info& dev = device(dev_handle);
        try {
            kernel_selection sel = runtime::select_config(inputs(), dev.attrs, r->sizes);
            try {
                prepare(*r, sel, dev);
            } catch (const input_error& e) {
                if (sel.tier == selection_tier::fallback) throw;
                // The tuned choice cannot run here: the spec's default may.
                kernel_selection fb = runtime::fallback_config(s, dev.attrs, r->sizes);
                fb.notes.insert(
                    fb.notes.begin(),
                    fmt::format("the {} choice {} failed: {}", tier_name(sel.tier), sel.key,
                                e.message().substr(0, e.message().find('\n'))));
                runtime::log_line(
                    runtime::log_level::warn,
                    fmt::format("{} at {}: {}", s.kernel.name, runtime::problem_text(s, r->sizes),
                                fb.notes.front()));
                prepare(*r, fb, dev);
                sel = std::move(fb);
            }
            // Once per (kernel, device, sizes) in the process, however many handles or contexts.
            if (runtime::current_log_level() >= runtime::log_level::info &&
                runtime::first_time(fmt::format("select:{}|{}|{}|{}", s.path, s.kernel.name,
                                                dev.attrs.name, sel.problem)))
                runtime::log_line(runtime::log_level::info, sel.describe());
        } catch (const input_error& e) {
            r->failed = true;
            r->error_pos = e.pos();
            r->error = e.message();
        }
        if (capture && !capture_off && !r->failed) capture_size(*r, dev, slots, stream);
        resolved* out = r.get();
        all.push_back(std::move(r));
        const std::unique_lock map_lock(map_mutex);
        map[hash_key(ctx_id, v, n)].push_back(out);
        return out;
    }

    // Records this size once per process (and the inputs, read on the application's stream).
    // A capture that cannot be written is reported once and switched off: the application
    // goes on.
    void capture_size(const resolved& r, const device_info& dev, const uint64_t* slots,
                      CUstream stream) {
        const runtime::capture_settings& cs = runtime::capture_from_env();
        runtime::capture_record rec;
        std::error_code ec;
        rec.config = std::filesystem::absolute(s.path, ec).lexically_normal().string();
        rec.kernel = s.kernel.name;
        for (std::size_t i = 0; i < s.problem.size(); ++i)
            rec.problem.emplace_back(s.problem[i].name, r.sizes[i]);
        rec.device_name = dev.attrs.name;
        rec.arch = dev.attrs.arch();
        rec.uuid = dev.uuid;
        if (!runtime::first_time("capture:" + rec.config + "|" + runtime::capture_stem(rec)))
            return;
        std::vector<uint64_t> pointers;
        if (cs.inputs) {
            for (std::size_t i = 0; i < layout.slots.size(); ++i) {
                const runtime::arg_slot& a = layout.slots[i];
                const buffer_spec* b = a.is_buffer ? s.find_buffer(a.name) : nullptr;
                if (!b || b->role == buffer_role::out) continue;
                rec.inputs.push_back({a.name, elem_name(b->type),
                                      r.buffer_bytes[i] / elem_size(b->type), r.buffer_bytes[i],
                                      ""});
                pointers.push_back(slots[i]);
            }
        }
        try {
            runtime::write_capture(cs.dir, rec, [&](std::size_t i, void* dst) {
                const cu::api& a = cu::driver();
                cu::check(a.cuMemcpyDtoHAsync(dst, static_cast<CUdeviceptr>(pointers[i]),
                                              rec.inputs[i].bytes, stream),
                          "cuMemcpyDtoHAsync (capture)");
                cu::check(a.cuStreamSynchronize(stream), "cuStreamSynchronize (capture)");
            });
            runtime::log_line(
                runtime::log_level::info,
                fmt::format("captured {} at {} into {}", s.kernel.name,
                            rec.problem.empty() ? "" : runtime::problem_text(s, r.sizes), cs.dir));
        } catch (const env_error& e) {
            if (runtime::first_time("capture-failed"))
                runtime::log_line(
                    runtime::log_level::error,
                    fmt::format("HONE_CAPTURE: {}; capturing is off for the rest of this process",
                                e.what()));
            capture_off = true;
        }
    }

    [[noreturn]] void rethrow(const resolved& r) const { throw input_error(r.error_pos, r.error); }
};

kernel kernel::open(const std::string& config, const std::string& tuned,
                    const kernel_options& opt) {
    auto p = std::make_shared<impl>();
    p->s = load_spec(config);
    p->opt = opt;
    p->layout = runtime::arg_layout::of(p->s);
    for (const auto& b : p->s.buffers)
        if (!b.symbol.empty())
            throw input_error(
                b.pos, fmt::format("buffer '{}' fills the kernel's variable '{}': the kernel "
                                   "handle launches on the application's arguments and "
                                   "does not fill module variables (tuning does)",
                                   b.name, b.symbol));
    if (p->s.problem.size() > max_sizes)
        throw input_error({config, 0, 0},
                          fmt::format("{} problem sizes; the kernel handle takes at most {}",
                                      p->s.problem.size(), max_sizes));
    if (p->layout.slots.size() > max_args)
        throw input_error({config, 0, 0},
                          fmt::format("{} kernel arguments; the kernel handle takes at most {}",
                                      p->layout.slots.size(), max_args));
    p->source_hash = kernel_source_hash(p->s);
    p->spec_hash = make_identity(p->s, device_info{}).spec_hash;
    p->nvrtc = nvrtc_version();
    p->tuned_path = tuned;
    if (!tuned.empty()) {
        std::set<std::string> others;
        for (auto& e : read_tuned(tuned)) {
            if (e.kernel != p->s.kernel.name) {
                others.insert(e.kernel);
                continue;
            }
            if (e.source_hash != p->source_hash) ++p->stale;
            p->entries.push_back(std::move(e));
        }
        if (p->entries.empty() && runtime::first_time("no-entries:" + config + "|" + tuned))
            runtime::log_line(
                runtime::log_level::warn,
                fmt::format(
                    "{}: no tuned entries for {} in {}{}: every launch uses the default "
                    "configuration",
                    config, p->s.kernel.name, tuned,
                    others.empty() ? "" : fmt::format(" (it has {})", fmt::join(others, ", "))));
        if (p->stale > 0 && runtime::first_time("stale:" + config + "|" + tuned))
            runtime::log_line(
                runtime::log_level::warn,
                fmt::format(
                    "{}: {} of {} tuned entries for {} in {} are stale: the kernel source or "
                    "its headers changed since they were tuned, so they are not used (tune "
                    "again and export the wisdom again)",
                    config, p->stale, p->entries.size(), p->s.kernel.name, tuned));
    }
    const runtime::capture_settings& cs = runtime::capture_from_env();
    p->capture = runtime::capture_matches(cs.pattern, p->s.kernel.name);
    return kernel(std::move(p));
}

void kernel::launch_args(CUstream_st* stream, problem_sizes sizes,
                         std::span<const arg> args) const {
    impl& k = *impl_;
    int64_t v[max_sizes];
    k.order_sizes(sizes, v);
    uint64_t slots[max_args];
    const bool buffers_only = runtime::bind_args(k.layout, args, slots);
    const cu::api& a = cu::driver();
    const CUcontext ctx = k.current_context();
    unsigned long long ctx_id = 0;
    cu::check(a.cuCtxGetId(ctx, &ctx_id), "cuCtxGetId");
    const std::size_t n = k.s.problem.size();
    resolved* r = k.find(ctx_id, v, n);
    if (!r) {
        r = k.resolve(ctx_id, v, slots, stream);
    }
    if (r->failed) k.rethrow(*r);
    const std::size_t count = k.layout.slots.size();
    if (buffers_only)
        for (std::size_t i = 0; i < count; ++i)
            if (!k.layout.slots[i].is_buffer) slots[i] = r->scalar_slots[i];
    void* params[max_args];
    for (std::size_t i = 0; i < count; ++i) params[i] = &slots[i];
    const CUresult rc =
        cu::launch(a, r->fn, r->grid, r->block, r->shared_bytes, stream, params, r->cooperative);
    if (rc != CUDA_SUCCESS)
        cu::check(
            rc,
            fmt::format("{} ({})", cu::launch_call_name(r->cooperative), k.s.kernel.name).c_str());
}

kernel_selection kernel::selection(problem_sizes sizes, const device_attrs& dev) const {
    int64_t v[max_sizes];
    impl_->order_sizes(sizes, v);
    return runtime::select_config(impl_->inputs(), dev,
                                  std::vector<int64_t>(v, v + impl_->s.problem.size()));
}

kernel_selection kernel::selection(problem_sizes sizes) const {
    int64_t v[max_sizes];
    impl_->order_sizes(sizes, v);
    const cu::api& a = cu::driver();
    CUcontext ctx = nullptr;
    cu::check(a.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
    CUdevice dev = 0;
    if (ctx)
        cu::check(a.cuCtxGetDevice(&dev), "cuCtxGetDevice");
    else
        cu::check(a.cuDeviceGet(&dev, impl_->opt.device), "cuDeviceGet");
    device_attrs attrs;
    {
        const std::lock_guard lock(impl_->slow_mutex);
        attrs = impl_->device(dev).attrs;
    }
    return selection(sizes, attrs);
}

const std::string& kernel::name() const {
    return impl_->s.kernel.name;
}
const std::string& kernel::config() const {
    return impl_->s.path;
}
std::size_t kernel::tuned_entries() const {
    return impl_->entries.size();
}
std::size_t kernel::stale_entries() const {
    return impl_->stale;
}

}  // namespace hone
