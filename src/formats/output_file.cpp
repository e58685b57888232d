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
#include "store/sqlite_util.hpp"

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

namespace {

// What a node that is not a regular file is, for the message.
const char* node_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a fifo (named pipe)";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// stat of an existing target (following a symbolic link); false when there is none.
bool existing(const std::string& path, struct stat& st) {
    if (::stat(path.c_str(), &st) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    throw env_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
}

void check_regular(const std::string& path, const struct stat& st) {
    if (S_ISREG(st.st_mode)) return;
    throw input_error({path, 0, 0},
                      fmt::format("is {}: hone writes its output to regular files only and "
                                  "never replaces anything else; name a file (nothing was "
                                  "written)",
                                  node_kind(st.st_mode)));
}

// Whether the file begins as an SQLite database (a results database, or any other) or SQLite's
// write-ahead log does: files whose loss costs results.
bool is_database_file(const std::string& path) {
    if (sql::has_sqlite_header(path)) return true;
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    unsigned char head[4] = {};
    const std::size_t n = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
    // A WAL file's magic number, big-endian: 0x377f0682 or 0x377f0683.
    return n == 4 && head[0] == 0x37 && head[1] == 0x7f && head[2] == 0x06 &&
           (head[3] == 0x82 || head[3] == 0x83);
}

}  // namespace

void check_output_path(const std::string& path, const std::vector<std::string>& inputs,
                       bool database) {
    if (path.empty()) throw input_error({path, 0, 0}, "an empty output name");
    // An input's side files (its write-ahead log and shared memory) are the input too.
    for (const auto& in : inputs)
        for (const char* side : {"-wal", "-shm", "-journal"})
            if (std::filesystem::path(path).lexically_normal() ==
                std::filesystem::path(in + side).lexically_normal())
                throw input_error({path, 0, 0},
                                  fmt::format("is a file of the input database {}: the output "
                                              "would damage it; choose another output (nothing "
                                              "was written)",
                                              in));
    struct stat out {};
    if (!existing(path, out)) return;
    check_regular(path, out);
    for (const auto& in : inputs) {
        struct stat st {};
        if (::stat(in.c_str(), &st) != 0) continue;
        if (st.st_dev == out.st_dev && st.st_ino == out.st_ino)
            throw input_error({path, 0, 0},
                              fmt::format("is the input {}: the output would replace it; "
                                          "choose another output (nothing was written)",
                                          in));
    }
    if (!database && is_database_file(path))
        throw input_error({path, 0, 0},
                          "is a database (SQLite): hone's outputs of other kinds never replace "
                          "one; choose another output (nothing was written)");
}

void write_file_atomically(const std::string& path, const std::string& bytes, bool gzip) {
    struct stat old {};
    const bool replacing = existing(path, old);
    if (replacing) check_regular(path, old);
    const std::string data = gzip ? gzip_bytes(bytes) : bytes;
    const std::filesystem::path target(path);
    const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
    std::string tmpl = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    // mkstemp: a fresh random name opened with O_CREAT | O_EXCL, so whatever an attacker
    // planted under a guessable name (a symbolic link to another file) is never written.
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
    // mkstemp makes the file 0600: a replaced file keeps its mode, a new one gets the usual
    // mode of a new file.
    mode_t mode = 0;
    if (replacing) {
        mode = old.st_mode & 07777;
    } else {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        mode = 0666 & ~mask;
    }
    if (::fchmod(fd, mode) != 0) fail("chmod");
    if (::fsync(fd) != 0) fail("fsync");
    if (::close(fd) != 0) {
        const int err = errno;
        ::unlink(tmpl.c_str());
        throw env_error(fmt::format("cannot write {}: {}", path, std::strerror(err)));
    }
    if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmpl.c_str());
        throw env_error(fmt::format("cannot write {}: {}", path, std::strerror(err)));
    }
}

void write_stdout(std::string_view bytes) {
    errno = 0;
    const std::size_t n = std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    const bool flushed = std::fflush(stdout) == 0;
    if (n == bytes.size() && flushed && !std::ferror(stdout)) return;
    const int err = errno;
    throw env_error(fmt::format("cannot write to standard output: {} (the output is incomplete)",
                                err ? std::strerror(err) : "write error"));
}

std::string finish_stdout() {
    errno = 0;
    bool failed = std::fflush(stdout) != 0;
    int err = errno;
    failed = failed || std::ferror(stdout);
    // close reports what a network file system defers to it. A standard output closed by
    // the caller (>&-) with nothing written to it is no loss.
    if (std::fclose(stdout) != 0 && !failed && errno != EBADF) {
        failed = true;
        err = errno;
    }
    if (!failed) return "";
    return fmt::format("cannot write to standard output: {} (the output is incomplete)",
                       err ? std::strerror(err) : "write error");
}

}  // namespace hone
