#include "process/resident.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <thread>
#include <utility>

#include "common/digest.hpp"
#include "hone/error.hpp"

extern char** environ;

namespace hone {
namespace {

namespace fs = std::filesystem;

// A folder that is this user's alone (owner, mode 0700), made if missing.
bool usable_dir(const std::string& dir) {
    if (dir.empty()) return false;
    ::mkdir(dir.c_str(), 0700);
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    return st.st_uid == ::getuid() && (st.st_mode & 077) == 0;
}

// A resident's socket path without ".sock": its lock and description files share it.
std::string stem_of(const std::string& socket) {
    return socket.ends_with(".sock") ? socket.substr(0, socket.size() - 5) : socket;
}

std::string lock_path_of(const std::string& socket) {
    return stem_of(socket) + ".lock";
}

std::string info_path_of(const std::string& socket) {
    return stem_of(socket) + ".info";
}

std::string read_info(const std::string& socket) {
    std::string line;
    if (std::FILE* f = std::fopen(info_path_of(socket).c_str(), "r")) {
        char buf[4096];
        if (std::fgets(buf, sizeof buf, f)) line = buf;
        std::fclose(f);
    }
    while (!line.empty() && line.back() == '\n') line.pop_back();
    return line;
}

// Removes a resident's socket and its description.
void remove_resident(const std::string& socket) {
    ::unlink(socket.c_str());
    ::unlink(info_path_of(socket).c_str());
}

bool fill_address(const std::string& path, sockaddr_un& addr) {
    addr = {};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) return false;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    return true;
}

// A connected socket to path, or -1 with errno set.
int connect_to(const std::string& path) {
    sockaddr_un addr;
    if (!fill_address(path, addr)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd_guard fd{::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)};
    if (fd.fd < 0) return -1;
    int rc = 0;
    while ((rc = ::connect(fd.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr)) != 0 &&
           errno == EINTR) {
    }
    return rc == 0 ? fd.release() : -1;
}

// Connects once the resident that was just started (pid, this process's child) listens.
int connect_when_listening(const std::string& path, int pid) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (;;) {
        const int fd = connect_to(path);
        if (fd >= 0) return fd;
        int st = 0;
        if (::waitpid(pid, &st, WNOHANG) == pid)
            throw env_error(fmt::format("the resident worker ended at its start ({})",
                                        WIFSIGNALED(st)
                                            ? signal_name(WTERMSIG(st))
                                            : fmt::format("exit code {}", WEXITSTATUS(st))));
        if (std::chrono::steady_clock::now() > until)
            throw env_error(fmt::format("the resident worker did not listen at {}", path));
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

ucred peer_of(int fd) {
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) cred.pid = 0;
    return cred;
}

// Holds the lock file's lock (non-blocking); -1 when another holds it or it cannot be made.
int take_lock(const std::string& path) {
    fd_guard fd{::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)};
    if (fd.fd < 0 || ::flock(fd.fd, LOCK_EX | LOCK_NB) != 0) return -1;
    return fd.release();
}

// Binds path, then starts cmd as a resident serving that socket at its fd 3, in a session of
// its own (a terminal's hang-up or Ctrl-C does not reach it); returns its pid. The resident
// listens itself: the socket's credentials (SO_PEERCRED, which clients kill by) are then its.
int start_resident(const worker_command& cmd, const std::string& path, int keep_s) {
    sockaddr_un addr;
    if (!fill_address(path, addr)) throw env_error("resident worker socket path too long: " + path);
    ::unlink(path.c_str());  // a dead resident's socket
    fd_guard listener{::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)};
    if (listener.fd < 0 ||
        ::bind(listener.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        throw env_error(fmt::format("resident worker socket {}: {}", path, std::strerror(errno)));
    }
    listener.fd = above_stdio(listener.release());
    // What it serves, for `hone workers` (the socket's name is a digest).
    std::string what = cmd.path;
    for (const auto& a : cmd.args) what += " " + a;
    if (std::FILE* f = std::fopen(info_path_of(path).c_str(), "w")) {
        std::fprintf(f, "%s\n", what.c_str());
        std::fclose(f);
    }
    return spawn_worker(cmd, {"--resident", std::to_string(keep_s)}, listener.fd, -1, true);
}

// One byte and room for one descriptor (SCM_RIGHTS), for send_fd and receive_fd.
struct fd_message {
    char byte = 'o';
    iovec iov{&byte, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    fd_message() {
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
    }
    fd_message(const fd_message&) = delete;
    fd_message& operator=(const fd_message&) = delete;
};

// Sends fd over the socket with one byte.
bool send_fd(int sock, int fd) {
    fd_message m;
    cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    ssize_t n = 0;
    while ((n = ::sendmsg(sock, &m.msg, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
    }
    return n == 1;
}

// The fd sent by send_fd, or -1.
int receive_fd(int sock) {
    fd_message m;
    ssize_t n = 0;
    while ((n = ::recvmsg(sock, &m.msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
    }
    if (n != 1) return -1;
    for (cmsghdr* c = CMSG_FIRSTHDR(&m.msg); c; c = CMSG_NXTHDR(&m.msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int fd = -1;
            std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
            return fd;
        }
    }
    return -1;
}

std::string bound_path(int listen_fd) {
    sockaddr_un addr{};
    socklen_t len = sizeof addr;
    if (::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return {};
    return addr.sun_path;
}

}  // namespace

std::string resident_dir() {
    if (const char* d = std::getenv("HONE_RESIDENT_DIR"); d && *d)
        return usable_dir(d) ? std::string(d) : std::string();
    if (const char* x = std::getenv("XDG_RUNTIME_DIR"); x && *x) {
        const std::string dir = std::string(x) + "/hone";
        if (usable_dir(dir)) return dir;
    }
    const std::string dir = fmt::format("/tmp/hone-{}", ::getuid());
    return usable_dir(dir) ? dir : std::string();
}

std::string resident_socket_path(const std::string& dir, const worker_command& cmd) {
    digest d;
    d.add(cmd.path);
    struct stat st {};
    if (::stat(cmd.path.c_str(), &st) == 0) {  // a rebuilt worker is another worker
        d.add(std::to_string(st.st_size));
        d.add(std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec));
        d.add(std::to_string(st.st_ino));
    }
    for (const auto& a : cmd.args) d.add(a);
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) {
        const std::string_view v = *e;
        if (v.starts_with("HONE_KEEP_WORKERS=") || v.starts_with("HONE_RESIDENT_DIR=")) continue;
        for (std::string_view p : {"HONE_", "CUDA_", "CUPTI_", "NVIDIA_", "LD_"}) {
            if (v.starts_with(p)) env.emplace_back(v);
        }
    }
    std::sort(env.begin(), env.end());
    for (const auto& e : env) d.add(e);
    return fmt::format("{}/gpu-{}.sock", dir, d.hex().substr(0, 20));
}

std::unique_ptr<worker_process> connect_resident(const worker_command& cmd, int keep_s) {
    const std::string dir = resident_dir();
    if (dir.empty() || keep_s <= 0) return nullptr;
    const std::string path = resident_socket_path(dir, cmd);
    fd_guard lock{take_lock(lock_path_of(path))};
    if (lock.fd < 0) return nullptr;  // another command holds it
    // Twice at most: a resident that ended between this connect and the hand-over of the
    // output file leaves its socket, which the second try replaces.
    for (int attempt = 0;; ++attempt) {
        bool child = false;
        fd_guard conn{connect_to(path)};
        if (conn.fd < 0) {
            const int pid = start_resident(cmd, path, keep_s);
            child = true;
            conn.fd = connect_when_listening(path, pid);
        }
        const ucred peer = peer_of(conn.fd);
        if (peer.pid <= 0 || peer.uid != ::getuid())
            throw env_error("resident worker " + path + " is not this user's");
        fd_guard output{make_worker_output_file()};
        if (!send_fd(conn.fd, output.fd)) {
            if (child || attempt > 0)
                throw env_error("resident worker " + path + " did not take its output file");
            remove_resident(path);
            continue;
        }
        worker_process::resident_connection c;
        c.pid = peer.pid;
        c.child = child;
        c.fd = conn.release();
        c.output_fd = output.release();
        c.lock_fd = lock.release();
        return std::make_unique<worker_process>(c);
    }
}

int accept_resident_client(int listen_fd, double idle_s) {
    // Its credentials become this process's (start_resident).
    if (::listen(listen_fd, 4) != 0) return -1;
    // From the last client's end: a probe (list_residents) does not restart it.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(idle_s);
    for (;;) {
        pollfd p{listen_fd, POLLIN, 0};
        const std::chrono::duration<double> left = deadline - std::chrono::steady_clock::now();
        const int ms = static_cast<int>(std::ceil(std::max(0.0, left.count()) * 1000));
        const int ready = ::poll(&p, 1, ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) {
            // Idle: ends unless a client, holding the lock, is about to connect.
            const std::string path = bound_path(listen_fd);
            const int lock = take_lock(lock_path_of(path));
            if (lock < 0) {
                deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
                continue;
            }
            remove_resident(path);
            return -1;  // the lock stays held until this process ends
        }
        fd_guard conn{::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC)};
        if (conn.fd < 0) continue;
        if (peer_of(conn.fd).uid != ::getuid()) continue;
        fd_guard output{receive_fd(conn.fd)};
        if (output.fd < 0) continue;  // a client that went away at once
        ::dup2(output.fd, 1);
        ::dup2(output.fd, 2);
        return conn.release();
    }
}

void end_resident_client(int conn_fd) {
    ::close(conn_fd);
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) {
        ::dup2(null, 1);
        ::dup2(null, 2);
        ::close(null);
    }
}

void retire_resident(int listen_fd) {
    const std::string path = bound_path(listen_fd);
    if (!path.empty()) remove_resident(path);
}

namespace {

// Each resident in dir with its lock held where free (lock_fd >= 0), dead ones' sockets
// removed.
template <typename Visit>
void visit_residents(const std::string& dir, Visit visit) {
    std::vector<std::string> paths;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (e.path().string().ends_with(".sock")) paths.push_back(e.path().string());
    }
    std::sort(paths.begin(), paths.end());
    for (const auto& path : paths) {
        resident_info r;
        r.socket = path;
        r.what = read_info(path);
        fd_guard lock{take_lock(lock_path_of(path))};
        r.busy = lock.fd < 0;
        if (!r.busy) {
            fd_guard conn{connect_to(path)};  // the listener's credentials, before accept
            if (conn.fd < 0) {
                remove_resident(path);
                continue;
            }
            r.pid = peer_of(conn.fd).pid;
            // Closed without an output file: the resident waits for the next client.
        }
        visit(r);
    }
}

}  // namespace

std::vector<resident_info> list_residents(const std::string& dir) {
    std::vector<resident_info> out;
    visit_residents(dir, [&](const resident_info& r) { out.push_back(r); });
    return out;
}

int stop_idle_residents(const std::string& dir) {
    int stopped = 0;
    visit_residents(dir, [&](const resident_info& r) {
        if (r.busy || r.pid <= 0 || ::kill(r.pid, SIGTERM) != 0) return;
        remove_resident(r.socket);  // under its lock: no client meets it meanwhile
        ++stopped;
    });
    return stopped;
}

}  // namespace hone
