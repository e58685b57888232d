#include "common/terminal_text.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace hone {
namespace {

// Length of the valid UTF-8 sequence at s[i] (2 to 4), or 0 when there is none: overlong
// forms, surrogates and code points above U+10FFFF are not valid.
std::size_t utf8_length(std::string_view s, std::size_t i, uint32_t& cp) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = byte(i);
    std::size_t n = 0;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k) {
        if ((byte(i + k) & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (byte(i + k) & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
    if (cp >= 0xd800 && cp <= 0xdfff) return 0;
    return n;
}

}  // namespace

std::string terminal_text(std::string_view text, bool keep_newlines) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            const bool control = c < 0x20 || c == 0x7f;
            if (!control || c == '\t' || (c == '\n' && keep_newlines)) {
                out += static_cast<char>(c);
            } else {
                out += fmt::format("\\x{:02x}", c);
            }
            ++i;
            continue;
        }
        uint32_t cp = 0;
        const std::size_t n = utf8_length(text, i, cp);
        if (n == 0) {
            out += fmt::format("\\x{:02x}", c);
            ++i;
        } else if (cp >= 0x80 && cp <= 0x9f) {
            out += fmt::format("\\u{:04x}", cp);
            i += n;
        } else {
            out.append(text.substr(i, n));
            i += n;
        }
    }
    return out;
}

}  // namespace hone
