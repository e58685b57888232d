#include "driver/param_sizes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <map>

#include "hone/elem_type.hpp"

namespace hone {
namespace {

template <typename T>
bool read_at(const std::vector<uint8_t>& b, std::size_t at, T& out) {
    if (at > b.size() || b.size() - at < sizeof(T)) return false;
    std::memcpy(&out, b.data() + at, sizeof(T));  // ELF64 little-endian, as x86-64 and NVIDIA's
    return true;
}

// The section .nv.info.<function>: [begin, end) in the image, or nullopt.
std::optional<std::pair<std::size_t, std::size_t>> info_section(const std::vector<uint8_t>& b,
                                                                const std::string& function) {
    constexpr uint8_t magic[] = {0x7f, 'E', 'L', 'F'};
    if (b.size() < 64 || std::memcmp(b.data(), magic, 4) != 0 || b[4] != 2 || b[5] != 1)
        return std::nullopt;  // not ELF64, little-endian
    uint64_t shoff = 0;
    uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
    if (!read_at(b, 0x28, shoff) || !read_at(b, 0x3a, shentsize) || !read_at(b, 0x3c, shnum) ||
        !read_at(b, 0x3e, shstrndx) || shentsize < 64 || shstrndx >= shnum)
        return std::nullopt;
    auto section = [&](std::size_t i, uint32_t& name, uint64_t& off, uint64_t& size) {
        const std::size_t h = shoff + i * shentsize;
        return read_at(b, h, name) && read_at(b, h + 0x18, off) && read_at(b, h + 0x20, size) &&
               off <= b.size() && size <= b.size() - off;
    };
    uint32_t name = 0;
    uint64_t str_off = 0, str_size = 0;
    if (!section(shstrndx, name, str_off, str_size)) return std::nullopt;
    const std::string wanted = ".nv.info." + function;
    for (std::size_t i = 0; i < shnum; ++i) {
        uint64_t off = 0, size = 0;
        if (!section(i, name, off, size) || name >= str_size) continue;
        const char* s = reinterpret_cast<const char*>(b.data() + str_off + name);
        const std::size_t len = strnlen(s, str_size - name);
        if (std::string(s, len) == wanted) return std::make_pair(off, off + size);
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::vector<std::size_t>> cubin_param_sizes(const std::vector<uint8_t>& cubin,
                                                          const std::string& function) {
    const auto sec = info_section(cubin, function);
    if (!sec) return std::nullopt;
    // Records: a format byte, an attribute byte, then by format: 1 none, 2 a byte (and one of
    // padding), 3 two bytes, 4 a two-byte length and that many bytes.
    constexpr uint8_t kparam_info = 0x17;
    std::map<uint16_t, std::size_t> by_ordinal;
    for (std::size_t at = sec->first; at < sec->second;) {
        uint8_t format = 0, attribute = 0;
        if (!read_at(cubin, at, format) || !read_at(cubin, at + 1, attribute)) return std::nullopt;
        if (format == 1) {
            at += 2;
        } else if (format == 2 || format == 3) {
            at += 4;
        } else if (format == 4) {
            uint16_t length = 0;
            if (!read_at(cubin, at + 2, length) || at + 4 + length > sec->second)
                return std::nullopt;
            if (attribute == kparam_info) {
                // index (4 bytes), ordinal (2), offset (2), then the size in bits 18-31.
                uint16_t ordinal = 0;
                uint32_t flags = 0;
                if (length < 12 || !read_at(cubin, at + 8, ordinal) ||
                    !read_at(cubin, at + 12, flags))
                    return std::nullopt;
                by_ordinal[ordinal] = (flags >> 18) & 0x3fff;
            }
            at += 4 + length;
        } else {
            return std::nullopt;
        }
    }
    // None listed (a kernel without parameters, or a layout this reader does not know): not
    // checked, rather than every args called too many.
    if (by_ordinal.empty()) return std::nullopt;
    std::vector<std::size_t> sizes;
    for (const auto& [ordinal, size] : by_ordinal) {
        if (ordinal != sizes.size() || size == 0) return std::nullopt;  // a gap: not understood
        sizes.push_back(size);
    }
    return sizes;
}

std::string args_mismatch(const std::vector<std::size_t>& sizes,
                          const std::vector<kernel_arg>& args) {
    std::vector<std::size_t> given;
    for (const auto& arg : args) given.push_back(arg.buffer >= 0 ? 8 : elem_size(arg.type));
    if (sizes.size() != given.size())
        return fmt::format(
            "the kernel takes {} parameters ({} bytes) and args gives {} ({} bytes): args lists "
            "one buffer or value for each parameter, in order",
            sizes.size(), fmt::join(sizes, ", "), given.size(), fmt::join(given, ", "));
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const bool integer = args[i].buffer < 0 && !is_float(args[i].type);
        if (integer && sizes[i] <= 8 && (sizes[i] & (sizes[i] - 1)) == 0) continue;
        if (sizes[i] != given[i])
            return fmt::format(
                "the kernel's parameter {} is {} bytes, and args gives it {} ({} "
                "bytes)",
                i + 1, sizes[i],
                args[i].buffer >= 0 ? "a buffer's address" : elem_name(args[i].type), given[i]);
    }
    return "";
}

}  // namespace hone
