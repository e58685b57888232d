// Supervised worker processes: the one mechanism behind the compile pool and the GPU worker.
// A worker is fork()ed (no exec, so it works inside any application linking libhone; the parent
// must not have initialised CUDA) and talks to its parent over a socket in frames: a 4-byte
// little-endian length, then a CBOR payload (docs/worker-protocol.md). The worker dies with its
// supervisor (PR_SET_PDEATHSIG); its stdout/stderr go to an unlinked temp file that the parent
// reads after each job (kernel printf, trap messages).
#pragma once
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>

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

class worker_process {
  public:
    // Runs in the child on its end of the socket; the child exits when it returns.
    using handler = std::function<void(int fd)>;

    explicit worker_process(const handler& h);  // forks; throws env_error
    ~worker_process();                          // kill()
    worker_process(const worker_process&) = delete;
    worker_process& operator=(const worker_process&) = delete;

    // False when the worker is gone (the next receive() says why).
    bool send(const nlohmann::json& msg);
    // Next frame, or timeout after timeout_s (< 0: wait forever; 0: only what is already there),
    // or the worker's exit. Frames sent before an exit are returned first.
    worker_reply receive(double timeout_s);
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
    std::optional<nlohmann::json> pop_frame();
    worker_exit reap();

    int pid_ = -1;
    int fd_ = -1;
    int output_fd_ = -1;
    uint64_t output_taken_ = 0;  // offset up to which output has been handed out
    std::string buffer_;
    std::optional<worker_exit> exit_;
};

// "SIGSEGV" for a signal number; "signal N" when it has no name.
std::string signal_name(int sig);

}  // namespace hone
