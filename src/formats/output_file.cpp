#include "formats/output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "hone/error.hpp"

namespace hone {

std::string gzip_bytes(const std::string& bytes) {
    z_stream z{};
    // 15 + 16: a gzip header and trailer around the deflate stream.
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw env_error("zlib: deflateInit2 failed");
    std::string out(deflateBound(&z, static_cast<uLong>(bytes.size())) + 32, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = static_cast<uInt>(bytes.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END) throw env_error(fmt::format("zlib: deflate failed ({})", rc));
    return out;
}

void write_file_atomically(const std::string& path, const std::string& bytes, bool gzip) {
    const std::string data = gzip ? gzip_bytes(bytes) : bytes;
    const std::filesystem::path target(path);
    const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
    std::string tmpl = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0) throw env_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    auto fail = [&](const char* doing) {
        const int err = errno;
        ::close(fd);
        ::unlink(tmpl.c_str());
        throw env_error(fmt::format("cannot write {} ({}): {}", path, doing, std::strerror(err)));
    };
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("write");
        }
        done += static_cast<std::size_t>(n);
    }
    // mkstemp makes the file 0600: give it the usual mode of a new file.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(fd, 0666 & ~mask) != 0) fail("chmod");
    if (::fsync(fd) != 0) fail("fsync");
    if (::close(fd) != 0) {
        ::unlink(tmpl.c_str());
        throw env_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    }
    if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmpl.c_str());
        throw env_error(fmt::format("cannot write {}: {}", path, std::strerror(err)));
    }
}

}  // namespace hone
