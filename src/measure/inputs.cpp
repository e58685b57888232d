#include "measure/inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "hone/error.hpp"
#include "verify/verify.hpp"

namespace hone {
namespace {

// fill::type_code follows elem_type, so that a type passes to the GPU as its number.
static_assert(fill::u64 == static_cast<int>(elem_type::u64) &&
              fill::f16 == static_cast<int>(elem_type::f16) &&
              fill::i8 == static_cast<int>(elem_type::i8));

fill::gen fill_gen(const buffer_plan& b) {
    fill::gen g;
    g.type = static_cast<int>(b.type);
    g.a = b.init.a;
    g.b = b.init.b;
    switch (b.init.kind) {
        case init_kind::sequence:
            g.kind = fill::kind_sequence;
            break;
        case init_kind::random_uniform: {
            // Integers: every value of [ceil(low), floor(high)] equally likely.
            g.kind = fill::kind_uniform;
            g.ints = !is_float(b.type);
            g.a = g.ints ? std::ceil(b.init.a) : b.init.a;
            g.b = g.ints ? std::floor(b.init.b) - g.a + 1.0 : b.init.b - b.init.a;
            g.key = fill::stream_key(b.init.seed);
            break;
        }
        case init_kind::random_normal:
            g.kind = fill::kind_normal;
            g.key = fill::stream_key(b.init.seed);
            break;
        default:
            g.kind = fill::kind_constant;
    }
    return g;
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

// Every element from fill::value_at (constant, sequence, uniform).
void fill_values(const buffer_plan& b, const part& o, unsigned threads) {
    const fill::gen g = fill_gen(b);
    const std::size_t size = elem_size(b.type);
    for_chunks(o.first, o.end, threads, [&](uint64_t first, uint64_t end, uint64_t) {
        for (uint64_t i = first; i < end; ++i)
            fill::store(g.type, fill::value_at(g, i), o.at(i, size));
    });
}

void fill_normal(const buffer_plan& b, const part& o, unsigned threads) {
    const fill::gen g = fill_gen(b);
    const std::size_t size = elem_size(b.type);
    for_chunks(o.first, o.end, threads, [&](uint64_t first, uint64_t end, uint64_t) {
        // Elements i and i + 1 from one pair of uniforms (chunks start at even elements).
        for (uint64_t i = first; i < end; i += 2) {
            double x0 = 0, x1 = 0;
            fill::normal_pair(g, i, x0, x1);
            fill::store(g.type, x0, o.at(i, size));
            if (i + 1 < end) fill::store(g.type, x1, o.at(i + 1, size));
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
    fill::store(static_cast<int>(t), v, static_cast<unsigned char*>(dst));
}

std::optional<fill::gen> gpu_fill_gen(const buffer_plan& b) {
    if (b.role == buffer_role::out) return std::nullopt;
    switch (b.init.kind) {
        case init_kind::constant:
        case init_kind::sequence:
        case init_kind::random_uniform:
        case init_kind::random_normal:
            return fill_gen(b);
        case init_kind::zeros:  // a memset
        case init_kind::file:
            return std::nullopt;
    }
    return std::nullopt;
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
        case init_kind::sequence:
        case init_kind::random_uniform:
            fill_values(b, o, threads);
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
