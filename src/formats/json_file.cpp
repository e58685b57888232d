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
    if (!bytes) throw_unreadable(path, errno);
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

// Collects the top-level object's member names; everything else is ignored.
struct top_keys {
    std::size_t depth = 0;
    bool object = false;
    std::vector<std::string> keys;
    std::size_t position = 0;
    std::string token, what;
    int id = 0;
    bool value() { return true; }
    bool open(bool is_object) {
        if (depth++ == 0) object = is_object;
        return true;
    }
    bool null() { return value(); }
    bool boolean(bool) { return value(); }
    bool number_integer(nlohmann::json::number_integer_t) { return value(); }
    bool number_unsigned(nlohmann::json::number_unsigned_t) { return value(); }
    bool number_float(nlohmann::json::number_float_t, const std::string&) { return value(); }
    bool string(std::string&) { return value(); }
    bool binary(nlohmann::json::binary_t&) { return value(); }
    bool start_object(std::size_t) { return open(true); }
    bool start_array(std::size_t) { return open(false); }
    bool end_object() { return --depth, true; }
    bool end_array() { return --depth, true; }
    bool key(std::string& k) {
        if (depth == 1) keys.push_back(std::move(k));
        return true;
    }
    bool parse_error(std::size_t at, const std::string& last, const nlohmann::json::exception& e) {
        position = at;
        token = last;
        id = e.id;
        what = e.what();
        return false;
    }
};

template <typename Json>
Json parse_positioned(const std::string& text, const std::string& path) {
    check_json_depth(text, path);
    try {
        return Json::parse(text);
    } catch (const nlohmann::json::exception&) {
        // The DOM parser's exceptions carry no position for a number out of range: the SAX
        // parser reports where it stopped.
        top_keys where;
        nlohmann::json::sax_parse(text, &where);
        throw_json_error(text, path, where.position, where.token, where.id, where.what);
    }
}

}  // namespace

void throw_json_error(const std::string& text, const std::string& path, std::size_t position,
                      const std::string& token, int id, const std::string& what_text) {
    std::string what = what_text;
    if (id == 406) {  // out_of_range: "number overflow parsing '1e400'"
        if (const auto close = what.find("] "); close != std::string::npos)
            what = what.substr(close + 2);
        // `position` counts the characters read, the whole number included.
        const std::size_t at = position >= token.size() ? position - token.size() : 0;
        throw input_error(position_in(text, at, path),
                          fmt::format("{}: a JSON number must fit a 64-bit float (at most about "
                                      "1.8e308)",
                                      what));
    }
    // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..."
    if (const auto colon = what.find(": "); colon != std::string::npos)
        what = what.substr(colon + 2);
    // The character where the parser stopped is the last one read.
    throw input_error(position_in(text, position > 0 ? position - 1 : 0, path),
                      "not valid JSON: " + what);
}

std::optional<std::vector<std::string>> top_level_keys(const std::string& text,
                                                       const std::string& path) {
    check_json_depth(text, path);
    top_keys events;
    if (!nlohmann::json::sax_parse(text, &events))
        throw_json_error(text, path, events.position, events.token, events.id, events.what);
    if (!events.object) return std::nullopt;
    return std::move(events.keys);
}

nlohmann::ordered_json parse_json(const std::string& text, const std::string& path) {
    return parse_positioned<nlohmann::ordered_json>(text, path);
}

nlohmann::json parse_json_unordered(const std::string& text, const std::string& path) {
    return parse_positioned<nlohmann::json>(text, path);
}

void throw_at_element(const std::string& text, const std::string& path,
                      const std::vector<std::size_t>& offsets, std::size_t i,
                      std::string_view label, const std::string& message) {
    const source_pos pos =
        i < offsets.size() ? position_in(text, offsets[i], path) : source_pos{path, 0, 0};
    throw input_error(pos, fmt::format("{}[{}]: {}", label, i, message));
}

}  // namespace hone
