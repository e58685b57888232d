// hone.Kernel: hone::kernel launched on framework tensors, without copies. A buffer argument is
// any object that exposes device memory: a torch.Tensor (read through its own accessors, the
// fastest way in), an object with __cuda_array_interface__ (CuPy, Numba, ...), or one that
// speaks DLPack (JAX, ...). Each is checked against the spec's buffer (device memory, one
// device for all, element type, C-contiguity, at least the count the spec's expression gives at
// these sizes) before anything is launched. The launch goes to the given stream, else the
// framework's current stream (torch's current stream of the tensor's device; the stream that a
// __cuda_array_interface__ names; the legacy default stream for DLPack), in the tensor's
// device's primary context; nothing synchronises.
#include <nanobind/ndarray.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <optional>

#include "bindings.hpp"
#include "cuda_min.hpp"
#include "hone/device_attrs.hpp"
#include "hone/spec.hpp"

namespace hone::py {
namespace {

constexpr std::size_t max_args = 64;
constexpr std::size_t max_sizes = 32;

// A buffer argument as found.
struct device_array {
    uint64_t address = 0;
    std::optional<elem_type> type;  // nullopt: an element type hone has no name for
    std::string type_text;          // the framework's name of it, for messages
    nb::object type_obj;            // or the object whose str() names it (made on an error)
    int device = -1;
    int64_t count = 0;  // elements
    bool contiguous = true;
    std::optional<uint64_t> stream;  // the framework's current stream for it, when known
};

// torch, found once it is imported: the tensor type, its dtypes, and the current-stream call.
struct torch_api {
    PyObject* tensor = nullptr;
    std::vector<std::pair<PyObject*, elem_type>> dtypes;
    // torch._C._cuda_getCurrentRawStream(device) -> int. Owned references, never released:
    // static destructors run after the interpreter is gone.
    PyObject* raw_stream = nullptr;
    bool ready = false;

    bool find() {
        if (ready) return true;
        PyObject* mods = PyImport_GetModuleDict();
        PyObject* torch = PyDict_GetItemString(mods, "torch");  // borrowed
        if (!torch) return false;
        nb::handle t(torch);
        if (!nb::hasattr(t, "Tensor") || !nb::hasattr(t, "float32")) return false;  // importing
        tensor = t.attr("Tensor").inc_ref().ptr();
        const std::pair<const char*, elem_type> names[] = {
            {"float16", elem_type::f16}, {"bfloat16", elem_type::bf16}, {"float32", elem_type::f32},
            {"float64", elem_type::f64}, {"int8", elem_type::i8},       {"int16", elem_type::i16},
            {"int32", elem_type::i32},   {"int64", elem_type::i64},     {"uint8", elem_type::u8},
            {"uint16", elem_type::u16},  {"uint32", elem_type::u32},    {"uint64", elem_type::u64}};
        for (const auto& [name, type] : names)
            if (nb::hasattr(t, name)) dtypes.emplace_back(t.attr(name).inc_ref().ptr(), type);
        nb::object c = t.attr("_C");
        if (nb::hasattr(c, "_cuda_getCurrentRawStream"))
            raw_stream = c.attr("_cuda_getCurrentRawStream").inc_ref().ptr();
        ready = true;
        return true;
    }
};

torch_api g_torch;

// CuPy, found once it is imported: its array type and current-stream call (its
// __cuda_array_interface__ names a stream only in some configurations).
struct cupy_api {
    PyObject* ndarray = nullptr;
    PyObject* current_stream = nullptr;  // cupy.cuda.get_current_stream() -> Stream (.ptr)
    bool ready = false;

    bool find() {
        if (ready) return true;
        PyObject* cupy = PyDict_GetItemString(PyImport_GetModuleDict(), "cupy");  // borrowed
        if (!cupy) return false;
        nb::handle c(cupy);
        if (!nb::hasattr(c, "ndarray") || !nb::hasattr(c, "cuda")) return false;  // importing
        nb::object cuda = c.attr("cuda");
        if (!nb::hasattr(cuda, "get_current_stream")) return false;
        ndarray = c.attr("ndarray").inc_ref().ptr();
        current_stream = cuda.attr("get_current_stream").inc_ref().ptr();
        ready = true;
        return true;
    }
};

cupy_api g_cupy;

// Interned attribute names.
struct names {
    nb::object is_cuda, data_ptr, get_device, dtype, is_contiguous, numel, device, cai, dlpack,
        cuda_stream, ptr, cuda_stream_protocol;
    names() {
        auto s = [](const char* n) { return nb::steal(PyUnicode_InternFromString(n)); };
        is_cuda = s("is_cuda");
        data_ptr = s("data_ptr");
        get_device = s("get_device");
        dtype = s("dtype");
        is_contiguous = s("is_contiguous");
        numel = s("numel");
        device = s("device");
        cai = s("__cuda_array_interface__");
        dlpack = s("__dlpack__");
        cuda_stream = s("cuda_stream");
        ptr = s("ptr");
        cuda_stream_protocol = s("__cuda_stream__");
    }
};

const names& attr_names() {
    static const names* n = new names();  // never freed: used until the interpreter ends
    return *n;
}

nb::object call_method(nb::handle o, const nb::object& name) {
    PyObject* args[] = {o.ptr()};
    PyObject* r = PyObject_VectorcallMethod(name.ptr(), args, 1, nullptr);
    if (!r) throw nb::python_error();
    return nb::steal(r);
}

int64_t to_int(nb::handle h) {
    const long long v = PyLong_AsLongLong(h.ptr());
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    return v;
}

uint64_t to_address(nb::handle h) {
    const unsigned long long v = PyLong_AsUnsignedLongLong(h.ptr());
    if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) throw nb::python_error();
    return v;
}

std::string type_of(nb::handle h) {
    return nb::type_name(h.type()).c_str();
}

// str(h) as text. Through a handle on purpose: nb::str of an attribute accessor borrows the
// object as if it were a str (no conversion), and its c_str() is then null.
std::string str_of(nb::handle h) {
    const nb::str s(h);
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(s.ptr(), &size);
    if (!text) throw nb::python_error();
    return std::string(text, static_cast<std::size_t>(size));
}

device_array from_torch(nb::handle o, bool want_stream) {
    const names& n = attr_names();
    device_array a;
    if (!nb::cast<bool>(o.attr(n.is_cuda))) {
        a.device = -1;
        a.type_text = "torch.Tensor on " + str_of(nb::object(o.attr(n.device)));
        return a;
    }
    a.address = to_address(call_method(o, n.data_ptr));
    a.device = static_cast<int>(to_int(call_method(o, n.get_device)));
    nb::object dt = o.attr(n.dtype);
    for (const auto& [obj, type] : g_torch.dtypes)
        if (obj == dt.ptr()) a.type = type;
    a.type_obj = std::move(dt);
    a.contiguous = nb::cast<bool>(call_method(o, n.is_contiguous));
    a.count = to_int(call_method(o, n.numel));
    if (want_stream && g_torch.raw_stream)
        a.stream = to_address(nb::handle(g_torch.raw_stream)(a.device));
    return a;
}

// typestr of __cuda_array_interface__: "<f4", "|u1", ...
std::optional<elem_type> from_typestr(const std::string& t) {
    if (t.size() < 3 || t[0] == '>') return std::nullopt;
    const std::string k = t.substr(1);
    static const std::map<std::string, elem_type> m = {
        {"f2", elem_type::f16}, {"f4", elem_type::f32}, {"f8", elem_type::f64},
        {"i1", elem_type::i8},  {"i2", elem_type::i16}, {"i4", elem_type::i32},
        {"i8", elem_type::i64}, {"u1", elem_type::u8},  {"u2", elem_type::u16},
        {"u4", elem_type::u32}, {"u8", elem_type::u64}};
    const auto it = m.find(k);
    if (it == m.end()) return std::nullopt;
    return it->second;
}

device_array from_cai(nb::handle iface) {
    device_array a;
    nb::dict d = nb::cast<nb::dict>(iface);
    nb::tuple data = nb::cast<nb::tuple>(d["data"]);
    a.address = to_address(data[0]);
    const std::string typestr = nb::cast<std::string>(d["typestr"]);
    a.type = from_typestr(typestr);
    a.type_text = "typestr " + typestr;
    nb::tuple shape = nb::cast<nb::tuple>(d["shape"]);
    const std::size_t elem =
        typestr.size() >= 3 ? static_cast<std::size_t>(std::atoi(typestr.c_str() + 2)) : 0;
    a.count = 1;
    std::vector<int64_t> dims;
    for (nb::handle s : shape) {
        dims.push_back(to_int(s));
        a.count *= dims.back();
    }
    if (d.contains("strides") && !d["strides"].is_none()) {
        nb::tuple strides = nb::cast<nb::tuple>(d["strides"]);
        int64_t expect = static_cast<int64_t>(elem);
        for (std::size_t i = dims.size(); i-- > 0;) {
            if (dims[i] != 1 && to_int(strides[i]) != expect) a.contiguous = false;
            expect *= dims[i];
        }
    }
    if (d.contains("stream") && !d["stream"].is_none()) a.stream = to_address(d["stream"]);
    // The interface names no device: the driver knows the pointer's (a null pointer of an
    // empty array has none).
    a.device = a.address == 0 && a.count == 0 ? -2 : cuda::pointer_device(a.address);
    return a;
}

device_array from_dlpack(nb::handle o) {
    device_array a;
    nb::ndarray<> arr;
    try {
        arr = nb::cast<nb::ndarray<>>(o, false);
    } catch (const nb::cast_error&) {
        a.device = -3;  // not an array at all
        return a;
    }
    const int dev_type = arr.device_type();
    if (dev_type != nb::device::cuda::value && dev_type != nb::device::cuda_managed::value) {
        a.device = -1;
        a.type_text = type_of(o) + " on DLPack device type " + std::to_string(dev_type);
        return a;
    }
    a.device = arr.device_id();
    a.address = reinterpret_cast<uint64_t>(arr.data());
    const nb::dlpack::dtype t = arr.dtype();
    const int bits = t.bits;
    using code = nb::dlpack::dtype_code;
    if (t.lanes == 1) {
        if (t.code == static_cast<uint8_t>(code::Float))
            a.type = bits == 16   ? std::optional(elem_type::f16)
                     : bits == 32 ? std::optional(elem_type::f32)
                     : bits == 64 ? std::optional(elem_type::f64)
                                  : std::nullopt;
        else if (t.code == static_cast<uint8_t>(code::Bfloat) && bits == 16)
            a.type = elem_type::bf16;
        else if (t.code == static_cast<uint8_t>(code::Int))
            a.type = bits == 8    ? std::optional(elem_type::i8)
                     : bits == 16 ? std::optional(elem_type::i16)
                     : bits == 32 ? std::optional(elem_type::i32)
                     : bits == 64 ? std::optional(elem_type::i64)
                                  : std::nullopt;
        else if (t.code == static_cast<uint8_t>(code::UInt))
            a.type = bits == 8    ? std::optional(elem_type::u8)
                     : bits == 16 ? std::optional(elem_type::u16)
                     : bits == 32 ? std::optional(elem_type::u32)
                     : bits == 64 ? std::optional(elem_type::u64)
                                  : std::nullopt;
    }
    a.type_text = "DLPack dtype code " + std::to_string(t.code) + " of " + std::to_string(bits) +
                  " bits" + (t.lanes != 1 ? " x" + std::to_string(t.lanes) : "");
    a.count = 1;
    int64_t expect = 1;
    for (std::size_t i = arr.ndim(); i-- > 0;) {
        const int64_t dim = static_cast<int64_t>(arr.shape(i));
        a.count *= dim;
        if (dim != 1 && arr.stride(i) != expect) a.contiguous = false;
        expect *= dim;
    }
    return a;
}

// A stream given as an int, a torch.cuda.Stream (cuda_stream), a cupy Stream (ptr), or any
// object with __cuda_stream__ (the CUDA stream protocol: (version, handle)).
uint64_t stream_of(nb::handle s) {
    const names& n = attr_names();
    if (PyLong_Check(s.ptr())) return to_address(s);
    if (nb::hasattr(s, n.cuda_stream_protocol)) {
        nb::object t = call_method(s, n.cuda_stream_protocol);
        return to_address(nb::cast<nb::tuple>(t)[1]);
    }
    if (nb::hasattr(s, n.cuda_stream)) return to_address(s.attr(n.cuda_stream));
    if (nb::hasattr(s, n.ptr)) return to_address(s.attr(n.ptr));
    throw_input(
        "stream: expected a stream handle (an int), a torch.cuda.Stream, a cupy Stream or "
        "an object with __cuda_stream__, not " +
        type_of(s));
}

class py_kernel {
  public:
    py_kernel(const std::filesystem::path& config, std::optional<std::filesystem::path> tuned,
              int device, std::optional<std::filesystem::path> cache_dir, bool use_cache) {
        kernel_options opt;
        opt.device = device;
        opt.cache_dir = cache_dir ? cache_dir->string() : "";
        opt.use_cache = use_cache;
        k_.emplace(kernel::open(config.string(), tuned ? tuned->string() : "", opt));
        s_ = load_spec(config.string());
        for (const auto& p : s_.problem)
            size_keys_.push_back(nb::steal(PyUnicode_InternFromString(p.name.c_str())));
        for (const auto& a : s_.args) {
            slot sl;
            sl.is_buffer = a.is_buffer;
            sl.name = a.is_buffer ? a.buffer : a.scalar.text();
            sl.type = a.type;
            if (a.is_buffer) {
                const buffer_spec* b = s_.find_buffer(a.buffer);
                sl.type = b->type;
                sl.count = b->count;
                ++buffers_;
            }
            slots_.push_back(std::move(sl));
        }
    }

    void call(nb::args args, std::optional<nb::dict> sizes, nb::handle stream) {
        // Sizes, in the spec's order.
        std::array<int64_t, max_sizes> v{};
        std::vector<size_value> given;
        given.reserve(s_.problem.size());
        order_sizes(sizes, v.data());
        for (std::size_t i = 0; i < s_.problem.size(); ++i)
            given.emplace_back(s_.problem[i].name, v[i]);

        const std::size_t n = args.size();
        std::vector<arg> list;
        list.reserve(n);
        const bool all = n == slots_.size();
        const bool buffers_only = n == buffers_ && !all;
        if ((!all && !buffers_only) || n > max_args) {
            // libhone's message says what is expected.
            list.assign(std::min(n, max_args), arg(nullptr));
            {
                nb::gil_scoped_release release;
                k_->launch_args(nullptr, problem_sizes(given), std::span<const arg>(list));
            }
            throw_input(s_.kernel.name + ": " + std::to_string(n) + " arguments given");
        }
        const std::vector<int64_t>* counts = nullptr;
        int device = -2;
        std::optional<uint64_t> default_stream;
        std::size_t slot_i = 0;
        for (std::size_t i = 0; i < n; ++i, ++slot_i) {
            while (buffers_only && !slots_[slot_i].is_buffer) ++slot_i;
            const slot& sl = slots_[slot_i];
            nb::handle o = args[i];
            if (!sl.is_buffer) {
                list.push_back(scalar(o, i, sl));
                continue;
            }
            const device_array a = array_of(o, i, sl, !default_stream);
            if (a.device >= 0) {
                if (device >= 0 && a.device != device)
                    wrong(i, sl,
                          "on GPU " + std::to_string(a.device) + ", the earlier buffers on GPU " +
                              std::to_string(device) + ": a launch runs on one device");
                device = a.device;
            }
            if (!default_stream && a.stream) default_stream = a.stream;
            if (!counts) counts = &counts_at(v.data());
            const int64_t need = (*counts)[slot_i];
            if (need >= 0 && a.count < need)
                wrong(i, sl,
                      std::to_string(a.count) + " elements; the spec's count " + sl.count.text() +
                          " is " + std::to_string(need) + " at " + problem_text(v.data()));
            list.push_back(arg::device_ptr(a.address, sl.type));
        }
        uint64_t st = 0;
        if (!stream.is_none())
            st = stream_of(stream);
        else if (default_stream)
            st = *default_stream;
        // Launch in the tensors' device's primary context when another device's is current.
        const bool switch_context = device >= 0 && cuda::current_device() != device;
        cuda::context ctx = switch_context ? cuda::primary_context(device) : nullptr;
        nb::gil_scoped_release release;
        if (switch_context) cuda::push(ctx);
        try {
            k_->launch_args(reinterpret_cast<CUstream_st*>(st), problem_sizes(given),
                            std::span<const arg>(list));
        } catch (...) {
            if (switch_context) cuda::pop();
            throw;
        }
        if (switch_context) cuda::pop();
    }

    nb::dict selection(std::optional<nb::dict> sizes, std::optional<std::string> arch) {
        std::array<int64_t, max_sizes> v{};
        order_sizes(sizes, v.data());
        std::vector<size_value> given;
        for (std::size_t i = 0; i < s_.problem.size(); ++i)
            given.emplace_back(s_.problem[i].name, v[i]);
        if (arch) {
            const std::optional<device_attrs> dev = nominal_device(*arch);
            if (!dev) throw_input("arch: no nominal device for '" + *arch + "' (e.g. sm_90)");
            return selection_to_py(k_->selection(problem_sizes(given), *dev));
        }
        kernel_selection sel;
        {
            nb::gil_scoped_release release;
            sel = k_->selection(problem_sizes(given));
        }
        return selection_to_py(sel);
    }

    const std::string& name() const { return k_->name(); }
    const std::string& config() const { return k_->config(); }
    std::size_t tuned_entries() const { return k_->tuned_entries(); }
    std::size_t stale_entries() const { return k_->stale_entries(); }
    nb::list problem_names() const {
        nb::list l;
        for (const auto& p : s_.problem) l.append(nb::str(p.name.c_str()));
        return l;
    }
    nb::list arg_names() const {
        nb::list l;
        for (const auto& s : slots_) l.append(nb::str(s.name.c_str()));
        return l;
    }

  private:
    struct slot {
        bool is_buffer = true;
        std::string name;
        elem_type type = elem_type::f32;
        expression count;
    };

    [[noreturn]] void wrong(std::size_t i, const slot& sl, const std::string& what) const {
        throw_input(s_.kernel.name + ": argument " + std::to_string(i + 1) + " (" + sl.name +
                    "): " + what);
    }

    void order_sizes(const std::optional<nb::dict>& sizes, int64_t* out) const {
        std::size_t found = 0;
        for (std::size_t i = 0; i < s_.problem.size(); ++i) {
            const std::string& name = s_.problem[i].name;
            PyObject* item =
                sizes ? PyDict_GetItemWithError(sizes->ptr(), size_keys_[i].ptr()) : nullptr;
            if (!item && PyErr_Occurred()) throw nb::python_error();
            if (!item)
                throw_input(s_.kernel.name + ": sizes does not give the problem size '" + name +
                            "' (the spec's sizes are " + size_names() + ")");
            if (!PyLong_Check(item) || PyBool_Check(item))
                throw_input(s_.kernel.name + ": sizes['" + name + "'] must be an int, not " +
                            type_of(item));
            int overflow = 0;
            out[i] = PyLong_AsLongLongAndOverflow(item, &overflow);
            if (overflow) throw_input(s_.kernel.name + ": sizes['" + name + "'] is out of range");
            ++found;
        }
        if (sizes && nb::len(*sizes) != found)
            for (auto [k, v] : *sizes) {
                const std::string key = str_of(k);
                if (std::none_of(s_.problem.begin(), s_.problem.end(),
                                 [&](const problem_size& p) { return p.name == key; }))
                    throw_input(s_.kernel.name + ": sizes names '" + key +
                                "', which is not a problem size of the spec (" + size_names() +
                                ")");
            }
    }

    std::string size_names() const {
        std::string out;
        for (const auto& p : s_.problem) out += (out.empty() ? "" : ", ") + p.name;
        return out.empty() ? "none" : out;
    }

    std::string problem_text(const int64_t* v) const {
        std::string out;
        for (std::size_t i = 0; i < s_.problem.size(); ++i)
            out += (i ? "," : "") + s_.problem[i].name + "=" + std::to_string(v[i]);
        return out;
    }

    // Per argument slot: the elements its buffer needs at these sizes (-1: not known without
    // the device, or not a buffer).
    const std::vector<int64_t>& counts_at(const int64_t* v) {
        const std::size_t n = s_.problem.size();
        if (last_counts_ && std::equal(v, v + n, last_sizes_.begin())) return *last_counts_;
        std::vector<int64_t> key(v, v + n);
        if (auto it = counts_.find(key); it != counts_.end()) {
            last_sizes_ = key;
            last_counts_ = &it->second;
            return it->second;
        }
        bindings scope;
        for (std::size_t i = 0; i < s_.problem.size(); ++i) scope[s_.problem[i].name] = v[i];
        std::vector<int64_t> c(slots_.size(), -1);
        for (std::size_t i = 0; i < slots_.size(); ++i) {
            if (!slots_[i].is_buffer) continue;
            try {
                c[i] = slots_[i].count.eval_int(scope);
            } catch (const input_error&) {  // a count over device attributes
            }
        }
        if (counts_.size() > 4096) counts_.clear();
        last_sizes_ = key;
        last_counts_ = &counts_.emplace(std::move(key), std::move(c)).first->second;
        return *last_counts_;
    }

    arg scalar(nb::handle o, std::size_t i, const slot& sl) const {
        if (PyFloat_Check(o.ptr())) return arg(PyFloat_AsDouble(o.ptr()));
        if (PyLong_Check(o.ptr()) || PyIndex_Check(o.ptr())) {
            nb::object idx = nb::steal(PyNumber_Index(o.ptr()));
            if (!idx.is_valid()) throw nb::python_error();
            int overflow = 0;
            const long long v = PyLong_AsLongLongAndOverflow(idx.ptr(), &overflow);
            if (!overflow) return arg(static_cast<int64_t>(v));
            const unsigned long long u = PyLong_AsUnsignedLongLong(idx.ptr());
            if (PyErr_Occurred()) {
                PyErr_Clear();
                wrong(i, sl, "an integer outside the 64-bit range");
            }
            return arg(static_cast<uint64_t>(u));
        }
        if (nb::hasattr(o, "__float__")) {
            const double d = PyFloat_AsDouble(o.ptr());
            if (d == -1.0 && PyErr_Occurred()) throw nb::python_error();
            return arg(d);
        }
        wrong(i, sl,
              std::string("expected a ") + elem_name(sl.type) + " scalar (an int or float), got " +
                  type_of(o));
    }

    device_array array_of(nb::handle o, std::size_t i, const slot& sl, bool want_stream) const {
        const names& n = attr_names();
        device_array a;
        if (g_torch.find() && PyObject_TypeCheck(o.ptr(), (PyTypeObject*)g_torch.tensor)) {
            a = from_torch(o, want_stream);
        } else {
            PyObject* iface = PyObject_GetAttr(o.ptr(), n.cai.ptr());
            if (iface) {
                // A malformed interface (keys missing, wrong types) is the argument's fault.
                try {
                    a = from_cai(nb::steal(iface));
                } catch (const nb::python_error& e) {
                    wrong(i, sl,
                          std::string("a malformed __cuda_array_interface__ (") + e.what() + ")");
                } catch (const nb::cast_error&) {
                    wrong(i, sl,
                          "a malformed __cuda_array_interface__ (a dict with data, shape and "
                          "typestr expected)");
                }
                if (want_stream && g_cupy.find() &&
                    PyObject_TypeCheck(o.ptr(), (PyTypeObject*)g_cupy.ndarray))
                    a.stream = to_address(nb::handle(g_cupy.current_stream)().attr(n.ptr));
            } else {
                PyErr_Clear();
                a = from_dlpack(o);
            }
        }
        const std::string want = elem_name(sl.type);
        if (a.device == -3)
            wrong(i, sl,
                  "expected a device array of " + want +
                      " (a torch, CuPy, JAX or Numba array: __cuda_array_interface__ or "
                      "DLPack), got " +
                      type_of(o));
        if (a.device == -1)
            wrong(i, sl,
                  "host memory (" + (a.type_text.empty() ? type_of(o) : a.type_text) +
                      ") where device memory is needed");
        if (!a.type || *a.type != sl.type)
            wrong(i, sl,
                  "element type " + (a.type_obj.is_valid() ? str_of(a.type_obj) : a.type_text) +
                      "; the spec's buffer '" + sl.name + "' holds " + want);
        if (!a.contiguous)
            wrong(i, sl,
                  "not C-contiguous: hone passes the data pointer only (use .contiguous() "
                  "or a copy)");
        return a;
    }

    std::optional<kernel> k_;
    std::vector<nb::object> size_keys_;  // the problem sizes' names as Python strings
    spec s_;
    std::vector<slot> slots_;
    std::size_t buffers_ = 0;
    // Buffer counts per sizes (a std::map: its elements stay put), and the last sizes asked.
    std::map<std::vector<int64_t>, std::vector<int64_t>> counts_;
    std::vector<int64_t> last_sizes_;
    const std::vector<int64_t>* last_counts_ = nullptr;
};

}  // namespace

void bind_kernel(nb::module_& m) {
    nb::class_<py_kernel>(m, "Kernel")
        .def(nb::init<const std::filesystem::path&, std::optional<std::filesystem::path>, int,
                      std::optional<std::filesystem::path>, bool>(),
             nb::arg("config"), nb::arg("tuned").none() = nb::none(), nb::kw_only(),
             nb::arg("device") = 0, nb::arg("cache_dir").none() = nb::none(),
             nb::arg("use_cache") = true)
        .def("__call__", &py_kernel::call, nb::arg("args"), nb::arg("sizes").none() = nb::none(),
             nb::arg("stream").none() = nb::none())
        .def("selection", &py_kernel::selection, nb::arg("sizes").none() = nb::none(),
             nb::kw_only(), nb::arg("arch").none() = nb::none())
        .def_prop_ro("name", &py_kernel::name)
        .def_prop_ro("config", &py_kernel::config)
        .def_prop_ro("tuned_entries", &py_kernel::tuned_entries)
        .def_prop_ro("stale_entries", &py_kernel::stale_entries)
        .def_prop_ro("problem_sizes", &py_kernel::problem_names)
        .def_prop_ro("arg_names", &py_kernel::arg_names);
}

}  // namespace hone::py
