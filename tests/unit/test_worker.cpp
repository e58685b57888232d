#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "hone/error.hpp"
#include "process/resident.hpp"
#include "process/worker_process.hpp"
#include "test_workers.hpp"
#include "worker/protocol.hpp"
#include "worker/serve_session.hpp"
#include "worker/worker_session.hpp"

using namespace hone;
using nlohmann::json;

namespace {

const json& as_json(const worker_reply& r) {
    REQUIRE(std::holds_alternative<json>(r));
    return std::get<json>(r);
}

std::string exit_reason(const worker_reply& r) {
    REQUIRE(std::holds_alternative<worker_exit>(r));
    return std::get<worker_exit>(r).reason;
}

// Behaves as its job's key says; reports its pid and what it was prepared with.
class fake_session : public gpu_session {
  public:
    fake_session() { info_.attrs.name = "fake GPU"; }
    const device_info& device() const override { return info_; }
    bool isolated() const override { return false; }
    prepare_report prepare(const run_plan& plan) override {
        if (plan.timing.sample_mode == "input") throw input_error({"t.yaml", 3, 4}, "bad plan");
        if (plan.timing.sample_mode == "env") throw env_error("no memory");
        ++prepares_;
        buffers_ = plan.buffers.size();
        prepare_report report;
        report.reference_us = 10.0 * static_cast<double>(buffers_);
        report.upload_s = 0.25;
        return report;
    }
    job_result run(const job& j) override {
        job_result r;
        r.message = fmt::format("pid={} releases={} prepares={} buffers={}", ::getpid(), releases_,
                                prepares_, buffers_);
        if (j.key == "hang") {
            for (;;) ::pause();
        } else if (j.key == "segv") {
            std::fprintf(stderr, "about to crash\n");
            std::raise(SIGSEGV);
        } else if (j.key == "sticky") {
            r.st = status::runtime_fault;
            r.message = "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered";
        } else if (j.key == "launch_error") {
            r.st = status::launch_error;
        } else if (j.key == "print") {
            std::printf("kernel says hi\n");
        }
        r.samples_us = {1.5, 2.5};
        return r;
    }

    void release() override {
        ++releases_;
        buffers_ = 0;
    }

  private:
    device_info info_;
    int releases_ = 0;
    int prepares_ = 0;
    std::size_t buffers_ = 0;
};

run_plan two_buffer_plan() {
    run_plan plan;
    plan.buffers.resize(2);
    plan.buffers[0].name = "a";
    plan.buffers[1].name = "b";
    return plan;
}

job named_job(const std::string& key, double deadline_s = 30.0) {
    job j;
    j.key = key;
    j.deadline_s = deadline_s;
    return j;
}

// Roles of this binary as a spawned worker (test_workers.hpp).
const test_role echo_role("echo", [](int fd, const worker_args&) {
    while (auto msg = read_frame(fd)) write_frame(fd, *msg);
});
const test_role hang_role("hang", [](int fd, const worker_args&) {
    read_frame(fd);
    for (;;) ::pause();
});
const test_role crash_role("crash", [](int fd, const worker_args&) {
    read_frame(fd);
    std::raise(SIGSEGV);
});
const test_role exit3_role("exit3", [](int, const worker_args&) { ::_exit(3); });
const test_role last_words_role("last-words", [](int fd, const worker_args&) {
    write_frame(fd, {{"type", "last words"}});
});
const test_role print_role("print", [](int fd, const worker_args&) {
    while (read_frame(fd)) {
        std::printf("to stdout\n");
        std::fprintf(stderr, "to stderr\n");
        write_frame(fd, {{"type", "done"}});
    }
});
const test_role fake_session_role("fake-session", [](int fd, const worker_args&) {
    serve_session(fd, [] { return std::make_unique<fake_session>(); });
});
const test_role fake_resident_role("fake-resident", [](int fd, const worker_args& a) {
    serve_gpu(fd, a.resident_s, [] { return std::make_unique<fake_session>(); });
});
const test_role failing_session_role("failing-session", [](int fd, const worker_args&) {
    serve_session(fd, []() -> std::unique_ptr<gpu_session> { throw env_error("no CUDA driver"); });
});

// Counts its starts in the file $HONE_TEST_STARTS and dies of SIGSEGV at the first
// $HONE_TEST_CRASHES of them, as a worker whose CUDA start crashes; then serves a fake session.
const test_role crash_at_start_role("crash-at-start", [](int fd, const worker_args&) {
    const char* path = std::getenv("HONE_TEST_STARTS");
    long starts = 0;
    if (std::FILE* f = std::fopen(path, "r")) {
        if (std::fscanf(f, "%ld", &starts) != 1) starts = 0;
        std::fclose(f);
    }
    if (std::FILE* f = std::fopen(path, "w")) {
        std::fprintf(f, "%ld", starts + 1);
        std::fclose(f);
    }
    if (starts < std::atol(std::getenv("HONE_TEST_CRASHES"))) {
        read_frame(fd);
        std::raise(SIGSEGV);
    }
    serve_session(fd, [] { return std::make_unique<fake_session>(); });
});

std::unique_ptr<gpu_session> fake_worker() {
    return make_supervised_session(test_worker("fake-session"));
}

std::string pid_of(const job_result& r) {
    return r.message.substr(0, r.message.find(' '));
}

}  // namespace

TEST_CASE("worker_process echoes frames, binary blobs included") {
    worker_process w(test_worker("echo"));
    CHECK(w.pid() > 0);
    const json msg = {
        {"type", "ping"}, {"n", 42}, {"blob", json::binary(std::vector<uint8_t>{0, 1, 2, 255})}};
    REQUIRE(w.send(msg));
    CHECK(as_json(w.receive(-1)) == msg);
    const json big = {{"text", std::string(300000, 'x')}};
    REQUIRE(w.send(big));
    CHECK(as_json(w.receive(30)) == big);
}

TEST_CASE("worker_process reports a timeout, then the kill") {
    worker_process w(test_worker("hang"));
    w.send({{"type", "work"}});
    CHECK(std::holds_alternative<worker_timeout>(w.receive(0.05)));
    w.kill();
    CHECK(exit_reason(w.receive(-1)) == "SIGKILL");
    CHECK_FALSE(w.send({{"type", "more"}}));
}

TEST_CASE("worker_process names the signal or exit code a worker died of") {
    worker_process crash(test_worker("crash"));
    crash.send({{"type", "work"}});
    CHECK(exit_reason(crash.receive(30)) == "SIGSEGV");

    worker_process quit(test_worker("exit3"));
    CHECK(exit_reason(quit.receive(30)) == "exit code 3");
}

TEST_CASE("worker_process returns frames sent before the exit, then the exit") {
    worker_process w(test_worker("last-words"));
    CHECK(as_json(w.receive(30))["type"] == "last words");
    CHECK(exit_reason(w.receive(30)) == "exit code 0");
}

TEST_CASE("worker_process captures the worker's stdout and stderr") {
    worker_process w(test_worker("print"));
    w.send({{"type", "go"}});
    as_json(w.receive(30));
    CHECK(w.take_output() == "to stdout\nto stderr\n");
    CHECK(w.take_output().empty());
    w.send({{"type", "go"}});
    as_json(w.receive(30));
    CHECK(w.take_output(10) == "[10 earlier bytes not shown]\nto stderr\n");
}

TEST_CASE("read_frame refuses an oversized frame") {
    int sv[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    const uint8_t header[4] = {0xff, 0xff, 0xff, 0x7f};
    REQUIRE(::write(sv[0], header, 4) == 4);
    CHECK_THROWS_AS(read_frame(sv[1]), env_error);
    ::close(sv[0]);
    CHECK_FALSE(read_frame(sv[1]));  // end of stream
    ::close(sv[1]);
}

TEST_CASE("protocol round-trips plans, jobs and results through CBOR") {
    run_plan plan = two_buffer_plan();
    plan.buffers[1].type = elem_type::f16;
    plan.buffers[1].role = buffer_role::inout;
    plan.buffers[1].init.kind = init_kind::random_normal;
    plan.buffers[1].symbol = "d_filter";
    plan.reference = launch_desc{};
    plan.reference->cubin = {0x7f, 'E', 'L', 'F', 0};
    plan.reference->grid = {4, 2, 1};
    plan.reference->args = {{1, elem_type::f16, 0}, {-1, elem_type::i64, 1ull << 40}};
    plan.reference->memory = memory_kind::managed;
    plan.timing.max_samples = 77;
    const auto back = json::from_cbor(json::to_cbor(json(plan))).get<run_plan>();
    CHECK(back.buffers[1].type == elem_type::f16);
    CHECK(back.buffers[1].role == buffer_role::inout);
    CHECK(back.buffers[1].init.kind == init_kind::random_normal);
    REQUIRE(back.reference);
    CHECK(back.reference->cubin == plan.reference->cubin);
    CHECK(back.reference->grid == plan.reference->grid);
    CHECK(back.reference->args[1].bits == 1ull << 40);
    CHECK(back.reference->memory == memory_kind::managed);
    CHECK(back.buffers[1].symbol == "d_filter");
    CHECK(back.buffers[0].symbol.empty());
    CHECK(back.timing.max_samples == 77);
    CHECK_FALSE(json::from_cbor(json::to_cbor(json(run_plan{}))).get<run_plan>().reference);

    job_result r;
    r.st = status::wrong_result;
    r.time_us.median = 3.25;
    r.samples_us = {3.0, 3.5};
    const auto r2 = json::from_cbor(json::to_cbor(json(r))).get<job_result>();
    CHECK(r2.st == status::wrong_result);
    CHECK(r2.time_us.median == 3.25);
    CHECK(r2.samples_us == r.samples_us);
}

TEST_CASE("protocol rethrows worker errors with their type and text") {
    const json in = error_reply(input_error({"t.yaml", 3, 4}, "bad plan"));
    CHECK_THROWS_WITH_AS(rethrow_error(in), doctest::Contains("bad plan"), input_error);
    try {
        rethrow_error(in);
    } catch (const input_error& e) {
        CHECK(e.pos().line == 3);
        CHECK(e.pos().column == 4);
        CHECK(e.message() == "bad plan");
    }
    CHECK_THROWS_WITH_AS(rethrow_error(error_reply(env_error("no GPU"))), "no GPU", env_error);
    CHECK_THROWS_WITH_AS(rethrow_error(error_reply(std::runtime_error("odd"))), "odd",
                         std::runtime_error);
}

TEST_CASE("worker session runs jobs in the worker and keeps it while results are recoverable") {
    auto s = fake_worker();
    CHECK(s->isolated());
    CHECK(s->device().attrs.name == "fake GPU");
    const prepare_report report = s->prepare(two_buffer_plan());
    CHECK(report.reference_us == 20.0);  // the worker's report crosses the socket
    CHECK(report.upload_s == 0.25);
    const job_result a = s->run(named_job("ok"));
    CHECK(a.st == status::ok);
    CHECK(a.message.ends_with("prepares=1 buffers=2"));
    CHECK(pid_of(a) != fmt::format("pid={}", ::getpid()));
    CHECK(a.samples_us == std::vector<double>{1.5, 2.5});
    CHECK(s->run(named_job("launch_error")).st == status::launch_error);
    const job_result b = s->run(named_job("print"));
    CHECK(b.output == "kernel says hi\n");
    CHECK(pid_of(b) == pid_of(a));
}

TEST_CASE("the watchdog's deadline: the floor, the budgets, and the reference's time scaled") {
    timing_spec t;
    t.timeout_s = 2;
    t.warmup_ms = 5;
    t.max_time_s = 0.5;
    t.min_samples = 10;
    CHECK(job_deadline_s(t, 0) == doctest::Approx(2.505));  // no reference: floor + budgets
    // A 1 ms reference: 22 launches, each allowed 100 ms.
    CHECK(job_deadline_s(t, 1000) == doctest::Approx(2.505 + 22 * 0.1));
    // A 70 us kernel adds little; a 50 ms one dominates.
    CHECK(job_deadline_s(t, 70) < 2.7);
    CHECK(job_deadline_s(t, 50000) > 100);
    CHECK(job_deadline_s(t, -1) == doctest::Approx(2.505));  // nonsense reads as none
}

TEST_CASE("worker session kills a hung job and replays prepare in a fresh worker") {
    auto s = fake_worker();
    s->prepare(two_buffer_plan());
    const job_result before = s->run(named_job("ok"));
    const job_result hung = s->run(named_job("hang", 0.2));
    CHECK(hung.st == status::timeout);
    CHECK(hung.message == "killed after 0.2 s");
    const job_result after = s->run(named_job("ok"));
    CHECK(after.st == status::ok);
    CHECK(pid_of(after) != pid_of(before));
    CHECK(after.message.ends_with("prepares=1 buffers=2"));
}

TEST_CASE("worker session: wake() ends a wait_ready at once, another thread's or the next one") {
    // Without it, this test waits an hour: the job never ends and its deadline is an hour.
    auto s = fake_worker();
    s->prepare(two_buffer_plan());
    s->submit(named_job("hang", 3600));
    s->wake();                         // before the wait: the next one returns at once
    CHECK_FALSE(s->wait_ready(3600));  // not ready: the job still runs
    std::thread waiter([&] { CHECK_FALSE(s->wait_ready(3600)); });
    s->wake();
    waiter.join();
}

TEST_CASE(
    "submit and collect: two jobs in flight, results in order, a hung one killed at collect") {
    auto s = fake_worker();
    s->prepare(two_buffer_plan());
    CHECK(s->max_in_flight() == 2);
    CHECK_THROWS_AS(s->collect(), std::logic_error);
    s->submit(named_job("print"));
    s->submit(named_job("launch_error"));
    CHECK_THROWS_AS(s->submit(named_job("ok")), std::logic_error);  // two at most
    CHECK_THROWS_AS(s->run(named_job("ok")), std::logic_error);     // run() needs none in flight
    const job_result first = s->collect();
    CHECK(first.st == status::ok);
    CHECK(first.output == "kernel says hi\n");  // its own output, however the next one went
    const job_result second = s->collect();
    CHECK(second.st == status::launch_error);
    CHECK(second.output.empty());
    s->submit(named_job("hang", 0.2));
    const job_result hung = s->collect();
    CHECK(hung.st == status::timeout);
    CHECK(hung.wall_s >= 0.2);  // counted from the submission, restart included
    CHECK(s->run(named_job("ok")).st == status::ok);

    // A session that works in the caller's thread takes one job and runs it in collect().
    fake_session in_thread;
    CHECK(in_thread.max_in_flight() == 1);
    in_thread.submit(named_job("ok"));
    CHECK_THROWS_AS(in_thread.submit(named_job("ok")), std::logic_error);
    CHECK(in_thread.collect().st == status::ok);
    CHECK_THROWS_AS(in_thread.collect(), std::logic_error);
}

TEST_CASE("a job queued behind one that kills the worker runs in the fresh worker") {
    auto s = fake_worker();
    s->prepare(two_buffer_plan());
    const std::string old_pid = pid_of(s->run(named_job("ok")));
    for (const char* killer : {"segv", "sticky", "hang"}) {
        CAPTURE(killer);
        s->submit(named_job(killer, 0.2));
        s->submit(named_job("print"));
        const job_result dead = s->collect();
        CHECK(dead.st == (std::string(killer) == "hang" ? status::timeout : status::runtime_fault));
        const job_result next = s->collect();
        CHECK(next.st == status::ok);
        CHECK(next.output == "kernel says hi\n");
        CHECK(pid_of(next) != old_pid);
        CHECK(next.message.ends_with("prepares=1 buffers=2"));  // the fresh worker was prepared
    }
}

TEST_CASE("worker session turns a dead worker into runtime_fault with its output") {
    auto s = fake_worker();
    s->prepare(two_buffer_plan());
    const job_result before = s->run(named_job("ok"));
    const job_result crashed = s->run(named_job("segv"));
    CHECK(crashed.st == status::runtime_fault);
    CHECK(crashed.message == "worker died: SIGSEGV");
    CHECK(crashed.output == "about to crash\n");
    const job_result after = s->run(named_job("ok"));
    CHECK(pid_of(after) != pid_of(before));
    CHECK(after.message.ends_with("prepares=1 buffers=2"));
}

TEST_CASE("worker session replaces the worker after a sticky CUDA error") {
    auto s = fake_worker();
    s->prepare(two_buffer_plan());
    const job_result before = s->run(named_job("ok"));
    const job_result sticky = s->run(named_job("sticky"));
    CHECK(sticky.st == status::runtime_fault);
    CHECK(sticky.message.starts_with("CUDA_ERROR_ILLEGAL_ADDRESS"));
    const job_result after = s->run(named_job("ok"));
    CHECK(pid_of(after) != pid_of(before));
    CHECK(after.message.ends_with("prepares=1 buffers=2"));
}

TEST_CASE("worker session rethrows prepare errors with their type") {
    auto s = fake_worker();
    run_plan bad = two_buffer_plan();
    bad.timing.sample_mode = "input";
    CHECK_THROWS_WITH_AS(s->prepare(bad), doctest::Contains("bad plan"), input_error);
    bad.timing.sample_mode = "env";
    CHECK_THROWS_WITH_AS(s->prepare(bad), "no memory", env_error);
    s->prepare(two_buffer_plan());
    CHECK(s->run(named_job("ok")).message.ends_with("prepares=1 buffers=2"));
}

TEST_CASE("worker session reports a session that cannot start") {
    CHECK_THROWS_WITH_AS(make_supervised_session(test_worker("failing-session")), "no CUDA driver",
                         env_error);
}

TEST_CASE("worker session reports a worker that dies at start with what it printed") {
    // As a worker whose dynamic loader cannot find a library: it prints why and exits 127.
    const worker_command broken{"/bin/sh",
                                {"-c", "echo 'cannot open libnvrtc.so.13' >&2; exit 127"}};
    CHECK_THROWS_WITH_AS(
        make_supervised_session(broken),
        doctest::Contains("worker died: exit code 127\ncannot open libnvrtc.so.13"), env_error);
    CHECK_THROWS_WITH_AS(make_supervised_session({"/nonexistent/hone-worker", {"gpu"}}),
                         doctest::Contains("/nonexistent/hone-worker: No such file or directory"),
                         env_error);
}

TEST_CASE("a worker that crashes while it starts is started again, restart_tries in all") {
    const std::string starts = fmt::format(
        "{}/hone-test-starts-{}", std::filesystem::temp_directory_path().string(), ::getpid());
    auto starts_seen = [&] {
        long n = 0;
        if (std::FILE* f = std::fopen(starts.c_str(), "r")) {
            if (std::fscanf(f, "%ld", &n) != 1) n = 0;
            std::fclose(f);
        }
        return n;
    };
    ::setenv("HONE_TEST_STARTS", starts.c_str(), 1);
    std::remove(starts.c_str());
    ::setenv("HONE_TEST_CRASHES", "2", 1);
    {
        auto s = make_supervised_session(test_worker("crash-at-start"));
        CHECK(starts_seen() == 3);
        CHECK(s->run(named_job("after")).st == status::ok);
    }
    // Crashing at every start: the third crash is the error, with the signal named.
    std::remove(starts.c_str());
    ::setenv("HONE_TEST_CRASHES", "100", 1);
    CHECK_THROWS_WITH_AS(make_supervised_session(test_worker("crash-at-start")),
                         doctest::Contains("failed during start: worker died: SIGSEGV"), env_error);
    CHECK(starts_seen() == 3);
    // A worker that exits (a library missing) is not started again.
    std::remove(starts.c_str());
    const worker_command exits{"/bin/sh", {"-c", fmt::format("echo x >> {}; exit 127", starts)}};
    CHECK_THROWS_AS(make_supervised_session(exits), env_error);
    std::ifstream lines(starts);
    std::string line;
    int n = 0;
    while (std::getline(lines, line)) ++n;
    CHECK(n == 1);
    std::remove(starts.c_str());
    ::unsetenv("HONE_TEST_STARTS");
    ::unsetenv("HONE_TEST_CRASHES");
}

namespace {

// Resident workers in a folder of the test's own, stopped and forgotten at the end.
struct resident_folder {
    std::string dir;
    resident_folder() {
        dir = fmt::format("{}/hone-resident-test-{}",
                          std::filesystem::temp_directory_path().string(), ::getpid());
        std::filesystem::remove_all(dir);
        ::setenv("HONE_RESIDENT_DIR", dir.c_str(), 1);
    }
    ~resident_folder() {
        stop_idle_residents(dir);
        ::unsetenv("HONE_RESIDENT_DIR");
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
    worker_command command(int keep_s = 60) const {
        worker_command cmd = test_worker("fake-resident");
        cmd.keep_s = keep_s;
        return cmd;
    }
};

// True once pred holds, polled for up to 20 s (a condition, not a speed).
template <typename Pred>
bool eventually(Pred pred) {
    for (int i = 0; i < 2000; ++i) {
        if (pred()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
}

}  // namespace

TEST_CASE("a resident worker serves the next session with its state, releasing each plan") {
    resident_folder f;
    std::string first_pid;
    {
        auto s = make_supervised_session(f.command());
        s->prepare(two_buffer_plan());
        const job_result a = s->run(named_job("ok"));
        first_pid = pid_of(a);
        CHECK(a.message == first_pid + " releases=0 prepares=1 buffers=2");
        // While this session holds it, another command gets a worker of its own.
        auto other = make_supervised_session(f.command());
        CHECK(pid_of(other->run(named_job("ok"))) != first_pid);
    }
    auto s = make_supervised_session(f.command());
    const job_result before_prepare = s->run(named_job("ok"));
    CHECK(before_prepare.message == first_pid + " releases=1 prepares=1 buffers=0");
    s->prepare(two_buffer_plan());
    const job_result b = s->run(named_job("print"));
    CHECK(b.message == first_pid + " releases=1 prepares=2 buffers=2");
    CHECK(b.output == "kernel says hi\n");  // its output reaches this session's client
    const auto listed = list_residents(f.dir);
    REQUIRE(listed.size() == 1);
    CHECK(listed[0].busy);
    CHECK(listed[0].what.ends_with("--test-worker fake-resident"));  // what it serves
}

TEST_CASE("a resident worker killed by the watchdog or ended by a sticky error is replaced") {
    resident_folder f;
    auto s = make_supervised_session(f.command());
    s->prepare(two_buffer_plan());
    const std::string a = pid_of(s->run(named_job("ok")));
    const job_result hung = s->run(named_job("hang", 0.2));
    CHECK(hung.st == status::timeout);
    const job_result after = s->run(named_job("ok"));
    const std::string b = pid_of(after);
    CHECK(b != a);
    CHECK(after.message.ends_with("releases=0 prepares=1 buffers=2"));  // prepared afresh
    const job_result sticky = s->run(named_job("sticky"));
    CHECK(sticky.st == status::runtime_fault);
    const std::string c = pid_of(s->run(named_job("ok")));
    CHECK(c != b);
    s.reset();
    // The replacement is the resident the next session finds.
    CHECK(pid_of(make_supervised_session(f.command())->run(named_job("ok"))) == c);
}

TEST_CASE("a resident worker ends after its idle time; hone workers --stop ends one at once") {
    resident_folder f;
    const std::string first = pid_of(make_supervised_session(f.command(1))->run(named_job("ok")));
    CHECK(eventually([&] { return list_residents(f.dir).empty(); }));
    for (const auto& e : std::filesystem::directory_iterator(f.dir))  // its lock file stays
        CHECK(e.path().extension() == ".lock");
    // It holds its lock until it is gone (a command meanwhile gets a worker of its own).
    const int first_pid = std::stoi(first.substr(first.find('=') + 1));
    CHECK(eventually([&] { return ::kill(first_pid, 0) != 0; }));
    make_supervised_session(f.command())->run(named_job("ok"));
    const auto idle = list_residents(f.dir);
    REQUIRE(idle.size() == 1);
    CHECK_FALSE(idle[0].busy);
    CHECK(idle[0].pid > 0);
    CHECK(stop_idle_residents(f.dir) == 1);
    CHECK(list_residents(f.dir).empty());
    CHECK(eventually([&] { return ::kill(idle[0].pid, 0) != 0; }));
}

TEST_CASE("resident workers: a folder that others can enter is not used") {
    const std::string dir = fmt::format(
        "{}/hone-resident-open-{}", std::filesystem::temp_directory_path().string(), ::getpid());
    std::filesystem::create_directories(dir);
    std::filesystem::permissions(dir, std::filesystem::perms::all);
    ::setenv("HONE_RESIDENT_DIR", dir.c_str(), 1);
    CHECK(resident_dir().empty());
    worker_command cmd = test_worker("fake-resident");
    cmd.keep_s = 60;
    CHECK(connect_resident(cmd, 60) == nullptr);
    // The session still runs, in a worker of its own.
    CHECK(make_supervised_session(cmd)->run(named_job("ok")).st == status::ok);
    ::unsetenv("HONE_RESIDENT_DIR");
    std::filesystem::remove_all(dir);
}

TEST_CASE("HONE_KEEP_WORKERS: whole seconds, else an error that names it") {
    ::unsetenv("HONE_KEEP_WORKERS");
    CHECK(keep_workers_s() == 0);
    ::setenv("HONE_KEEP_WORKERS", "600", 1);
    CHECK(keep_workers_s() == 600);
    for (const char* bad : {"abc", "-5", "1.5", "60s"}) {
        ::setenv("HONE_KEEP_WORKERS", bad, 1);
        const std::string said = fmt::format("HONE_KEEP_WORKERS is '{}'", bad);
        CHECK_THROWS_WITH_AS(keep_workers_s(), doctest::Contains(said.c_str()), env_error);
    }
    ::unsetenv("HONE_KEEP_WORKERS");
}
