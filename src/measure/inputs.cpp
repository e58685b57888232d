#include "measure/inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <thread>
#include <vector>

#include "hone/error.hpp"
#include "verify/float16.hpp"
#include "verify/verify.hpp"

namespace hone {
namespace {

template <class T>
void store_int(double v, void* dst) {
    using lim = std::numeric_limits<T>;
    T out = 0;
    if (std::isnan(v))
        out = 0;
    else if (v <= static_cast<double>(lim::min()))
        out = lim::min();
    else if (v >= static_cast<double>(lim::max()))  // max as double rounds up: >= catches it
        out = lim::max();
    else
        out = static_cast<T>(std::round(v));
    std::memcpy(dst, &out, sizeof out);
}

// SplitMix64's output (Steele, Lea and Flood, 2014) number i + 1 from state `key`: each
// element's draw depends on its index alone, so any part of an image fills independently, on
// any number of threads, with the same bytes. A few ns an element where a std::mt19937_64
// stream took 14: the fill of large inputs is on the path from a run's start to its first
// measurement.
uint64_t draw(uint64_t key, uint64_t i) {
    uint64_t z = key + (i + 1) * 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// The stream's state for a seed: the seed mixed, so that nearby seeds give unrelated streams.
uint64_t stream_key(uint64_t seed) {
    return draw(seed, 0);
}

// Uniform in [0, 1) with 53 random bits: element i of the stream.
double unit_uniform(uint64_t key, uint64_t i) {
    return static_cast<double>(draw(key, i) >> 11) * 0x1.0p-53;
}

// Work comes in chunks of this many elements, one thread at most a chunk.
constexpr uint64_t chunk_elems = image_part_elems;

// Runs work(first, end, chunk) over every chunk of [first_elem, end_elem) (first_elem a
// multiple of chunk_elems) on `threads` threads (0: all cores). The threads also touch the
// output's pages first: faulting in a fresh 64 MiB image from one thread took longer than
// filling it.
template <class F>
void for_chunks(uint64_t first_elem, uint64_t end_elem, unsigned threads, F&& work) {
    const uint64_t first_chunk = first_elem / chunk_elems;
    const uint64_t chunks = (end_elem + chunk_elems - 1) / chunk_elems - first_chunk;
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::min<uint64_t>(threads, std::max<uint64_t>(chunks, 1)));
    std::atomic<uint64_t> next{0};
    auto run = [&] {
        for (uint64_t k = next++; k < chunks; k = next++) {
            const uint64_t c = first_chunk + k;
            work(c * chunk_elems, std::min(end_elem, (c + 1) * chunk_elems), c);
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(run);
    run();
    for (auto& t : pool) t.join();
}

// Element i of the buffer goes to out[(i - first) * size]: out holds the part [first, end).
struct part {
    uint8_t* out;
    uint64_t first, end;
    uint8_t* at(uint64_t i, std::size_t size) const { return out + (i - first) * size; }
};

template <class F>
void fill_values(const buffer_plan& b, const part& o, unsigned threads, F&& value_at) {
    const std::size_t size = elem_size(b.type);
    for_chunks(o.first, o.end, threads, [&](uint64_t first, uint64_t end, uint64_t) {
        for (uint64_t i = first; i < end; ++i) store_value(b.type, value_at(i), o.at(i, size));
    });
}

// Runs fill_chunk(first, end, key) over every chunk, key the seed's stream (unit_uniform).
template <class F>
void fill_random(const buffer_plan& b, const part& o, unsigned threads, F&& fill_chunk) {
    const uint64_t key = stream_key(b.init.seed);
    for_chunks(o.first, o.end, threads,
               [&](uint64_t first, uint64_t end, uint64_t) { fill_chunk(first, end, key); });
}

void fill_uniform(const buffer_plan& b, const part& o, unsigned threads) {
    const std::size_t size = elem_size(b.type);
    // Integers: every value of [ceil(low), floor(high)] equally likely.
    const bool ints = !is_float(b.type);
    const double lo = ints ? std::ceil(b.init.a) : b.init.a;
    const double width = ints ? std::floor(b.init.b) - lo + 1.0 : b.init.b - b.init.a;
    fill_random(b, o, threads, [&](uint64_t first, uint64_t end, uint64_t key) {
        for (uint64_t i = first; i < end; ++i) {
            const double u = width * unit_uniform(key, i);
            store_value(b.type, lo + (ints ? std::floor(u) : u), o.at(i, size));
        }
    });
}

void fill_normal(const buffer_plan& b, const part& o, unsigned threads) {
    const std::size_t size = elem_size(b.type);
    fill_random(b, o, threads, [&](uint64_t first, uint64_t end, uint64_t key) {
        // Box-Muller: each pair of uniforms (elements i and i + 1; chunks start at even
        // elements) gives two independent normals.
        for (uint64_t i = first; i < end; i += 2) {
            const double radius = std::sqrt(-2.0 * std::log(1.0 - unit_uniform(key, i)));
            const double angle = 2.0 * std::numbers::pi * unit_uniform(key, i + 1);
            store_value(b.type, b.init.a + b.init.b * radius * std::cos(angle), o.at(i, size));
            if (i + 1 < end)
                store_value(b.type, b.init.a + b.init.b * radius * std::sin(angle),
                            o.at(i + 1, size));
        }
    });
}

void read_file(const buffer_plan& b, uint8_t* out) {
    std::ifstream in(b.init.path, std::ios::binary);
    if (!in)
        throw env_error(fmt::format("cannot read the input of buffer '{}' from {}: {}", b.name,
                                    b.init.path, std::strerror(errno)));
    // Straight into out; whatever follows the needed bytes is only counted, for the message.
    in.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(b.bytes()));
    auto size = static_cast<uint64_t>(in.gcount());
    if (size == b.bytes()) {
        in.ignore(std::numeric_limits<std::streamsize>::max());
        size += static_cast<uint64_t>(in.gcount());
    }
    if (size != b.bytes())
        throw input_error(source_pos{b.init.path, 0, 0},
                          fmt::format("buffer '{}' needs {} bytes ({} elements of {}); the file "
                                      "has {}",
                                      b.name, b.bytes(), b.count, elem_name(b.type), size));
}

}  // namespace

void store_value(elem_type t, double v, void* dst) {
    switch (t) {
        case elem_type::f16: {
            const uint16_t h = float_to_half(static_cast<float>(v));
            std::memcpy(dst, &h, sizeof h);
            return;
        }
        case elem_type::bf16: {
            const uint16_t h = float_to_bf16(static_cast<float>(v));
            std::memcpy(dst, &h, sizeof h);
            return;
        }
        case elem_type::f32: {
            const auto f = static_cast<float>(v);
            std::memcpy(dst, &f, sizeof f);
            return;
        }
        case elem_type::f64:
            std::memcpy(dst, &v, sizeof v);
            return;
        case elem_type::i8:
            return store_int<int8_t>(v, dst);
        case elem_type::i16:
            return store_int<int16_t>(v, dst);
        case elem_type::i32:
            return store_int<int32_t>(v, dst);
        case elem_type::i64:
            return store_int<int64_t>(v, dst);
        case elem_type::u8:
            return store_int<uint8_t>(v, dst);
        case elem_type::u16:
            return store_int<uint16_t>(v, dst);
        case elem_type::u32:
            return store_int<uint32_t>(v, dst);
        case elem_type::u64:
            return store_int<uint64_t>(v, dst);
    }
}

void fill_image_part(const buffer_plan& b, uint8_t* out, uint64_t first, uint64_t count,
                     unsigned threads) {
    if (first % image_part_elems != 0 || first + count > b.count)
        throw std::logic_error("fill_image_part: a part off the buffer or its chunks");
    const part o{out, first, first + count};
    const std::size_t size = elem_size(b.type);
    if (b.role == buffer_role::out) {
        for_chunks(o.first, o.end, threads, [&](uint64_t i, uint64_t end, uint64_t) {
            fill_poison(b.type, o.at(i, size), end - i);
        });
        return;
    }
    switch (b.init.kind) {
        case init_kind::zeros:  // all bits zero is 0 in every type
            for_chunks(o.first, o.end, threads, [&](uint64_t i, uint64_t end, uint64_t) {
                std::memset(o.at(i, size), 0, (end - i) * size);
            });
            break;
        case init_kind::constant:
            fill_values(b, o, threads, [&](uint64_t) { return b.init.a; });
            break;
        case init_kind::sequence:
            fill_values(b, o, threads,
                        [&](uint64_t i) { return b.init.a + b.init.b * static_cast<double>(i); });
            break;
        case init_kind::random_uniform:
            fill_uniform(b, o, threads);
            break;
        case init_kind::random_normal:
            fill_normal(b, o, threads);
            break;
        case init_kind::file:
            if (first != 0 || count != b.count)
                throw std::logic_error("fill_image_part: a file input is read whole");
            read_file(b, out);
            break;
    }
}

void fill_input(const buffer_plan& b, uint8_t* out, unsigned threads) {
    buffer_plan in = b;
    in.role = buffer_role::in;
    fill_image_part(in, out, 0, b.count, threads);
}

void fill_output_poison(const buffer_plan& b, uint8_t* out, unsigned threads) {
    buffer_plan o = b;
    o.role = buffer_role::out;
    fill_image_part(o, out, 0, b.count, threads);
}

std::vector<uint8_t> generate_input(const buffer_plan& b, unsigned threads) {
    std::vector<uint8_t> out(b.bytes());
    fill_input(b, out.data(), threads);
    return out;
}

}  // namespace hone
