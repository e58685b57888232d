#include "formats/json_file.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace hone {
namespace {

bool is_gzip(const std::string& bytes) {
    return bytes.size() >= 2 && static_cast<uint8_t>(bytes[0]) == 0x1f &&
           static_cast<uint8_t>(bytes[1]) == 0x8b;
}

// Inflates every gzip member; a stream that ends early or fails its checksum is refused.
std::string gunzip(const std::string& in, const std::string& path) {
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
        out.append(chunk, sizeof chunk - z.avail_out);
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
    std::ifstream f(path, std::ios::binary);
    if (!f) throw env_error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    std::ostringstream buf;
    buf << f.rdbuf();
    std::string bytes = std::move(buf).str();
    return is_gzip(bytes) ? gunzip(bytes, path) : bytes;
}

source_pos position_in(const std::string& text, std::size_t offset, const std::string& path) {
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

namespace {

template <typename Json>
Json parse_positioned(const std::string& text, const std::string& path) {
    try {
        return Json::parse(text);
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
