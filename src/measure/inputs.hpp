// Host images of buffer contents, generated from a buffer's init spec. Deterministic: the same
// plan gives the same bytes on every machine and on the GPU (common/fill_values.hpp: random
// numbers are SplitMix64's, element i the stream's draw i, turned into reals there rather than
// by the library's distributions, whose algorithms are implementation-defined).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "common/fill_values.hpp"
#include "driver/gpu.hpp"

namespace hone {

// count * elem_size bytes. Throws input_error if a file input has the wrong size and
// env_error if it cannot be read. Random inputs are filled on `threads` threads (0: every
// core); the bytes do not depend on how many.
std::vector<uint8_t> generate_input(const buffer_plan& b, unsigned threads = 0);
// The same into out (b.bytes() bytes, which need not be initialised or even touched yet: the
// filling threads fault the pages in).
void fill_input(const buffer_plan& b, uint8_t* out, unsigned threads = 0);
// out's b.count elements set to the poison pattern (fill_poison), on `threads` threads.
void fill_output_poison(const buffer_plan& b, uint8_t* out, unsigned threads = 0);
// fill_image_part's parts start at multiples of this many elements.
inline constexpr uint64_t image_part_elems = 1 << 16;
// Elements [first, first + count) of b's host image into out (count elements): for an output
// (role out) fill_output_poison's, else fill_input's, the same bytes as that range of the whole
// image. A file input is read whole only (first 0, count b.count).
void fill_image_part(const buffer_plan& b, uint8_t* out, uint64_t first, uint64_t count,
                     unsigned threads = 0);
// What the GPU's fill kernel (hone_fill) needs to write b's image, for an input (role in or
// inout) of constant, sequence or random values; nullopt for the rest (outputs' poison, zeros
// and files, which other means fill).
std::optional<fill::gen> gpu_fill_gen(const buffer_plan& b);
// Converts v to t and writes elem_size(t) bytes: floats round to nearest (even), integers round
// to nearest and saturate, NaN becomes 0 for integers.
void store_value(elem_type t, double v, void* dst);

}  // namespace hone
