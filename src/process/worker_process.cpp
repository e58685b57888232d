#include "process/worker_process.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <link.h>
#include <poll.h>
#include <spawn.h>
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
#include <filesystem>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "hone/error.hpp"

#ifndef HONE_BIN_FROM_LIB
#define HONE_BIN_FROM_LIB "../bin"  // the install's bin folder, relative to its lib folder
#endif

namespace hone {
namespace {

namespace fs = std::filesystem;
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

// Waits for the child to end; its wait status.
int wait_for(pid_t pid) {
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return st;
}

}  // namespace

int make_worker_output_file() {
    const char* tmp = std::getenv("TMPDIR");
    std::string path = fmt::format("{}/hone-worker-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    const int fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0) throw_errno("creating the worker output file");
    ::unlink(path.c_str());  // lives as long as the descriptors
    return fd;
}

int above_stdio(int fd) {
    if (fd > 3) return fd;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 4);
    const int saved = errno;
    ::close(fd);
    errno = saved;
    if (moved < 0) throw_errno("moving a worker descriptor");
    return moved;
}

namespace {

bool is_executable_file(const fs::path& p, std::string* why = nullptr) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) {
        if (why) *why = std::strerror(errno);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        if (why) *why = "not a regular file";
        return false;
    }
    if (::access(p.c_str(), X_OK) != 0) {
        if (why) *why = std::strerror(errno);
        return false;
    }
    return true;
}

// The file that holds this code: libhone.so, or the executable it is linked into. Asked of this
// function's own address: internal, so never a PLT entry of another module.
std::string libhone_file() {
    Dl_info info{};
    link_map* map = nullptr;
    if (::dladdr1(reinterpret_cast<void*>(&libhone_file), &info, reinterpret_cast<void**>(&map),
                  RTLD_DL_LINKMAP) != 0 &&
        map && map->l_name && map->l_name[0] != '\0') {
        return map->l_name;
    }
    std::error_code ec;  // the main program: its map has no name
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : self.string();
}

}  // namespace

std::string find_worker_executable(const char* env, const std::string& libhone) {
    if (env && *env) {
        std::string why;
        if (is_executable_file(env, &why)) return env;
        throw env_error(fmt::format(
            "HONE_WORKER is set to '{}', which is not an executable file ({}): point it at the "
            "hone-worker executable, or unset it to use the one installed beside libhone",
            env, why));
    }
    std::vector<fs::path> dirs;
    if (!libhone.empty()) {
        const fs::path file = fs::absolute(libhone);
        std::error_code ec;
        const fs::path real = fs::canonical(file, ec);
        for (const fs::path& f : {file, ec ? file : real}) {
            const fs::path dir = f.parent_path();
            for (const char* rel : {".", "../libexec/hone", HONE_BIN_FROM_LIB, "../bin"}) {
                const fs::path d = (dir / rel).lexically_normal();
                if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
            }
        }
    }
    std::string looked;
    for (const auto& d : dirs) {
        const fs::path candidate = d / "hone-worker";
        if (is_executable_file(candidate)) return candidate.string();
        looked += fmt::format("{}{}", looked.empty() ? "" : ", ", candidate.string());
    }
    throw env_error(fmt::format(
        "hone-worker was not found: libhone runs compiles and GPU work in that executable, and "
        "looked for it {}{}. Put hone-worker beside libhone.so or the program that links libhone "
        "(`cmake --install` puts it in the prefix's bin/), or set HONE_WORKER to its path",
        libhone.empty() ? "nowhere (the file that holds libhone is unknown)"
                        : fmt::format("beside {}: ", libhone),
        looked));
}

std::string worker_executable() {
    return find_worker_executable(std::getenv("HONE_WORKER"), libhone_file());
}

worker_command worker_role_command(const std::string& role, std::vector<std::string> args) {
    args.insert(args.begin(), role);
    return {worker_executable(), std::move(args)};
}

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

int spawn_worker(const worker_command& cmd, const std::vector<std::string>& extra, int socket_fd,
                 int output_fd, bool own_session) {
    // posix_spawn, not fork: glibc starts the child with clone(CLONE_VM | CLONE_VFORK) and
    // execs at once, which is safe from a process that holds threads and CUDA state.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    for (int out : {1, 2}) {
        if (output_fd >= 0)
            posix_spawn_file_actions_adddup2(&actions, output_fd, out);
        else
            posix_spawn_file_actions_addopen(&actions, out, "/dev/null", O_WRONLY, 0);
    }
    posix_spawn_file_actions_adddup2(&actions, socket_fd, 3);
    // Other workers' sockets must not stay open there, or their end-of-stream would never come;
    // nor the application's descriptors.
    posix_spawn_file_actions_addclosefrom_np(&actions, 4);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    // The application's blocked signals and handlers must not shape how the worker runs or dies.
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                        (own_session ? POSIX_SPAWN_SETSID : 0));

    std::vector<std::string> args = cmd.args;
    args.insert(args.begin(), cmd.path);
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("--parent");
    args.push_back(std::to_string(::getpid()));
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, cmd.path.c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        throw env_error(
            fmt::format("starting the worker process {}: {}", cmd.path, std::strerror(rc)));
    }
    return pid;
}

worker_process::worker_process(const worker_command& cmd) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        throw_errno("creating a worker socket");
    }
    fd_guard mine{sv[0]};
    fd_guard theirs{sv[1]};
    theirs.fd = above_stdio(theirs.release());
    fd_guard output{above_stdio(make_worker_output_file())};
    pid_ = spawn_worker(cmd, {}, theirs.fd, output.fd, false);
    fd_ = mine.release();
    output_fd_ = output.release();
}

worker_process::worker_process(resident_connection c)
    : pid_(c.pid),
      fd_(c.fd),
      output_fd_(c.output_fd),
      lock_fd_(c.lock_fd),
      resident_(true),
      child_(c.child) {}

worker_process::~worker_process() {
    if (resident_ && !exit_) {
        // Disconnected: the resident waits for the next command. One this process started
        // is its child until this process ends: a detached thread reaps it if it ends first.
        if (child_ && pid_ > 0) {
            const pid_t pid = pid_;
            try {
                std::thread([pid] { wait_for(pid); }).detach();
            } catch (const std::system_error&) {
            }
        }
        pid_ = -1;
    }
    abandon();
    if (fd_ >= 0) ::close(fd_);
    ::close(output_fd_);
    if (lock_fd_ >= 0) ::close(lock_fd_);  // after the socket: the next client finds it closed
}

bool worker_process::send(const nlohmann::json& msg) {
    if (exit_) return false;
    return send_frame(fd_, msg);
}

bool worker_process::frame_buffered() const {
    return buffer_.size() >= 4 &&
           buffer_.size() >=
               4 + std::size_t(frame_length(reinterpret_cast<const uint8_t*>(buffer_.data())));
}

std::optional<nlohmann::json> worker_process::pop_frame() {
    if (buffer_.size() < 4) return std::nullopt;
    const auto* p = reinterpret_cast<const uint8_t*>(buffer_.data());
    const uint32_t n = frame_length(p);
    if (n > max_frame_bytes) {
        kill();
        throw env_error(fmt::format("a worker sent a frame of {} bytes", n));
    }
    if (!frame_buffered()) return std::nullopt;
    nlohmann::json msg = decode_payload(p + 4, n);
    buffer_.erase(0, 4 + std::size_t(n));
    return msg;
}

bool worker_process::wait_readable(double timeout_s, int also_fd) {
    if (exit_) return true;
    if (frame_buffered()) return true;
    pollfd p[2] = {{fd_, POLLIN, 0}, {also_fd, POLLIN, 0}};
    const int ms = static_cast<int>(std::ceil(std::max(0.0, timeout_s) * 1000));
    const int n = ::poll(p, also_fd >= 0 ? 2 : 1, ms);
    // Readable, hung up, or failed (receive() says which): each is something to receive.
    return n != 0 && (n < 0 || p[0].revents != 0);
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

namespace {

// True once pid has ended (gone, or a zombie its parent has not reaped).
bool process_gone(pid_t pid) {
    if (::kill(pid, 0) != 0) return errno == ESRCH;
    std::FILE* f = std::fopen(fmt::format("/proc/{}/stat", pid).c_str(), "r");
    if (!f) return true;
    char line[512] = {};
    const bool read = std::fgets(line, sizeof line, f) != nullptr;
    std::fclose(f);
    const char* paren = read ? std::strrchr(line, ')') : nullptr;
    return paren && paren[1] == ' ' && paren[2] == 'Z';
}

}  // namespace

worker_exit worker_process::reap() {
    if (!child_) {
        // Not this process's child: its end shows as the socket's, and its status is its
        // parent's to read. Waits (briefly) for the process to be gone, so that a fresh
        // resident does not meet its socket.
        const auto until = clock_type::now() + std::chrono::seconds(5);
        while (pid_ > 0 && !process_gone(pid_) && clock_type::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        pid_ = -1;
        return {killed_ ? "SIGKILL" : "resident worker ended"};
    }
    const int st = wait_for(pid_);
    pid_ = -1;
    if (WIFSIGNALED(st)) return {signal_name(WTERMSIG(st))};
    return {fmt::format("exit code {}", WEXITSTATUS(st))};
}

// A GPU worker's death releases its CUDA context, ~0.1 s on an H100 (kill to wait4, strace) that
// nobody needs to wait for once its results are in. A detached thread reaps it, so that an
// application that embeds the tuner is not left with a zombie; without a thread, this one waits.
void worker_process::abandon() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    const pid_t pid = pid_;
    pid_ = -1;
    try {
        std::thread([pid] { wait_for(pid); }).detach();
    } catch (const std::system_error&) {
        wait_for(pid);
    }
}

void worker_process::kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    killed_ = true;
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
        const ssize_t got = ::pread(output_fd_, out.data(), keep, static_cast<off_t>(end - keep));
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
