#include "driver/cupti_api.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <vector>

namespace hone::cu {
namespace {

#define HONE_STRINGIFY2(x) #x
#define HONE_STRINGIFY(x) HONE_STRINGIFY2(x)

// Where libcupti is looked for, in order: $HONE_CUPTI_LIB; the loader's own search
// (LD_LIBRARY_PATH, the binary's RUNPATH, which holds the toolkit's lib64, the ld cache); then
// the toolkit's folders, where CUPTI lives in lib64 or extras/CUPTI/lib64.
std::vector<std::string> candidates() {
    std::vector<std::string> out;
    if (const char* own = std::getenv("HONE_CUPTI_LIB"); own && *own) out.emplace_back(own);
    for (const char* name : {"libcupti.so.13", "libcupti.so.12", "libcupti.so"})
        out.emplace_back(name);
    std::vector<std::string> roots;
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* v = std::getenv(var); v && *v) roots.emplace_back(v);
    roots.emplace_back("/usr/local/cuda");
    for (const auto& root : roots)
        for (const char* dir : {"lib64", "extras/CUPTI/lib64", "targets/x86_64-linux/lib"})
            out.push_back(fmt::format("{}/{}/libcupti.so", root, dir));
    return out;
}

struct cupti_loaded {
    cupti_functions f;
    bool ok = false;
    std::string why;
    void* lib = nullptr;
};

cupti_loaded load_cupti() {
    cupti_loaded l;
    void* lib = nullptr;
    std::string first_error;
    for (const auto& name : candidates()) {
        lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (lib) break;
        if (first_error.empty()) first_error = dlerror();
    }
    if (!lib) {
        l.why = fmt::format("libcupti not found ({}; set HONE_CUPTI_LIB to its path)", first_error);
        return l;
    }
    // Never closed: CUPTI keeps threads and callbacks for the life of the process.
    l.lib = lib;
#define HONE_CUPTI_RESOLVE(fn)                                                                     \
    l.f.fn = reinterpret_cast<decltype(l.f.fn)>(dlsym(lib, HONE_STRINGIFY(fn)));                   \
    if (!l.f.fn) {                                                                                 \
        l.why =                                                                                    \
            fmt::format("libcupti lacks {} (hone needs CUPTI 12.8 or newer)", HONE_STRINGIFY(fn)); \
        return l;                                                                                  \
    }
    HONE_CUPTI_FUNCTIONS(HONE_CUPTI_RESOLVE)
#undef HONE_CUPTI_RESOLVE
    l.ok = true;
    return l;
}

const cupti_loaded& cupti_library() {
    static const cupti_loaded l = load_cupti();  // thread-safe, once
    return l;
}

}  // namespace

const cupti_functions* cupti(std::string& why) {
    const cupti_loaded& l = cupti_library();
    if (!l.ok) {
        why = l.why;
        return nullptr;
    }
    return &l.f;
}

const profiler_functions* cupti_profiler(std::string& why) {
    struct resolved {
        profiler_functions f;
        std::string why;  // empty when every function resolved
    };
    static const resolved p = [] {
        resolved r;
        const cupti_loaded& l = cupti_library();
        if (!l.ok) {
            r.why = l.why;
            return r;
        }
#define HONE_CUPTI_RESOLVE(fn)                                                                  \
    r.f.fn = reinterpret_cast<decltype(r.f.fn)>(dlsym(l.lib, HONE_STRINGIFY(fn)));              \
    if (!r.f.fn) {                                                                              \
        r.why = fmt::format("libcupti lacks {} (its range profiler needs CUPTI 12.6 or newer)", \
                            HONE_STRINGIFY(fn));                                                \
        return r;                                                                               \
    }
        HONE_CUPTI_PROFILER_FUNCTIONS(HONE_CUPTI_RESOLVE)
#undef HONE_CUPTI_RESOLVE
        return r;
    }();
    if (!p.why.empty()) {
        why = p.why;
        return nullptr;
    }
    return &p.f;
}

std::string cupti_error(const cupti_functions& f, CUptiResult r) {
    const char* text = nullptr;
    if (f.cuptiGetResultString(r, &text) == CUPTI_SUCCESS && text) return text;
    return fmt::format("CUPTI error {}", static_cast<int>(r));
}

}  // namespace hone::cu
