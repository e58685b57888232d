// The space engine against a brute force over the cartesian product: counts, canonical order,
// membership, neighbours, sampling, the lazy mode and the errors of constraints that fail.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <random>
#include <set>

#include "space/space.hpp"
#include "spec_test_util.hpp"

using namespace hone;

namespace {

std::string plain_yaml(const std::string& params, const std::vector<std::string>& constraints) {
    std::string extra = "constraints:\n";
    for (const auto& c : constraints) extra += "  - \"" + c + "\"\n";
    return spec_test::yaml(
        {{"kernel", "kernel: {source: ../kernels_src/vector_add.cu, name: vector_add}"},
         {"params", params},
         {"launch", "launch: {grid: [1], block: 32}"}},
        constraints.empty() ? "" : extra);
}

// What the engine must find, computed the slow way: every point of the product in canonical
// order, each constraint through the tree evaluator.
struct brute_force {
    std::vector<point> valid;
    std::set<std::string> failing;  // keys of configurations whose constraints fail to evaluate
    std::set<point> valid_set;

    brute_force(const spec& s, const bindings& base) {
        point p(s.params.size(), 0);
        for (;;) {
            config c;
            for (std::size_t d = 0; d < p.size(); ++d) c.values.push_back(s.params[d].values[p[d]]);
            const bindings scope = c.scope(s, base);
            bool excluded = false, failed = false;
            for (const auto& e : s.constraints) {
                try {
                    excluded = excluded || !e.eval_bool(scope);
                } catch (const input_error&) {
                    failed = true;
                }
            }
            if (!excluded && failed) failing.insert(c.key(s));
            if (!excluded && !failed) {
                valid.push_back(p);
                valid_set.insert(p);
            }
            std::size_t d = p.size();
            while (d > 0) {
                --d;
                if (++p[d] < s.params[d].values.size()) break;
                p[d] = 0;
                if (d == 0) return;
            }
            if (p.empty()) return;
        }
    }

    std::vector<point> neighbours(const spec& s, const point& p, bool adjacent) const {
        std::vector<point> out;
        for (std::size_t d = 0; d < p.size(); ++d) {
            for (uint32_t v = 0; v < s.params[d].values.size(); ++v) {
                if (v == p[d] || (adjacent && v + 1 != p[d] && v != p[d] + 1)) continue;
                point q = p;
                q[d] = v;
                if (valid_set.count(q)) out.push_back(q);
            }
        }
        return out;
    }
};

// Small random spaces: integer parameters (0 included, so that divisions fail), a string and a
// boolean parameter, and constraints of the shapes real configs use.
struct random_space {
    std::string params;
    std::vector<std::string> constraints;

    explicit random_space(std::mt19937_64& rng) {
        auto below = [&](uint64_t n) { return rng() % n; };
        static const int pool[] = {0, 1, 2, 3, 4, 6, 8, 12, 16, 32};
        const int n_int = 2 + static_cast<int>(below(4));
        std::vector<std::string> names;
        params = "params: {";
        for (int i = 0; i < n_int; ++i) {
            const std::string name = fmt::format("P{}", i);
            names.push_back(name);
            std::set<int> values;
            const int count = 1 + static_cast<int>(below(6));
            while (static_cast<int>(values.size()) < count)
                values.insert(pool[below(std::size(pool))]);
            params += fmt::format("{}{}: [{}]", i ? ", " : "", name, fmt::join(values, ", "));
        }
        params += ", S: [x, y, z], F: [false, true]}";
        auto pick = [&] { return names[below(names.size())]; };
        auto num = [&] { return pool[below(std::size(pool))]; };
        const int n_constraints = static_cast<int>(below(5));
        for (int i = 0; i < n_constraints; ++i) {
            switch (below(11)) {
                case 0:
                    constraints.push_back(fmt::format("{} % ({} + 1) == 0", pick(), pick()));
                    break;
                case 1:
                    constraints.push_back(fmt::format("{} * {} <= {}", pick(), pick(), num() * 4));
                    break;
                case 2:
                    constraints.push_back(fmt::format("{} + {} != {}", pick(), pick(), pick()));
                    break;
                case 3:
                    constraints.push_back(
                        fmt::format("not ({} == {} and {} == {})", pick(), num(), pick(), num()));
                    break;
                case 4:
                    constraints.push_back(
                        fmt::format("{} <= {} * {} <= {}", num(), pick(), pick(), num() * 8));
                    break;
                case 5:
                    constraints.push_back(fmt::format("{} > 0 or {} < 3", pick(), pick()));
                    break;
                case 6:
                    constraints.push_back(fmt::format("N % {} == 0", pick()));
                    break;  // fails at 0
                case 7:
                    constraints.push_back(fmt::format("{} / {} >= 1", pick(), pick()));
                    break;
                case 8:
                    constraints.push_back(fmt::format("S == 'x' || {} < 4", pick()));
                    break;
                case 9:
                    constraints.push_back(
                        fmt::format("F ? {} >= {} : {} % 2 == 0", pick(), pick(), pick()));
                    break;
                default:
                    constraints.push_back(fmt::format("{} != 0 && N % {} == 0", pick(), pick()));
                    break;
            }
        }
    }
};

std::string error_key(const input_error& e) {
    const std::string m = e.message();
    const std::string head = "in configuration ";
    REQUIRE(m.rfind(head, 0) == 0);
    return m.substr(head.size(), m.find(": ") - head.size());
}

void check_against_brute_force(const spec& s, const brute_force& truth, const space_options& opt,
                               std::mt19937_64& rng) {
    const bindings base = s.problem_bindings();
    try {
        const search_space space(s, base, opt);
        // An error is raised only where no constraint excludes the configuration; such a
        // configuration may go unseen only by a lazy space, which never visits it.
        if (space.enumerated() || space.count()) CHECK(truth.failing.empty());
        if (!truth.failing.empty()) return;
        INFO("lazy: ", !space.enumerated());
        if (space.count()) CHECK(*space.count() == truth.valid.size());
        if (space.enumerated()) {
            for (uint64_t i = 0; i < truth.valid.size(); ++i) CHECK(space.at(i) == truth.valid[i]);
        } else if (!space.count()) {
            const double expected = static_cast<double>(truth.valid.size());
            // Deterministic draws; a loose band around the 95% interval it reports.
            CHECK(std::fabs(space.estimated_count() - expected) <=
                  std::max(2.0, 3 * space.estimate_rel_error() * expected));
        }
        // Membership of every point of the product, neighbours of some valid ones.
        point p(s.params.size(), 0);
        const std::size_t step = 1 + truth.valid.size() / 64;
        std::size_t seen = 0;
        for (;;) {
            CHECK(space.contains(p) == (truth.valid_set.count(p) > 0));
            if (truth.valid_set.count(p) && seen++ % step == 0) {
                CHECK(space.neighbours(p, true) == truth.neighbours(s, p, true));
                CHECK(space.neighbours(p, false) == truth.neighbours(s, p, false));
            }
            std::size_t d = p.size();
            bool done = true;
            while (d > 0) {
                --d;
                if (++p[d] < s.params[d].values.size()) {
                    done = false;
                    break;
                }
                p[d] = 0;
            }
            if (done) break;
        }
        for (int i = 0; i < 20; ++i) {
            const auto q = space.sample(rng);
            CHECK(q.has_value() == !truth.valid.empty());
            if (q) CHECK(truth.valid_set.count(*q) == 1);
        }
        // find() with the first parameter fixed to each value.
        for (uint32_t v = 0; v < s.params[0].values.size(); ++v) {
            std::vector<std::optional<uint32_t>> fixed(s.params.size());
            fixed[0] = v;
            const auto f = space.find(fixed);
            bool any = false;
            for (const auto& t : truth.valid) any = any || t[0] == v;
            CHECK(f.has_value() == any);
            if (f) CHECK(((*f)[0] == v && truth.valid_set.count(*f) == 1));
        }
    } catch (const input_error& e) {
        INFO(e.what());
        REQUIRE(!truth.failing.empty());
        CHECK(truth.failing.count(error_key(e)) == 1);
    }
}

}  // namespace

TEST_CASE("space engine: random small spaces agree with a brute force, enumerated and lazy") {
    std::mt19937_64 rng(11);
    const space_options deep{.seed = 5, .prefix_cap = 1};  // a search below a 1-prefix table
    const space_options lazy{
        .max_listed = 0, .seed = 7, .estimate_draws = 20000};  // nothing listed
    const space_options lazy_deep{
        .max_listed = 0, .seed = 9, .prefix_cap = 3, .estimate_draws = 20000};  // a tiny table
    int errors = 0, nonempty = 0;
    for (int round = 0; round < 300; ++round) {
        const random_space r(rng);
        INFO(r.params, "\n", fmt::format("{}", fmt::join(r.constraints, "\n")));
        const spec s = spec_test::load(plain_yaml(r.params, r.constraints));
        const brute_force truth(s, s.problem_bindings());
        errors += !truth.failing.empty();
        nonempty += !truth.valid.empty();
        check_against_brute_force(s, truth, {}, rng);
        check_against_brute_force(s, truth, deep, rng);
        check_against_brute_force(s, truth, lazy, rng);
        check_against_brute_force(s, truth, lazy_deep, rng);
    }
    CHECK(errors > 15);     // the error path is exercised
    CHECK(nonempty > 150);  // and so are spaces with configurations
}

TEST_CASE(
    "space engine: a constraint that fails is an error only where no other excludes the "
    "configuration") {
    // B = 0 fails N % B, but the guard excludes it: it needs A, which the engine may bind later.
    const spec guarded = spec_test::load(
        plain_yaml("params: {A: [1, 2, 3], B: [0, 2, 4]}", {"A > 0 && B > 0", "N % B == 0"}));
    for (uint64_t cap : {uint64_t{1}, uint64_t{1} << 18}) {
        const search_space space(guarded, guarded.problem_bindings(), {.prefix_cap = cap});
        CHECK(space.count() == 6u);
    }
    const spec unguarded = spec_test::load(
        plain_yaml("params: {A: [1, 2, 3], B: [0, 2, 4]}", {"A > 1", "N % B == 0"}));
    try {
        search_space space(unguarded, unguarded.problem_bindings());
        FAIL("no error");
    } catch (const input_error& e) {
        CHECK(e.message() == "in configuration A=2,B=0: modulo by zero in 'N % B'");
        CHECK(e.pos().line == 9);
    }
}

TEST_CASE("space engine: canonical order survives a reordered search") {
    // C and D carry the constraints, so the engine binds them first; at() still runs A, B, C, D
    // with D fastest.
    const spec s = spec_test::load(
        plain_yaml("params: {A: [1, 2], B: [x, y, z], C: [1, 2, 3, 4], D: [2, 4, 8]}",
                   {"C * D <= 16", "C % 2 == 0 or D == 2"}));
    const search_space space(s, s.problem_bindings());
    const brute_force truth(s, s.problem_bindings());
    REQUIRE(space.count() == truth.valid.size());
    for (uint64_t i = 0; i < truth.valid.size(); ++i) CHECK(space.at(i) == truth.valid[i]);
    CHECK(space.to_config(space.at(0)).key(s) == "A=1,B=x,C=1,D=2");
    CHECK(space.to_point(space.to_config(space.at(5))) == space.at(5));
    config bad = space.to_config(space.at(0));
    bad.values[2] = int64_t{7};
    CHECK_THROWS_WITH_AS(space.to_point(bad),
                         doctest::Contains("7 is not a value of parameter 'C'"), input_error);
    CHECK(space.coordinate(1, 2) == 2.0);  // strings: their index
    CHECK(space.coordinate(3, 2) == 8.0);  // numbers: themselves
}

TEST_CASE("space engine: canonical order of lists long enough for the radix sort") {
    // The constraints bind A and D first and leave B and C free, so the enumeration emits codes
    // out of order; the list sizes take std::sort and the radix sort with digits of two widths.
    const auto values = [](int n) {
        std::string out = "[";
        for (int i = 0; i < n; ++i) out += (i ? ", " : "") + std::to_string(i + 1);
        return out + "]";
    };
    for (const auto& [nb, nc, nd] :
         {std::tuple{2, 3, 8}, std::tuple{6, 7, 40}, std::tuple{16, 40, 90}}) {
        const spec s =
            spec_test::load(plain_yaml(fmt::format("params: {{A: {}, B: {}, C: {}, D: {}}}",
                                                   values(12), values(nb), values(nc), values(nd)),
                                       {"A * D <= 4 * " + std::to_string(nd), "(A + D) % 3 != 0"}));
        const search_space space(s, s.problem_bindings());
        const brute_force truth(s, s.problem_bindings());
        INFO(truth.valid.size());
        REQUIRE(space.count() == truth.valid.size());
        uint64_t wrong = 0;
        for (uint64_t i = 0; i < truth.valid.size(); ++i) wrong += !(space.at(i) == truth.valid[i]);
        CHECK(wrong == 0);
    }
}

TEST_CASE("space engine: samples are uniform over the valid configurations, listed or not") {
    const spec s = spec_test::load(
        plain_yaml("params: {A: [1, 2, 3, 4, 5, 6], B: [1, 2, 3, 4, 5, 6], C: [1, 2, 3, 4]}",
                   {"A * B <= 12", "(A + C) % 3 != 0"}));
    const brute_force truth(s, s.problem_bindings());
    const std::size_t k = truth.valid.size();
    REQUIRE(k > 20);
    for (const space_options& opt :
         {space_options{}, space_options{.max_listed = 0, .prefix_cap = 4}}) {
        const search_space space(s, s.problem_bindings(), opt);
        std::mt19937_64 rng(123);
        std::map<point, int> hits;
        const int draws = 200 * static_cast<int>(k);
        for (int i = 0; i < draws; ++i) ++hits[*space.sample(rng)];
        CHECK(hits.size() == k);
        double chi2 = 0;
        for (const auto& p : truth.valid) {
            const double diff = hits[p] - 200.0;
            chi2 += diff * diff / 200.0;
        }
        // k - 1 degrees of freedom: mean k - 1, sd sqrt(2 (k - 1)); six sd is far out.
        INFO("chi2 ", chi2, " over ", k, " cells");
        CHECK(chi2 < (k - 1) + 6 * std::sqrt(2.0 * (k - 1)));
    }
}

TEST_CASE("space engine: a space too large to list estimates its count and finds configurations") {
    // 12^7 = 3.6e7 points; the constraints keep about a tenth. Listing is forbidden here.
    const std::string values = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]";
    const spec s = spec_test::load(plain_yaml(
        fmt::format("params: {{A: {0}, B: {0}, C: {0}, D: {0}, E: {0}, F: {0}, G: {0}}}", values),
        {"A * B <= 36", "C + D != E", "(F + G) % 3 == 0", "A <= G"}));
    const search_space space(s, s.problem_bindings(), {.max_listed = 1000, .prefix_cap = 1000});
    CHECK(!space.enumerated());
    CHECK(!space.count());
    // The exact figure: (A, B, F, G) and (C, D, E) are independent.
    uint64_t exact = 0;
    for (int a = 1; a <= 12; ++a)
        for (int b = 1; b <= 12; ++b)
            for (int f = 1; f <= 12; ++f)
                for (int g = 1; g <= 12; ++g)
                    if (a * b <= 36 && (f + g) % 3 == 0 && a <= g) ++exact;
    uint64_t cde = 0;
    for (int c = 1; c <= 12; ++c)
        for (int d = 1; d <= 12; ++d)
            for (int e = 1; e <= 12; ++e) cde += c + d != e;
    exact *= cde;
    const double rel = std::fabs(space.estimated_count() - static_cast<double>(exact)) /
                       static_cast<double>(exact);
    INFO("estimate ", space.estimated_count(), " exact ", exact, " ±", space.estimate_rel_error());
    CHECK(space.estimate_rel_error() > 0);
    CHECK(space.estimate_rel_error() < 0.1);
    CHECK(rel < 3 * space.estimate_rel_error());
    std::mt19937_64 rng(5);
    for (int i = 0; i < 100; ++i) {
        const auto p = space.sample(rng);
        REQUIRE(p);
        CHECK(space.contains(*p));
        for (const auto& q : space.neighbours(*p, false)) CHECK(space.contains(q));
    }
    CHECK_THROWS_AS(space.at(0), std::logic_error);
    space.require_nonempty();
}

TEST_CASE("space engine: parameters without constraints multiply the count") {
    const spec s = spec_test::load(plain_yaml(
        "params: {A: [1, 2, 3], X: [a, b], B: [1, 2, 4], Y: [1, 2, 3, 4, 5]}", {"A < B"}));
    const search_space space(s, s.problem_bindings());
    CHECK(space.count() == 4u * 2 * 5);  // A < B: (1, 2), (1, 4), (2, 4), (3, 4)
    const brute_force truth(s, s.problem_bindings());
    CHECK(space.count() == truth.valid.size());
    for (uint64_t i = 0; i < truth.valid.size(); ++i) CHECK(space.at(i) == truth.valid[i]);
}
