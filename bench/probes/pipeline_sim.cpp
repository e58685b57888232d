// A model of the tuning loop on one GPU, to weigh compiling ahead without a GPU: a strategy
// searches a recorded space (as `hone replay` does) while J compile workers take C seconds a
// configuration and the GPU G seconds. Proposals wait for their compile in order (the tuner's
// queue), the strategy is asked to refill its window (2 J + 4) after each outcome, and with
// compiling ahead the workers nothing asked for compile strategy::likely's points under the
// tuner's rules (two workers spare, at most half the jobs ahead, an asked-for compile never
// waiting for an unasked one). The search path is the same either way: only time differs.
//   hone_pipeline_sim SPACE [--jobs J] [--compile-s C] [--gpu-s G] [--evals N] [--seeds K]
//                     [--seed S] [--strategy NAME]          (--help: the defaults)
// Prints, per seed, the modelled wall time and the time to 95% of the optimum without and with
// compiling ahead, and the medians.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "formats/recorded_space.hpp"
#include "report/analysis.hpp"
#include "search/replay.hpp"
#include "search/strategy.hpp"

using namespace hone;

namespace {

struct options {
    std::string space, strategy = "auto";
    int jobs = 16, evals = 500, seeds = 10;
    uint64_t seed = 1;
    double compile_s = 1.0, gpu_s = 0.035;
};

struct outcome {
    double wall = 0, to95 = -1;
    std::size_t ahead = 0, used = 0;
};

outcome simulate(const recorded_space& sp, const options& o, uint64_t seed, bool ahead_on) {
    strategy_setup s;
    s.name = o.strategy;
    s.seed = seed;
    s.budget = o.evals;
    auto st = make_strategy(s, sp, [&](uint64_t i) { return sp.points[i]; });
    const std::size_t window = 2 * static_cast<std::size_t>(o.jobs) + 4;
    const auto jobs = static_cast<std::size_t>(o.jobs);
    struct task {
        double done_at;
        bool unasked;
    };
    std::map<point, task> compiling;  // by point
    std::set<point> cached, asked;
    std::deque<point> waiting;  // asked for, no worker yet
    std::deque<point> queue;    // proposals in order, waiting for compile, then the GPU
    double t = 0, gpu_free_at = 0;
    std::optional<point> on_gpu;
    std::size_t evaluated = 0, proposed = 0;
    outcome out;
    double best = 0;
    const auto unasked = [&] {
        return static_cast<std::size_t>(std::count_if(
            compiling.begin(), compiling.end(), [](const auto& c) { return c.second.unasked; }));
    };
    const auto start_waiting = [&] {
        while (!waiting.empty() && compiling.size() - unasked() < jobs) {
            compiling[waiting.front()] = {t + o.compile_s, false};
            waiting.pop_front();
        }
    };
    const auto fill = [&] {
        while (queue.size() < window && proposed < static_cast<std::size_t>(o.evals)) {
            auto ps = st->propose(std::min(window - queue.size(), o.evals - proposed));
            if (ps.empty()) break;
            for (auto& p : ps) {
                ++proposed;
                if (auto it = compiling.find(p); it != compiling.end()) {
                    out.used += it->second.unasked;
                    it->second.unasked = false;
                } else if (cached.count(p)) {
                    out.used += asked.count(p) > 0;
                } else {
                    waiting.push_back(p);
                }
                queue.push_back(std::move(p));
            }
        }
        start_waiting();
        if (!ahead_on || !waiting.empty()) return;
        const std::size_t busy = compiling.size(), un = unasked(), cap = jobs / 2;
        if (busy + 2 >= jobs || un >= cap) return;
        std::size_t room = std::min(jobs - busy - 2, cap - un);
        for (auto& p : st->likely(2 * room)) {
            if (room == 0) break;
            if (!asked.insert(p).second || cached.count(p) || compiling.count(p)) continue;
            compiling[p] = {t + o.compile_s, true};
            ++out.ahead;
            --room;
        }
    };
    fill();
    while (evaluated < static_cast<std::size_t>(o.evals)) {
        // The GPU takes the head of the queue once it is compiled.
        if (!on_gpu && !queue.empty() && cached.count(queue.front())) {
            on_gpu = queue.front();
            queue.pop_front();
            gpu_free_at = t + o.gpu_s;
        }
        double next = on_gpu ? gpu_free_at : 1e300;
        for (const auto& [p, c] : compiling) next = std::min(next, c.done_at);
        if (next >= 1e300) break;  // nothing left to happen
        t = next;
        for (auto it = compiling.begin(); it != compiling.end();) {
            if (it->second.done_at <= t) {
                cached.insert(it->first);
                it = compiling.erase(it);
            } else {
                ++it;
            }
        }
        start_waiting();
        if (on_gpu && gpu_free_at <= t) {
            const std::size_t k = *sp.find(*on_gpu);
            st->observe(*on_gpu, sp.outcome[k]);
            if (sp.outcome[k]) best = std::max(best, sp.relative(*sp.outcome[k]));
            if (out.to95 < 0 && best >= 0.95) out.to95 = t;
            on_gpu.reset();
            ++evaluated;
            fill();
        } else {
            fill();  // compiles finished: room for more ahead
        }
    }
    out.wall = t;
    return out;
}

// The median, 0 for none (no seed reached 95% both ways).
double median(std::vector<double> v) {
    return v.empty() ? 0 : report_detail::median_of(v);
}

}  // namespace

int main(int argc, char** argv) {
    options o;
    CLI::App app{
        "A model of the tuning loop's compiles and GPU on a recorded space, with and "
        "without compiling ahead"};
    app.add_option("space", o.space, "recorded space (as hone replay reads)")->required();
    app.add_option("--jobs", o.jobs, "compile workers")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    app.add_option("--compile-s", o.compile_s, "seconds a compile takes")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--gpu-s", o.gpu_s, "seconds a measurement takes")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--evals", o.evals, "evaluations a run")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--seeds", o.seeds, "seeds")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    app.add_option("--seed", o.seed, "first seed")->capture_default_str();
    app.add_option("--strategy", o.strategy, "strategy")->capture_default_str();
    CLI11_PARSE(app, argc, argv);
    std::optional<recorded_space> loaded;
    try {
        loaded = load_recorded_space(o.space);
    } catch (const std::exception& e) {
        fmt::print(stderr, "hone_pipeline_sim: {}\n", e.what());
        return 2;
    }
    const recorded_space& sp = *loaded;
    fmt::print("{}: {} jobs, compile {} s, GPU {} s, {} evaluations, {}\n", o.space, o.jobs,
               o.compile_s, o.gpu_s, o.evals, o.strategy);
    fmt::print(
        "| seed | wall without / with s | to 95% without / with s | ahead, used "
        "|\n|---|---|---|---|\n");
    std::vector<double> w0, w1, r0, r1;
    for (int k = 0; k < o.seeds; ++k) {
        const uint64_t seed = o.seed + static_cast<uint64_t>(k);
        const outcome a = simulate(sp, o, seed, false), b = simulate(sp, o, seed, true);
        fmt::print("| {} | {:.1f} / {:.1f} | {:.1f} / {:.1f} | {}, {} |\n", seed, a.wall, b.wall,
                   a.to95, b.to95, b.ahead, b.used);
        w0.push_back(a.wall), w1.push_back(b.wall);
        if (a.to95 >= 0 && b.to95 >= 0) r0.push_back(a.to95), r1.push_back(b.to95);
    }
    fmt::print(
        "median wall {:.1f} / {:.1f} s; median to 95% {:.1f} / {:.1f} s (seeds reaching it both "
        "ways: {})\n",
        median(w0), median(w1), median(r0), median(r1), r0.size());
}
