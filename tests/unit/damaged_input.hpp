// Damaged copies of good inputs, for the readers' refusals: a text with one part replaced, a
// gzip file cut short.
#pragma once
#include <doctest/doctest.h>
#include <zlib.h>

#include <cstddef>
#include <filesystem>
#include <string>

// `text` with its first `from` replaced by `to` (which must be there).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

// `text` gzip'd into `path`, cut to its first `keep` bytes (0: whole).
inline void write_gzip(const std::string& path, const std::string& text, std::size_t keep) {
    gzFile f = gzopen(path.c_str(), "wb");
    REQUIRE(f);
    gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    gzclose(f);
    if (keep > 0) std::filesystem::resize_file(path, keep);
}
