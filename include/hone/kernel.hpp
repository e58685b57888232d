// Tuned kernels inside an application. A handle opens a search config and its tuned results
// (a wisdom file or a results database), and launches the kernel on the application's stream,
// in the application's current context, with the configuration tuning found best for this GPU
// and these problem sizes:
//
//   hone::kernel k = hone::kernel::open("configs/vector_add.yaml", "wisdom.json");
//   k.launch(stream, {{"N", n}}, a, b, c);          // scalars (N) evaluated from the sizes
//   k.launch(stream, {{"N", n}}, a, b, c, n);       // or passed
//
// The first launch of a problem size on a context selects a configuration (kernel_selection
// says which and why), compiles it with NVRTC in this process (or takes it from the compile
// cache) and loads it; later launches of that size are a hash lookup and cuLaunchKernel.
// Thread-safe: any number of threads may launch through one handle (copies share it).
//
// Arguments bind in the order of the spec's `args`: a buffer takes a device pointer (T*, void*,
// or hone::device_ptr(CUdeviceptr)); a scalar takes an integer or floating-point value. Integers
// are always scalars, never pointers: CUdeviceptr is an integer type, so wrap it in
// hone::device_ptr(). Either every argument is given, or only the buffers (in order), and then
// each scalar is the value of its expression at the given sizes.
//
// Errors: bad arguments or sizes, a config or tuned-results file that cannot be read, a kernel
// that does not compile: input_error (the message names the kernel and what was expected); a
// driver failure: env_error (a cuda_error). Nothing here aborts the process.
//
// Environment: HONE_LOG=off|error|warn|info (default warn) prints each size's selection once at
// info; HONE_CAPTURE=<glob> records each size launched, once, into HONE_CAPTURE_DIR (and with
// HONE_CAPTURE_INPUTS=1 the in/inout buffers, read on the launch's stream and synchronised).
// A capture folder that cannot be written is reported once on stderr and capturing stops: the
// launch never fails for it (docs/embedding.md, "Capture").
#pragma once
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "hone/device_attrs.hpp"
#include "hone/elem_type.hpp"
#include "hone/error.hpp"
#include "hone/value.hpp"
#include "hone/wisdom.hpp"

// cudaStream_t and CUstream are both `CUstream_st*`: a handle takes either without cuda.h.
struct CUstream_st;

namespace hone {

// One problem size of a launch: {"N", n}. Any integer type; an unsigned value above INT64_MAX
// is refused at launch.
struct size_value {
    std::string_view name;
    int64_t value = 0;
    bool out_of_range = false;
    template <std::integral I>
    constexpr size_value(std::string_view n, I v)
        : name(n),
          value(static_cast<int64_t>(v)),
          out_of_range(std::is_unsigned_v<I> &&
                       static_cast<uint64_t>(v) >
                           static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {}
};

// A view of the sizes given to one call: `{{"N", n}, {"M", m}}`, or a vector of them.
class problem_sizes {
  public:
    // The list's array lives until the end of the call's full expression, as long as the view.
    problem_sizes(std::initializer_list<size_value> l) : n_(l.size()) { p_ = l.begin(); }
    problem_sizes(std::span<const size_value> s) : p_(s.data()), n_(s.size()) {}
    problem_sizes(const std::vector<size_value>& v) : p_(v.data()), n_(v.size()) {}
    const size_value* begin() const { return p_; }
    const size_value* end() const { return p_ + n_; }
    std::size_t size() const { return n_; }

  private:
    const size_value* p_;
    std::size_t n_;
};

// The element type a pointer argument declares; specialise for your own element types (e.g.
// `template <> struct hone::elem_type_of<__half> { static constexpr elem_type value =
// elem_type::f16; };`). Pointers to other types are untyped and bind to any buffer.
template <class T>
struct elem_type_of {};
template <>
struct elem_type_of<float> {
    static constexpr elem_type value = elem_type::f32;
};
template <>
struct elem_type_of<double> {
    static constexpr elem_type value = elem_type::f64;
};
template <>
struct elem_type_of<int8_t> {
    static constexpr elem_type value = elem_type::i8;
};
template <>
struct elem_type_of<int16_t> {
    static constexpr elem_type value = elem_type::i16;
};
template <>
struct elem_type_of<int32_t> {
    static constexpr elem_type value = elem_type::i32;
};
template <>
struct elem_type_of<long> {
    static constexpr elem_type value = elem_type::i64;
};
template <>
struct elem_type_of<long long> {
    static constexpr elem_type value = elem_type::i64;
};
template <>
struct elem_type_of<uint8_t> {
    static constexpr elem_type value = elem_type::u8;
};
template <>
struct elem_type_of<uint16_t> {
    static constexpr elem_type value = elem_type::u16;
};
template <>
struct elem_type_of<uint32_t> {
    static constexpr elem_type value = elem_type::u32;
};
template <>
struct elem_type_of<unsigned long> {
    static constexpr elem_type value = elem_type::u64;
};
template <>
struct elem_type_of<unsigned long long> {
    static constexpr elem_type value = elem_type::u64;
};

template <class T>
concept has_elem_type = requires {
    elem_type_of<std::remove_cv_t<T>>::value;
};

// One kernel argument, typed: a device pointer or a scalar.
class arg {
  public:
    enum class kind : uint8_t { pointer, signed_int, unsigned_int, real };

    template <class T>
    arg(T* p) : kind_(kind::pointer), bits_(reinterpret_cast<uintptr_t>(p)) {
        if constexpr (has_elem_type<T>) {
            typed_ = true;
            elem_ = elem_type_of<std::remove_cv_t<T>>::value;
        }
    }
    arg(std::nullptr_t) : kind_(kind::pointer) {}
    template <class T>
    requires std::is_integral_v<T> arg(T v)
        : kind_(std::is_signed_v<T> ? kind::signed_int : kind::unsigned_int),
          bits_(static_cast<uint64_t>(v)),
          size_(sizeof(T)) {}
    template <class T>
    requires std::is_floating_point_v<T> arg(T v)
        : kind_(kind::real), real_(static_cast<double>(v)), size_(sizeof(T)) {}

    // A CUdeviceptr (an integer) as a device pointer, untyped or of element type `t`.
    static arg device_ptr(unsigned long long address) { return arg(address, false, elem_type::u8); }
    static arg device_ptr(unsigned long long address, elem_type t) { return arg(address, true, t); }

    kind what() const { return kind_; }
    uint64_t bits() const { return bits_; }  // pointer address or integer (two's complement)
    double real() const { return real_; }
    bool typed() const { return typed_; }  // a pointer with a known element type
    elem_type elem() const { return elem_; }
    std::size_t size() const { return size_; }  // bytes of the C++ scalar type

  private:
    arg(unsigned long long address, bool typed, elem_type t)
        : kind_(kind::pointer), bits_(address), typed_(typed), elem_(t) {}
    kind kind_ = kind::pointer;
    uint64_t bits_ = 0;
    double real_ = 0;
    bool typed_ = false;
    elem_type elem_ = elem_type::u8;
    std::size_t size_ = 0;
};

inline arg device_ptr(unsigned long long address) {
    return arg::device_ptr(address);
}

// Where the configuration of a launch came from, best first:
//   exact         tuned on a GPU of this name at exactly these sizes;
//   nearest       tuned on a GPU of this name at other sizes: the configuration with the
//                 lowest interpolated relative time over the nearest tuned sizes
//                 (docs/embedding.md);
//   architecture  tuned on another GPU of this architecture and name family (H100 PCIe for
//                 an H100 SXM): exact sizes, else nearest, among its entries;
//   fallback      nothing tuned applies: the spec's verify reference configuration when it is
//                 valid at these sizes, else the first valid configuration of the space.
enum class selection_tier { exact, nearest, architecture, fallback };
const char* tier_name(selection_tier t);  // "exact", "nearest", "architecture", "default"

struct kernel_selection {
    selection_tier tier = selection_tier::fallback;
    std::string kernel;                                 // the spec's kernel name
    std::vector<std::pair<std::string, value>> params;  // the configuration, in spec order
    std::string key;                                    // "BLOCK=256,STRIDED=false,..."
    std::string problem;                                // the sizes asked for, "N=1000"
    std::string device;                                 // the device asked for
    // The tuned entry the configuration was read from (for nearest: the nearest neighbour);
    // absent for fallback.
    bool from_tuned = false;
    tuned_entry entry;           // identity, device, sizes and objective (configs omitted)
    double tuned_time_us = 0;    // the configuration's median time there (0: not listed)
    std::size_t tuned_rank = 0;  // its rank there, 1 = the best (0: not listed)
    double predicted_rel = 1;    // nearest: interpolated relative time (1 = best everywhere)
    std::vector<std::pair<std::string, double>> neighbours;  // nearest: problem -> weight
    std::vector<std::string> notes;  // stale entries skipped, invalid choices passed over...
    std::string describe() const;    // one line: tier, key, source
};

struct kernel_options {
    int device = 0;  // whose primary context to use when the calling thread has none current
    // The compile cache; "" = $HONE_CACHE_DIR, else $XDG_CACHE_HOME/hone, else ~/.cache/hone.
    std::string cache_dir;
    bool use_cache = true;
};

class kernel {
  public:
    // Loads the config (input_error with a position when it is malformed) and the tuned
    // results (`tuned`: a wisdom file or a results database; "" = none, so every launch uses
    // the fallback configuration). Needs no GPU. Entries whose kernel source or included
    // headers changed since tuning are stale: never used, warned about once on stderr.
    static kernel open(const std::string& config, const std::string& tuned = "",
                       const kernel_options& opt = {});

    template <class... A>
    void launch(CUstream_st* stream, problem_sizes sizes, const A&... args) const {
        const std::array<arg, sizeof...(A)> list{arg(args)...};
        launch_args(stream, sizes, std::span<const arg>(list.data(), list.size()));
    }
    void launch_args(CUstream_st* stream, problem_sizes sizes, std::span<const arg> args) const;

    // The configuration a launch at these sizes uses, and why: on the current context's
    // device (or the options' device), or on the device described by `dev` (no GPU needed).
    kernel_selection selection(problem_sizes sizes) const;
    kernel_selection selection(problem_sizes sizes, const device_attrs& dev) const;

    const std::string& name() const;    // the spec's kernel name
    const std::string& config() const;  // the config path, as given
    // Tuned entries of this kernel that were read, and how many of them are stale.
    std::size_t tuned_entries() const;
    std::size_t stale_entries() const;

  private:
    struct impl;
    explicit kernel(std::shared_ptr<impl> p) : impl_(std::move(p)) {}
    std::shared_ptr<impl> impl_;
};

}  // namespace hone
