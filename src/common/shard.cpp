#include "hone/shard.hpp"

#include <fmt/format.h>

#include <charconv>

#include "hone/error.hpp"

namespace hone {

bool shard_spec::owns_key(std::string_view key) const {
    return count <= 1 || owns(shard_hash(key));
}

std::string shard_spec::text() const {
    return fmt::format("{}/{}", index, count);
}

shard_spec parse_shard(std::string_view text, const std::string& where) {
    const source_pos pos{where, 0, 0};
    const auto slash = text.find('/');
    auto number = [&](std::string_view part, const char* what) {
        uint64_t v = 0;
        const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
        if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || v > UINT32_MAX)
            throw input_error(pos, fmt::format("'{}': {} must be a whole number (expected I/N, "
                                               "e.g. --shard 0/4 for the first of four shards)",
                                               text, what));
        return static_cast<uint32_t>(v);
    };
    if (slash == std::string_view::npos)
        throw input_error(pos, fmt::format("'{}': expected I/N, the shard's index I from 0 to "
                                           "N-1 and the number of shards N (e.g. 0/4)",
                                           text));
    shard_spec s;
    s.index = number(text.substr(0, slash), "the index I");
    s.count = number(text.substr(slash + 1), "the number of shards N");
    if (s.count == 0)
        throw input_error(pos, fmt::format("'{}': the number of shards must be at least 1", text));
    if (s.index >= s.count)
        throw input_error(
            pos, fmt::format("'{}': the index counts from 0, so it must be below {} (a Slurm "
                             "array for {} shards is --array=0-{})",
                             text, s.count, s.count, s.count - 1));
    return s;
}

uint64_t shard_hash(std::string_view bytes) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return h;
}

uint64_t shard_share(uint64_t total, const shard_spec& s) {
    if (s.count <= 1) return total;
    return total / s.count + (s.index < total % s.count ? 1 : 0);
}

}  // namespace hone
