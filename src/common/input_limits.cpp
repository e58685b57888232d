#include "common/input_limits.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "hone/error.hpp"

namespace hone {
namespace {

constexpr const char* limit_variable = "HONE_MAX_INPUT_MIB";

std::optional<std::size_t> limit_from_environment() {
    const char* text = std::getenv(limit_variable);
    if (!text || !*text) return std::nullopt;
    uint64_t mib = 0;
    const char* end = text + std::strlen(text);
    const auto [ptr, ec] = std::from_chars(text, end, mib);
    // At most 2^40 MiB: bytes still fit 64 bits.
    if (ec != std::errc() || ptr != end || mib == 0 || mib > (uint64_t{1} << 40))
        throw env_error(fmt::format("{}='{}': expected a positive whole number of mebibytes",
                                    limit_variable, text));
    return static_cast<std::size_t>(mib << 20);
}

}  // namespace

std::size_t max_input_bytes() {
    return limit_from_environment().value_or(std::size_t{1} << 30);
}

std::size_t max_text_input_bytes() {
    return limit_from_environment().value_or(std::size_t{64} << 20);
}

std::string input_limit_text(std::size_t limit, const char* what) {
    return fmt::format("{} the input limit of {} MiB (set {} to raise it)", what, limit >> 20,
                       limit_variable);
}

void throw_unreadable(const std::string& path, int error_number) {
    if (error_number == ENOENT || error_number == ENOTDIR)
        throw input_error({path, 0, 0}, "no such file");
    throw env_error(fmt::format("cannot read {}: {}", path, std::strerror(error_number)));
}

std::optional<std::string> read_file_capped(const std::string& path, std::size_t limit) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    std::string out;
    // A regular file's size is known: one allocation, not a doubling string's twice the size.
    if (struct stat st{}; ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        out.reserve(std::min(static_cast<std::size_t>(st.st_size), limit) + 1);
    char chunk[1 << 16];
    while (true) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int saved = errno;
            ::close(fd);
            throw env_error(fmt::format("cannot read {}: {}", path, std::strerror(saved)));
        }
        if (n == 0) break;
        if (out.size() + static_cast<std::size_t>(n) > limit) {
            ::close(fd);
            throw input_error({path, 0, 0}, fmt::format("the file is {}", input_limit_text(limit)));
        }
        out.append(chunk, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return out;
}

std::size_t json_too_deep(std::string_view text, int limit) {
    int depth = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            for (++i; i < text.size() && text[i] != '"'; ++i)
                if (text[i] == '\\') ++i;
        } else if (c == '[' || c == '{') {
            if (++depth > limit) return i;
        } else if (c == ']' || c == '}') {
            if (depth > 0) --depth;
        }
    }
    return std::string_view::npos;
}

}  // namespace hone
