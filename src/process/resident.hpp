// Resident workers: a GPU worker that outlives the command that started it, so that the next
// command on the same GPU skips CUDA's and the profiler's start (~1 s a GPU, more with several
// at once: bench/RESULTS.md section 13). Opt-in (`hone tune --keep-workers S`,
// $HONE_KEEP_WORKERS): a resident holds a CUDA context, and so GPU memory, until it has been
// idle for S seconds.
//
// A resident listens on a Unix socket in a folder only this user can enter
// ($HONE_RESIDENT_DIR, else $XDG_RUNTIME_DIR/hone, else /tmp/hone-UID), named by a digest of
// everything that shapes the worker: its executable (path, size, time), its arguments and the
// environment variables that reach CUDA or hone. A client holds the lock file beside the
// socket for as long as it is connected, so a resident serves one command at a time; a
// command that finds the lock taken starts a worker of its own, as without residents. The
// client hands the resident its output file over the socket (SCM_RIGHTS): kernel printf and
// trap messages reach the client as a child's would. A resident that ends (a sticky error, a
// kill by the watchdog) leaves a socket that refuses connections; the next client removes it
// and starts a fresh resident.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "process/worker_process.hpp"

namespace hone {

// The folder for residents' sockets and locks, created mode 0700; empty (residents unused)
// when it cannot be made or is not this user's alone.
std::string resident_dir();

// The socket's path for cmd (its lock: the same path ending in .lock instead of .sock).
std::string resident_socket_path(const std::string& dir, const worker_command& cmd);

// Connects to cmd's resident worker, starting one (cmd's arguments with --resident keep_s)
// where none listens. nullptr when residents cannot be used here or another command holds
// this one: the caller starts a worker of its own. Throws env_error when a resident had to be
// started and could not be.
std::unique_ptr<worker_process> connect_resident(const worker_command& cmd, int keep_s);

// The resident's side: waits up to idle_s for the next client on listen_fd. Returns the
// connection (its peer checked to be this user, the client's output file already on fds 1
// and 2), or -1 when idle_s passed with no client waiting; the socket is then removed, unless a
// client holds the lock (then it waits again).
int accept_resident_client(int listen_fd, double idle_s);
// After a client: fds 1 and 2 back to /dev/null.
void end_resident_client(int conn_fd);
// Removes the resident's socket file (it ends: a fresh resident takes its place).
void retire_resident(int listen_fd);

// Residents in dir: socket path, what it serves, whether a command holds it, and its pid (0
// when unknown).
struct resident_info {
    std::string socket;
    std::string what;  // the worker command it serves (hone-worker gpu --device N ...)
    bool busy = false;
    int pid = 0;
};
std::vector<resident_info> list_residents(const std::string& dir);
// Ends the residents that no command holds (SIGTERM); returns how many.
int stop_idle_residents(const std::string& dir);

}  // namespace hone
