// Model-based search (Bayesian optimisation with a random-forest surrogate, as in SMAC): after
// `initial` random points, a forest is fitted to the log times seen (failed points count as
// slower than the slowest, so that the model learns where failures cluster), and the next
// `batch` points are the candidates of highest expected improvement over the best. Candidates
// are random points and the unseen neighbours of the best few.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "search/forest.hpp"
#include "search/search_base.hpp"
#include "search/strategies.hpp"

namespace hone {
namespace {

double env(const char* name, double fallback) {
    const char* v = std::getenv(name);
    return v ? std::atof(v) : fallback;
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
double normal_pdf(double z) { return 0.3989422804014327 * std::exp(-0.5 * z * z); }

class bayes_opt final : public search_base {
  public:
    bayes_opt(const search_domain& d, const strategy_setup& s) : search_base(d, s), model_(d, env("HONE_BO_CTZ", 1) != 0) {
        clip_ = env("HONE_BO_CLIP", 1.0);
        fail_mode_ = static_cast<int>(env("HONE_BO_FAIL", 0));
        acq_ = static_cast<int>(env("HONE_BO_ACQ", 0));
        topk_ = static_cast<std::size_t>(env("HONE_BO_TOPK", 5));
        diverse_ = static_cast<std::size_t>(env("HONE_BO_DIVERSE", 0));
        kappa_ = env("HONE_BO_KAPPA", 1.0);
        local_share_ = env("HONE_BO_LOCAL", 0.0);
        initial_ = static_cast<std::size_t>(option("initial"));
        batch_ = static_cast<std::size_t>(option("batch"));
        candidates_ = static_cast<std::size_t>(option("candidates"));
        xi_ = option("explore");
        forest_.trees = static_cast<int>(option("trees"));
    }

  private:
    void next(std::size_t n, std::vector<point>& out) override {
        // The initial design: random points, all at once.
        if (history_.size() + pending_.size() < initial_ || !best_) {
            while (out.size() < n && history_.size() + pending_.size() < std::max(initial_, std::size_t{1})) {
                auto p = fresh_sample();
                if (!p) return;
                take(*p, out);
            }
            return;
        }
        // Refit when half the batch has come back.
        if (pending_.size() > batch_ / 2) return;
        const std::size_t want = std::min(n, batch_ - pending_.size());
        fit();
        for (auto& p : best_candidates(want)) take(p, out);
    }

    void fit() {
        std::vector<point> x;
        std::vector<double> y;
        x.reserve(history_.size());
        y.reserve(history_.size());
        std::vector<double> ok;
        for (const auto& [p, s] : history_)
            if (s) ok.push_back(*s);
        std::sort(ok.begin(), ok.end());
        const double cap = ok.empty() ? 0 : ok[std::min(ok.size() - 1, static_cast<std::size_t>(clip_ * static_cast<double>(ok.size())))];
        const double fail = fail_mode_ == 0 ? failure_score() : cap;
        for (const auto& [p, s] : history_) {
            x.push_back(p);
            y.push_back(s ? std::min(*s, cap) : fail);
        }
        model_.fit(x, y, forest_, rng_);
    }

    std::vector<point> best_candidates(std::size_t want) {
        point_set cands;
        for (std::size_t i = 0; i < candidates_; ++i) {
            auto p = fresh_sample();
            if (!p) break;
            cands.insert(std::move(*p));
        }
        // Neighbours of the best few observed points.
        std::vector<std::pair<double, const point*>> ranked;
        for (const auto& [p, s] : history_)
            if (s) ranked.emplace_back(*s, &p);
        std::sort(ranked.begin(), ranked.end());
        std::vector<const point*> tops;
        for (const auto& [sc, p] : ranked) {
            if (tops.size() >= topk_) break;
            bool far = true;
            for (const point* t : tops) {
                std::size_t diff = 0;
                for (std::size_t i = 0; i < p->size(); ++i) diff += (*p)[i] != (*t)[i];
                far = far && diff >= diverse_;
            }
            if (far) tops.push_back(p);
        }
        for (const point* t : tops)
            for (auto& q : neighbours(*t, false))
                if (!seen(q)) cands.insert(std::move(q));

        // Expected improvement; ties broken by the candidate's order of arrival (deterministic:
        // collected in a vector sorted by its code).
        std::vector<std::pair<double, point>> scored;
        scored.reserve(cands.size());
        const double best = *best_;
        for (const auto& p : cands) {
            const auto pr = model_.predict(p);
            const double sd = std::max(pr.stddev, 1e-6);
            const double z = (best - pr.mean - xi_) / sd;
            double a = -sd * (z * normal_cdf(z) + normal_pdf(z));
            if (acq_ == 1) a = pr.mean;
            if (acq_ == 2) a = pr.mean - kappa_ * sd;
            scored.emplace_back(a, p);
        }
        if (acq_ == 3) {  // Thompson sampling: each proposal is the best of one random tree
            std::vector<double> mean;
            for (const auto& [a, p] : scored) mean.push_back(model_.predict(p).mean);
            std::vector<point> out;
            std::vector<bool> taken(scored.size(), false);
            for (std::size_t k = 0; k < want && k < scored.size(); ++k) {
                const std::size_t t = below(model_.trees());
                std::size_t arg = SIZE_MAX;
                double best_v = 0;
                for (std::size_t c = 0; c < scored.size(); ++c) {
                    if (taken[c]) continue;
                    const double v = model_.predict_tree(scored[c].second, t);
                    if (arg == SIZE_MAX || v < best_v ||
                        (v == best_v && (mean[c] < mean[arg] || (mean[c] == mean[arg] && scored[c].second < scored[arg].second))))
                        best_v = v, arg = c;
                }
                taken[arg] = true;
                out.push_back(scored[arg].second);
            }
            return out;
        }
        std::sort(scored.begin(), scored.end());
        std::vector<point> out;
        for (std::size_t k = 0; k < scored.size() && out.size() < want; ++k)
            out.push_back(std::move(scored[k].second));
        return out;
    }

    random_forest model_;
    std::size_t diverse_storage_ = 0;
    forest_options forest_;
    std::size_t initial_ = 20, batch_ = 4, candidates_ = 2000;
    double xi_ = 0.01, clip_ = 1.0;
    int fail_mode_ = 0, acq_ = 0;
    std::size_t topk_ = 5, diverse_ = 0;
    double kappa_ = 1, local_share_ = 0;
};

}  // namespace

std::unique_ptr<strategy> make_bayes_opt(const strategy_setup& s, const search_domain& d) {
    return std::make_unique<bayes_opt>(d, s);
}

}  // namespace hone
