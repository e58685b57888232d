// How worker processes are found and started: hone-worker's lookup, what a spawned worker
// inherits (nothing but fds 0-3, no blocked or handled signals), starting from a process with
// threads and open descriptors, and the worker's death with its supervisor.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "compile/compile_pool.hpp"
#include "driver/gpu.hpp"
#include "hone/error.hpp"
#include "process/worker_process.hpp"
#include "scoped_env.hpp"
#include "temp_dir.hpp"
#include "worker/protocol.hpp"

namespace fs = std::filesystem;
using namespace hone;

namespace {

void make_executable(const fs::path& p) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "#!/bin/sh\nexit 0\n";
    fs::permissions(p, fs::perms::owner_all);
}

std::set<int> open_fds(int pid) {
    std::set<int> fds;
    for (const auto& e : fs::directory_iterator(fmt::format("/proc/{}/fd", pid)))
        fds.insert(std::stoi(e.path().filename().string()));
    return fds;
}

std::string fd_target(int pid, int fd) {
    return fs::read_symlink(fmt::format("/proc/{}/fd/{}", pid, fd)).string();
}

// A field of /proc/<pid>/status, such as "SigBlk".
std::string status_field(int pid, const std::string& name) {
    std::ifstream in(fmt::format("/proc/{}/status", pid));
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with(name + ":")) {
            const auto v = line.find_first_not_of(" \t", name.size() + 1);
            return line.substr(v);
        }
    }
    return "";
}

void hello(worker_process& w) {
    REQUIRE(w.send({{"type", "hello"}, {"version", worker_protocol_version}}));
    const worker_reply r = w.receive(60);
    REQUIRE(std::holds_alternative<nlohmann::json>(r));
    REQUIRE(std::get<nlohmann::json>(r).value("type", "") == "hello");
}

compile_request tiny_kernel(int n) {
    compile_request r;
    r.source = fmt::format("extern \"C\" __global__ void k{}(int* x) {{ x[0] = {}; }}\n", n, n);
    r.source_name = "k.cu";
    r.plain_name = fmt::format("k{}", n);
    r.options = {"--gpu-architecture=sm_90"};
    return r;
}

// Threads that wait until destroyed, and descriptors left open without O_CLOEXEC, as an
// application's; the calling thread blocks SIGTERM and handles SIGUSR1 meanwhile.
struct busy_application {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::vector<std::thread> threads;
    int leaked_file = -1;
    int leaked_pipe[2] = {-1, -1};
    sigset_t old_mask;
    struct sigaction old_usr1 {};

    busy_application() {
        for (int i = 0; i < 4; ++i) {
            threads.emplace_back([this] {
                std::unique_lock lock(m);
                cv.wait(lock, [this] { return done; });
            });
        }
        leaked_file = ::open("/dev/null", O_RDONLY);
        REQUIRE(::pipe(leaked_pipe) == 0);
        sigset_t term;
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        ::pthread_sigmask(SIG_BLOCK, &term, &old_mask);
        struct sigaction sa {};
        sa.sa_handler = [](int) {};
        ::sigaction(SIGUSR1, &sa, &old_usr1);
    }
    ~busy_application() {
        {
            std::lock_guard lock(m);
            done = true;
        }
        cv.notify_all();
        for (auto& t : threads) t.join();
        ::close(leaked_file);
        ::close(leaked_pipe[0]);
        ::close(leaked_pipe[1]);
        ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
        ::sigaction(SIGUSR1, &old_usr1, nullptr);
    }
};

}  // namespace

TEST_CASE("hone-worker is found beside libhone, in the install's bin/, or in libexec/hone/") {
    temp_dir dir;
    const fs::path lib = dir.path / "lib" / "libhone.so";
    fs::create_directories(lib.parent_path());
    std::ofstream(lib) << "";
    CHECK_THROWS_WITH_AS(find_worker_executable(nullptr, lib.string()),
                         doctest::Contains("set HONE_WORKER to its path"), env_error);

    make_executable(dir.path / "bin" / "hone-worker");
    CHECK(find_worker_executable(nullptr, lib.string()) ==
          (dir.path / "bin" / "hone-worker").string());
    make_executable(dir.path / "libexec" / "hone" / "hone-worker");  // before bin/
    CHECK(find_worker_executable(nullptr, lib.string()) ==
          (dir.path / "libexec" / "hone" / "hone-worker").string());
    make_executable(dir.path / "lib" / "hone-worker");  // beside comes first
    CHECK(find_worker_executable(nullptr, lib.string()) ==
          (dir.path / "lib" / "hone-worker").string());
    CHECK(find_worker_executable("", lib.string()) == (dir.path / "lib" / "hone-worker").string());

    // A file without the execute permission is passed over.
    fs::permissions(dir.path / "lib" / "hone-worker",
                    fs::perms::owner_read | fs::perms::owner_write);
    if (::geteuid() != 0 || ::access((dir.path / "lib" / "hone-worker").c_str(), X_OK) != 0) {
        CHECK(find_worker_executable(nullptr, lib.string()) ==
              (dir.path / "libexec" / "hone" / "hone-worker").string());
    }
}

TEST_CASE("without hone-worker the error says where it looked and how to fix it") {
    temp_dir dir;
    const std::string lib = (dir.path / "lib" / "libhone.so").string();
    try {
        find_worker_executable(nullptr, lib);
        FAIL("no error");
    } catch (const env_error& e) {
        const std::string msg = e.what();
        CHECK(msg.starts_with("hone-worker was not found"));
        CHECK(msg.find("beside " + lib) != std::string::npos);
        CHECK(msg.find((dir.path / "lib" / "hone-worker").string()) != std::string::npos);
        CHECK(msg.find((dir.path / "bin" / "hone-worker").string()) != std::string::npos);
        CHECK(msg.find((dir.path / "libexec" / "hone" / "hone-worker").string()) !=
              std::string::npos);
        CHECK(msg.find("set HONE_WORKER") != std::string::npos);
    }
}

TEST_CASE("a HONE_WORKER that is not an executable file is an error that names the variable") {
    temp_dir dir;
    make_executable(dir.path / "lib" / "hone-worker");  // would be found, but the variable wins
    const std::string lib = (dir.path / "lib" / "libhone.so").string();
    const std::string missing = (dir.path / "nowhere" / "hone-worker").string();
    CHECK_THROWS_WITH_AS(find_worker_executable(missing.c_str(), lib),
                         fmt::format("HONE_WORKER is set to '{}', which is not an executable file "
                                     "(No such file or directory): point it at the hone-worker "
                                     "executable, or unset it to use the one installed beside "
                                     "libhone",
                                     missing)
                             .c_str(),
                         env_error);
    CHECK_THROWS_WITH_AS(find_worker_executable(dir.path.c_str(), lib),
                         doctest::Contains("(not a regular file)"), env_error);
    const std::string real = (dir.path / "lib" / "hone-worker").string();
    CHECK(find_worker_executable(real.c_str(), lib) == real);

    // Through the environment, as the compile pool and the GPU session look it up.
    const scoped_env env("HONE_WORKER", missing);
    CHECK_THROWS_WITH_AS(worker_executable(), doctest::Contains("HONE_WORKER is set to"),
                         env_error);
    compile_pool pool(1, nullptr, 60.0);
    pool.submit(tiny_kernel(1));
    CHECK_THROWS_WITH_AS(pool.wait(-1), doctest::Contains("HONE_WORKER is set to"), env_error);
    CHECK_THROWS_WITH_AS(make_worker_session(0), doctest::Contains("HONE_WORKER is set to"),
                         env_error);
}

TEST_CASE("a compile worker that cannot start is reported with what it printed") {
    temp_dir dir;
    const fs::path fake = dir.path / "hone-worker";
    std::ofstream(fake) << "#!/bin/sh\necho 'hone-worker: error while loading shared libraries: "
                           "libnvrtc.so.13' >&2\nexit 127\n";
    fs::permissions(fake, fs::perms::owner_all);
    const scoped_env env("HONE_WORKER", fake.string());
    compile_pool pool(1, nullptr, 60.0);
    pool.submit(tiny_kernel(1));
    CHECK_THROWS_WITH_AS(
        pool.wait(-1),
        fmt::format(
            "a compile worker ({}) did not start (exit code 127):\nhone-worker: error while "
            "loading shared libraries: libnvrtc.so.13\n",
            fake.string())
            .c_str(),
        env_error);
}

TEST_CASE("hone-worker run by hand says what it is and exits 2") {
    temp_dir dir;
    const std::string out = dir.file("out.txt");
    const int rc = std::system(
        fmt::format("'{}' compile --parent 1 3>&- </dev/null >'{}' 2>&1", worker_executable(), out)
            .c_str());
    REQUIRE(WIFEXITED(rc));
    CHECK(WEXITSTATUS(rc) == 2);
    std::ifstream in(out);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(text.find("fd 3 is not a socket") != std::string::npos);
    CHECK(text.find("This is hone's worker process") != std::string::npos);
    CHECK(text.find("not meant to be run by hand") != std::string::npos);

    // With a socket but a role it does not know: the same, through the output file.
    worker_process w({worker_executable(), {"nonsense"}});
    const worker_reply r = w.receive(60);
    REQUIRE(std::holds_alternative<worker_exit>(r));
    CHECK(std::get<worker_exit>(r).reason == "exit code 2");
    CHECK(w.take_output().find("unknown role 'nonsense'") != std::string::npos);
}

TEST_CASE("a spawned worker has only its stdio and socket open, and default signal handling") {
    const busy_application app;
    worker_process w(worker_role_command("compile"));
    hello(w);  // it has exec'd and runs: what it holds now is what it inherited and opened
    CHECK(open_fds(w.pid()) == std::set<int>{0, 1, 2, 3});
    CHECK(fd_target(w.pid(), 0) == "/dev/null");
    CHECK(fd_target(w.pid(), 1) == fd_target(w.pid(), 2));
    CHECK(fd_target(w.pid(), 1).find("hone-worker-") != std::string::npos);
    CHECK(fd_target(w.pid(), 1).ends_with("(deleted)"));
    CHECK(fd_target(w.pid(), 3).starts_with("socket:"));
    CHECK(status_field(w.pid(), "SigBlk") == "0000000000000000");
    // Of the standard signals, SIGINT only (glibc itself ignores its internal 32 and 33).
    const unsigned long long ignored = std::stoull(status_field(w.pid(), "SigIgn"), nullptr, 16);
    CHECK((ignored & 0x7fffffffull) == (1ull << (SIGINT - 1)));
    const unsigned long long caught = std::stoull(status_field(w.pid(), "SigCgt"), nullptr, 16);
    CHECK((caught & (1ull << (SIGUSR1 - 1))) == 0);
    // The parent's pid on its command line: `hone-worker compile --parent PID`.
    std::ifstream cmdline(fmt::format("/proc/{}/cmdline", w.pid()));
    std::string args((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    std::replace(args.begin(), args.end(), '\0', ' ');
    CHECK(args.ends_with(fmt::format(" compile --parent {} ", ::getpid())));
}

TEST_CASE("the compile pool and the GPU worker start from a process with threads and open files") {
    const busy_application app;
    compile_pool pool(2, nullptr, 60.0);
    for (int n : {1, 2, 3}) pool.submit(tiny_kernel(n));
    int ok = 0;
    while (auto got = pool.wait(-1)) {
        INFO(got->second.log);
        ok += got->second.ok;
    }
    CHECK(ok == 3);
    CHECK(pool.counts().workers_lost == 0);

    // The GPU worker starts and answers hello: with a device where there is one, else with the
    // driver's own error from inside the worker (not a worker that died or could not start).
    try {
        const auto session = make_worker_session(0);
        CHECK(session->isolated());
        CHECK_FALSE(session->device().attrs.name.empty());
    } catch (const env_error& e) {
        const std::string msg = e.what();
        INFO(msg);
        CHECK((msg.starts_with("no CUDA driver found") || msg.starts_with("no CUDA device found")));
    }

    // Several started at once: each GPU's session, or its own error, in the order asked.
    std::vector<std::exception_ptr> errors;
    const auto sessions = make_worker_sessions({0, 0}, errors);
    REQUIRE(sessions.size() == 2);
    REQUIRE(errors.size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
        CHECK((sessions[i] == nullptr) == (errors[i] != nullptr));
        if (sessions[i]) {
            CHECK(sessions[i]->device().ordinal == 0);
            continue;
        }
        try {
            std::rethrow_exception(errors[i]);
        } catch (const env_error& e) {
            const std::string msg = e.what();
            INFO(msg);
            CHECK((msg.starts_with("no CUDA driver found") ||
                   msg.starts_with("no CUDA device found")));
        }
    }
}

TEST_CASE("a worker dies with its supervisor") {
    int pipe_fds[2];
    REQUIRE(::pipe(pipe_fds) == 0);
    const pid_t supervisor = ::fork();  // a supervisor of its own, to be killed
    REQUIRE(supervisor >= 0);
    if (supervisor == 0) {
        ::close(pipe_fds[0]);
        int pid = -1;
        try {
            // Busy for ever, so that only the supervisor's death, not its closed socket, ends it.
            ::setenv("HONE_TEST_HANG_MARKER", "HONE_HANG_HERE", 1);
            worker_process w(worker_role_command("compile"));
            compile_request stuck = tiny_kernel(1);
            stuck.source += "// HONE_HANG_HERE\n";
            w.send({{"type", "compile"}, {"request", stuck}, {"timeout_s", 0}});
            if (!std::holds_alternative<worker_timeout>(w.receive(0.2))) ::_exit(1);
            pid = w.pid();
            (void)!::write(pipe_fds[1], &pid, sizeof pid);
            for (;;) ::pause();
        } catch (...) {
        }
        (void)!::write(pipe_fds[1], &pid, sizeof pid);
        ::_exit(1);
    }
    ::close(pipe_fds[1]);
    int worker = -1;
    REQUIRE(::read(pipe_fds[0], &worker, sizeof worker) == sizeof worker);
    ::close(pipe_fds[0]);
    REQUIRE(worker > 0);
    CHECK(fs::exists(fmt::format("/proc/{}", worker)));
    ::kill(supervisor, SIGKILL);
    ::waitpid(supervisor, nullptr, 0);
    // PR_SET_PDEATHSIG: the kernel sends SIGKILL at once; allow a generous while for it to land
    // (a liveness bound, not a timing assertion). Reparented, it may linger as a zombie.
    auto gone = [&] {
        std::ifstream stat(fmt::format("/proc/{}/stat", worker));
        std::string pid, comm, state;
        return !(stat >> pid >> comm >> state) || state == "Z";
    };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!gone() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    CHECK(gone());
}

TEST_CASE("a worker ended by its destructor is reaped, not left a zombie") {
    int pid = -1;
    {
        worker_process w(worker_role_command("compile"));
        pid = w.pid();
        REQUIRE(pid > 0);
        CHECK(fs::exists(fmt::format("/proc/{}", pid)));
    }  // killed here; a detached thread waits for it
    // This process is its parent: unreaped, it would stay in /proc as a zombie for ever.
    // (A liveness bound, not a timing assertion.)
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (fs::exists(fmt::format("/proc/{}", pid)) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    CHECK_FALSE(fs::exists(fmt::format("/proc/{}", pid)));
}

TEST_CASE("hone-worker gpu reads --warm-profiler as an integer and refuses anything else") {
    worker_process bad(worker_role_command("gpu", {"--device", "0", "--warm-profiler", "yes"}));
    const worker_reply r = bad.receive(60);
    REQUIRE(std::holds_alternative<worker_exit>(r));
    CHECK(std::get<worker_exit>(r).reason == "exit code 2");
    CHECK(bad.take_output().find("'--warm-profiler' needs an integer") != std::string::npos);
    // 0 is taken: the worker serves; without a driver its hello is an error, with one a hello.
    worker_process ok(worker_role_command("gpu", {"--device", "0", "--warm-profiler", "0"}));
    REQUIRE(ok.send({{"type", "hello"}, {"version", worker_protocol_version}}));
    const worker_reply h = ok.receive(120);
    REQUIRE(std::holds_alternative<nlohmann::json>(h));
    const std::string type = std::get<nlohmann::json>(h).value("type", "");
    CHECK((type == "hello" || type == "error"));
}
