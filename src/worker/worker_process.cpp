#include "hone/worker_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "hone/error.hpp"

namespace hone {
namespace {

using clock_type = std::chrono::steady_clock;

[[noreturn]] void throw_errno(const char* what) {
    throw env_error(fmt::format("{}: {}", what, std::strerror(errno)));
}

// False when the peer has gone away; MSG_NOSIGNAL spares the caller a SIGPIPE, so an
// application embedding libhone keeps its own SIGPIPE disposition.
bool send_all(int fd, const uint8_t* data, std::size_t n, int more = 0) {
    while (n > 0) {
        const ssize_t w = ::send(fd, data, n, MSG_NOSIGNAL | more);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EPIPE || errno == ECONNRESET) return false;
            throw_errno("writing to a worker socket");
        }
        data += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

// A frame: the payload's length (4 bytes, little-endian), then the payload; false when the
// peer has gone away.
bool send_frame(int fd, const nlohmann::json& msg) {
    const std::vector<uint8_t> payload = nlohmann::json::to_cbor(msg);
    if (payload.size() > max_frame_bytes) {
        throw env_error(
            fmt::format("worker message of {} bytes exceeds the frame limit", payload.size()));
    }
    const auto n = static_cast<uint32_t>(payload.size());
    const uint8_t header[4] = {uint8_t(n), uint8_t(n >> 8), uint8_t(n >> 16), uint8_t(n >> 24)};
    return send_all(fd, header, sizeof header, MSG_MORE) &&
           send_all(fd, payload.data(), payload.size());
}

uint32_t frame_length(const uint8_t* p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

nlohmann::json decode_payload(const uint8_t* p, std::size_t n) {
    try {
        return nlohmann::json::from_cbor(p, p + n);
    } catch (const nlohmann::json::exception& e) {
        throw env_error(fmt::format("malformed worker message: {}", e.what()));
    }
}

// Reads exactly n bytes; false at end of stream before the first byte.
bool read_exact(int fd, uint8_t* p, std::size_t n) {
    std::size_t done = 0;
    while (done < n) {
        const ssize_t r = ::read(fd, p + done, n - done);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) throw_errno("reading from a worker socket");
        if (r == 0) {
            if (done == 0) return false;
            throw env_error("worker socket closed in the middle of a message");
        }
        done += static_cast<std::size_t>(r);
    }
    return true;
}

int make_output_file() {
    const char* tmp = std::getenv("TMPDIR");
    std::string path = fmt::format("{}/hone-worker-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    const int fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0) throw_errno("creating the worker output file");
    ::unlink(path.c_str());  // lives as long as the descriptors
    return fd;
}

// The child keeps only stdio (redirected to the output file) and its socket, moved to fd 3:
// other workers' sockets must not stay open here, or their end-of-stream would never come.
void setup_child(pid_t parent, int sock, int output_fd) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);  // the parent died before prctl took effect
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    // Crash handlers of an embedding application must not mask how the worker died.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM}) std::signal(sig, SIG_DFL);
    // Ctrl-C reaches the whole process group: the supervisor decides what stops.
    std::signal(SIGINT, SIG_IGN);
    // Out of the way of 0-3 first, in case the parent runs with a standard stream closed.
    sock = ::fcntl(sock, F_DUPFD, 10);
    output_fd = ::fcntl(output_fd, F_DUPFD, 10);
    const int devnull = ::open("/dev/null", O_RDONLY);
    ::dup2(devnull, 0);
    ::dup2(output_fd, 1);
    ::dup2(output_fd, 2);
    ::dup2(sock, 3);
    if (::close_range(4, ~0u, 0) != 0) {
        for (int fd = 4; fd < 65536; ++fd) ::close(fd);
    }
    std::setvbuf(stdout, nullptr, _IONBF, 0);  // output survives a crash
}

}  // namespace

std::string signal_name(int sig) {
    const char* abbrev = ::sigabbrev_np(sig);
    return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
}

void write_frame(int fd, const nlohmann::json& msg) {
    if (!send_frame(fd, msg)) throw env_error("worker supervisor is gone");
}

std::optional<nlohmann::json> read_frame(int fd) {
    uint8_t header[4];
    if (!read_exact(fd, header, 4)) return std::nullopt;
    const uint32_t n = frame_length(header);
    if (n > max_frame_bytes) throw env_error(fmt::format("worker frame of {} bytes refused", n));
    std::vector<uint8_t> payload(n);
    if (n > 0 && !read_exact(fd, payload.data(), n)) {
        throw env_error("worker socket closed in the middle of a message");
    }
    return decode_payload(payload.data(), n);
}

worker_process::worker_process(const handler& h) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        throw_errno("creating a worker socket");
    }
    output_fd_ = make_output_file();
    std::fflush(nullptr);  // or the child would write the parent's pending output again
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(sv[0]);
        ::close(sv[1]);
        ::close(output_fd_);
        throw_errno("starting a worker process");
    }
    if (pid == 0) {
        setup_child(parent, sv[1], output_fd_);
        int code = 0;
        try {
            h(3);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "hone worker: %s\n", e.what());
            code = 70;
        }
        ::_exit(code);  // no atexit handlers or destructors of the parent's objects
    }
    ::close(sv[1]);
    pid_ = pid;
    fd_ = sv[0];
}

worker_process::~worker_process() {
    kill();
    if (fd_ >= 0) ::close(fd_);
    ::close(output_fd_);
}

bool worker_process::send(const nlohmann::json& msg) {
    if (exit_) return false;
    return send_frame(fd_, msg);
}

std::optional<nlohmann::json> worker_process::pop_frame() {
    if (buffer_.size() < 4) return std::nullopt;
    const auto* p = reinterpret_cast<const uint8_t*>(buffer_.data());
    const uint32_t n = frame_length(p);
    if (n > max_frame_bytes) {
        kill();
        throw env_error(fmt::format("a worker sent a frame of {} bytes", n));
    }
    if (buffer_.size() < 4 + std::size_t(n)) return std::nullopt;
    nlohmann::json msg = decode_payload(p + 4, n);
    buffer_.erase(0, 4 + std::size_t(n));
    return msg;
}

worker_reply worker_process::receive(double timeout_s) {
    const auto deadline =
        clock_type::now() + std::chrono::duration<double>(std::max(0.0, timeout_s));
    for (;;) {
        if (auto msg = pop_frame()) return std::move(*msg);
        if (exit_) return *exit_;
        int wait_ms = -1;
        if (timeout_s >= 0) {
            const std::chrono::duration<double, std::milli> left = deadline - clock_type::now();
            wait_ms = static_cast<int>(std::ceil(std::max(0.0, left.count())));
        }
        pollfd p{fd_, POLLIN, 0};
        const int ready = ::poll(&p, 1, wait_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) throw_errno("waiting for a worker");
        if (ready == 0) return worker_timeout{};
        char chunk[1 << 16];
        const ssize_t got = ::read(fd_, chunk, sizeof chunk);
        if (got > 0) {
            buffer_.append(chunk, static_cast<std::size_t>(got));
        } else if (got == 0 || errno == ECONNRESET) {
            exit_ = reap();
        } else if (errno != EINTR && errno != EAGAIN) {
            throw_errno("reading from a worker socket");
        }
    }
}

worker_exit worker_process::reap() {
    int st = 0;
    while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    if (WIFSIGNALED(st)) return {signal_name(WTERMSIG(st))};
    return {fmt::format("exit code {}", WEXITSTATUS(st))};
}

void worker_process::kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    exit_ = reap();
}

std::string worker_process::take_output(std::size_t max_bytes) {
    return take_output_until(output_bytes(), true, max_bytes);
}

uint64_t worker_process::output_bytes() const {
    struct stat st {};
    if (::fstat(output_fd_, &st) != 0) return 0;
    return static_cast<uint64_t>(st.st_size);
}

std::string worker_process::take_output_until(uint64_t end, bool idle, std::size_t max_bytes) {
    end = std::min(end, output_bytes());
    std::string out;
    if (end > output_taken_) {
        const uint64_t size = end - output_taken_;
        const std::size_t keep = static_cast<std::size_t>(std::min<uint64_t>(size, max_bytes));
        out.assign(keep, '\0');
        const ssize_t got =
            ::pread(output_fd_, out.data(), keep, static_cast<off_t>(end - keep));
        out.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
        if (keep < size) out.insert(0, fmt::format("[{} earlier bytes not shown]\n", size - keep));
        output_taken_ = end;
    }
    // The file offset is shared with the worker: rewinding it keeps the file small, and is safe
    // only while the worker writes nothing, and when nothing after `end` is left to hand out.
    if (idle && output_taken_ >= output_bytes()) {
        if (::ftruncate(output_fd_, 0) == 0) ::lseek(output_fd_, 0, SEEK_SET);
        output_taken_ = 0;
    }
    return out;
}

}  // namespace hone
