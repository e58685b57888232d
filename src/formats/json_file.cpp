#include "formats/json_file.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/input_limits.hpp"

namespace hone {
namespace {

bool is_gzip(const std::string& bytes) {
    return bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == 0x1f &&
           static_cast<uint8_t>(bytes[1]) == 0x8b;
}

// Inflates every gzip member; a stream that ends early or fails its checksum is refused, and so
// is one that inflates past the input limit (a 3 MiB file can hold 3 GiB of zeros).
std::string gunzip(const std::string& in, const std::string& path) {
    const std::size_t limit = max_input_bytes();
    z_stream z{};
    if (inflateInit2(&z, 15 + 32) != Z_OK) throw env_error("zlib: inflateInit2 failed");
    std::string out;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    char chunk[1 << 16];
    int rc = Z_OK;
    while (true) {
        z.next_out = reinterpret_cast<Bytef*>(chunk);
        z.avail_out = sizeof chunk;
        rc = inflate(&z, Z_NO_FLUSH);
        const std::size_t got = sizeof chunk - z.avail_out;
        if (out.size() + got > limit) {
            inflateEnd(&z);
            throw input_error({path, 0, 0},
                              fmt::format("the gzip data inflates to more than {} MiB: {}",
                                          limit >> 20, input_limit_text(limit, "over")));
        }
        out.append(chunk, got);
        if (rc == Z_STREAM_END) {
            if (z.avail_in == 0) break;
            inflateReset(&z);  // concatenated members
            continue;
        }
        if (rc != Z_OK) break;
    }
    const std::string why = z.msg ? z.msg : (rc == Z_BUF_ERROR ? "unexpected end of data" : "");
    inflateEnd(&z);
    if (rc != Z_STREAM_END)
        throw input_error({path, 0, 0},
                          fmt::format("damaged or truncated gzip data ({}); expected a complete "
                                      ".gz file",
                                      why.empty() ? fmt::format("zlib error {}", rc) : why));
    return out;
}

}  // namespace

std::string read_maybe_gzip(const std::string& path) {
    std::optional<std::string> bytes = read_file_capped(path, max_input_bytes());
    if (!bytes) throw env_error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    return is_gzip(*bytes) ? gunzip(*bytes, path) : std::move(*bytes);
}

source_pos position_in(std::string_view text, std::size_t offset, const std::string& path) {
    offset = std::min(offset, text.size());
    int line = 1, column = 1;
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return {path, line, column};
}

void check_json_depth(std::string_view text, const std::string& path) {
    const std::size_t at = json_too_deep(text);
    if (at != std::string_view::npos)
        throw input_error(position_in(text, at, path),
                          fmt::format("JSON nested more than {} levels deep; hone reads no deeper "
                                      "(arrays and objects inside each other)",
                                      max_json_depth));
}

namespace {

// Events ignored; remembers where the parser gave up. nlohmann's DOM parser reports a number
// out of range ("1e400") as an out_of_range exception, which carries no position.
struct failure_position {
    std::size_t at = 0;
    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(nlohmann::json::number_integer_t) { return true; }
    bool number_unsigned(nlohmann::json::number_unsigned_t) { return true; }
    bool number_float(nlohmann::json::number_float_t, const std::string&) { return true; }
    bool string(std::string&) { return true; }
    bool binary(nlohmann::json::binary_t&) { return true; }
    bool start_object(std::size_t) { return true; }
    bool key(std::string&) { return true; }
    bool end_object() { return true; }
    bool start_array(std::size_t) { return true; }
    bool end_array() { return true; }
    bool parse_error(std::size_t position, const std::string& token,
                     const nlohmann::json::exception&) {
        // `position` counts the characters read, the whole number included.
        at = position >= token.size() ? position - token.size() : 0;
        return false;
    }
};

template <typename Json>
Json parse_positioned(const std::string& text, const std::string& path) {
    check_json_depth(text, path);
    try {
        return Json::parse(text);
    } catch (const nlohmann::json::out_of_range& e) {
        failure_position where;
        nlohmann::json::sax_parse(text, &where);
        std::string what = e.what();
        if (const auto close = what.find("] "); close != std::string::npos)
            what = what.substr(close + 2);
        throw input_error(position_in(text, where.at, path),
                          fmt::format("{}: a JSON number must fit a 64-bit float (at most about "
                                      "1.8e308)",
                                      what));
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte is 1-based: the character where the parser stopped.
        const std::size_t at = e.byte > 0 ? e.byte - 1 : 0;
        std::string what = e.what();
        // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..."
        if (const auto colon = what.find(": "); colon != std::string::npos)
            what = what.substr(colon + 2);
        throw input_error(position_in(text, at, path), "not valid JSON: " + what);
    }
}

}  // namespace

nlohmann::ordered_json parse_json(const std::string& text, const std::string& path) {
    return parse_positioned<nlohmann::ordered_json>(text, path);
}

nlohmann::json parse_json_unordered(const std::string& text, const std::string& path) {
    return parse_positioned<nlohmann::json>(text, path);
}

}  // namespace hone
