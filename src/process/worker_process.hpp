// Supervised worker processes: the one mechanism behind the compile pool and the GPU worker.
// A worker is the `hone-worker` executable, started with posix_spawn (never a bare fork: the
// supervisor may be an application that holds CUDA state and threads, docs/worker-protocol.md)
// and talking to its parent over a socket at its fd 3 in frames: a 4-byte little-endian length,
// then a CBOR payload. The worker dies with its supervisor (PR_SET_PDEATHSIG); its stdout/stderr
// go to an unlinked temp file that the parent reads after each job (kernel printf, trap
// messages).
#pragma once
#include <unistd.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace hone {

inline constexpr int worker_protocol_version = 1;
inline constexpr uint32_t max_frame_bytes = 1u << 30;

// Blocking frame I/O, used by the worker side. write_frame throws env_error when the peer is
// gone; read_frame returns nullopt at end of stream and throws env_error on a malformed frame.
void write_frame(int fd, const nlohmann::json& msg);
std::optional<nlohmann::json> read_frame(int fd);

struct worker_timeout {};
struct worker_exit {
    std::string reason;  // "SIGSEGV", "exit code 3", "killed"
};
using worker_reply = std::variant<nlohmann::json, worker_timeout, worker_exit>;

// What to start: an executable that serves a role on fd 3 (worker/worker_main.hpp), with its
// arguments; worker_process appends "--parent <pid>".
struct worker_command {
    std::string path;
    std::vector<std::string> args;
    // > 0: a resident worker kept this many idle seconds, shared by later commands
    // (process/resident.hpp); where none can be had, one of this process's own.
    int keep_s = 0;
};

// The hone-worker executable (throws env_error saying where it looked and how to fix it):
// $HONE_WORKER if set; else beside the code that holds libhone (the folder of libhone.so, or of
// the executable libhone is linked into), then the install's bin folder relative to it, then
// ../libexec/hone and ../bin.
std::string worker_executable();
// The same search, from `env` (the value of $HONE_WORKER, or null) and the file that holds
// libhone; for tests.
std::string find_worker_executable(const char* env, const std::string& libhone_file);
// A command for hone-worker's role ("compile", "gpu") with its arguments.
worker_command worker_role_command(const std::string& role, std::vector<std::string> args = {});

class worker_process {
  public:
    // Spawns the worker: its socket at fd 3, stdin /dev/null, stdout and stderr to the output
    // file, nothing else open, an empty signal mask and default signal actions, this process's
    // environment. Throws env_error when it cannot be started.
    explicit worker_process(const worker_command& cmd);
    // A connection to a resident worker (process/resident.hpp), which may not be this
    // process's child: it is disconnected, not killed, when this object goes; lock_fd (the
    // resident's lock, held while connected) is closed then.
    struct resident_connection {
        int fd = -1;
        int pid = -1;
        int output_fd = -1;
        int lock_fd = -1;
        bool child = false;  // this process started it
    };
    explicit worker_process(resident_connection c);
    // SIGKILL, reaped by a detached thread (abandon()); a resident is only disconnected.
    ~worker_process();
    worker_process(const worker_process&) = delete;
    worker_process& operator=(const worker_process&) = delete;

    // False when the worker is gone (the next receive() says why).
    bool send(const nlohmann::json& msg);
    // Next frame, or timeout after timeout_s (< 0: wait forever; 0: only what is already there),
    // or the worker's exit. Frames sent before an exit are returned first.
    worker_reply receive(double timeout_s);
    // True when receive() would return at once (a whole frame is buffered, the socket is
    // readable, or the worker is gone), else false after up to timeout_s, or as soon as
    // `also_fd` (>= 0) is readable. Reads nothing.
    bool wait_readable(double timeout_s, int also_fd = -1);
    void kill();  // SIGKILL and reap; idempotent
    int pid() const { return pid_; }
    int fd() const { return fd_; }  // readable when receive(0) may make progress
    // Output the worker wrote since the last call (its last max_bytes). Call it while the worker
    // is idle: the file is emptied for the next job.
    std::string take_output(std::size_t max_bytes = 64 * 1024);
    // The same, up to offset `end` of the output (what the worker reported it had written when
    // it replied), for a worker that may be busy with the next job: the rest stays for the next
    // call, and the file is emptied only when `idle`.
    std::string take_output_until(uint64_t end, bool idle, std::size_t max_bytes = 64 * 1024);
    uint64_t output_bytes() const;  // the output file's size

  private:
    bool frame_buffered() const;  // a whole frame is in buffer_
    std::optional<nlohmann::json> pop_frame();
    worker_exit reap();
    void abandon();

    int pid_ = -1;
    int fd_ = -1;
    int output_fd_ = -1;
    int lock_fd_ = -1;
    bool resident_ = false;
    bool child_ = true;    // reaped with waitpid; a resident started elsewhere is watched instead
    bool killed_ = false;  // this process sent it SIGKILL
    uint64_t output_taken_ = 0;  // offset up to which output has been handed out
    std::string buffer_;
    std::optional<worker_exit> exit_;
};

// Closes on scope exit unless released.
struct fd_guard {
    int fd;
    ~fd_guard() {
        if (fd >= 0) ::close(fd);
    }
    int release() { return std::exchange(fd, -1); }
};

// fd itself if above 3, else a close-on-exec copy above 3 (fd is closed): a spawned worker's
// 0-3 are set up by dup2 from such descriptors, since a dup2 onto its own number would keep
// FD_CLOEXEC and a later dup2 could overwrite a source an earlier one still needs (the parent
// may run with a standard stream closed). env_error when no descriptor is left.
int above_stdio(int fd);
// An unlinked temp file (close-on-exec) for a worker's stdout and stderr.
int make_worker_output_file();
// Starts cmd with `extra` arguments and --parent <this pid>: socket_fd (> 3) at its fd 3,
// stdin /dev/null, stdout and stderr to output_fd (> 3; -1: /dev/null), nothing else open, an
// empty signal mask and default signal actions; in a session of its own where asked (a
// resident). Returns its pid; env_error when it cannot be started.
int spawn_worker(const worker_command& cmd, const std::vector<std::string>& extra, int socket_fd,
                 int output_fd, bool own_session);

// "SIGSEGV" for a signal number; "signal N" when it has no name.
std::string signal_name(int sig);

}  // namespace hone
