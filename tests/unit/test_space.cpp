// The search space: product order, constraints, keys, reference configurations.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <random>

#include "space/space.hpp"
#include "spec_test_util.hpp"

using namespace hone;
using spec_test::load;
using spec_test::yaml;

namespace {

spec three_by_two(const std::string& constraints) {
    return load(
        yaml({{"kernel", "kernel: {source: ../kernels_src/vector_add.cu, name: vector_add}"},
              {"params", "params: {A: [1, 2, 3], B: [x, \"y,z\"]}"},
              {"launch", "launch: {grid: [A], block: 32}"}},
             constraints));
}

std::vector<std::string> keys(const spec& s, const search_space& space) {
    std::vector<std::string> out;
    for (uint64_t i = 0; i < *space.count(); ++i)
        out.push_back(space.to_config(space.at(i)).key(s));
    return out;
}

}  // namespace

TEST_CASE(
    "the product runs in parameter order, the last parameter fastest, filtered by constraints") {
    const spec s = three_by_two("constraints: [\"A != 2 || B == 'x'\", \"A <= sm_count\"]\n");
    const search_space space(s, {{"sm_count", int64_t{3}}});
    CHECK(space.total() == 6);
    CHECK(keys(s, space) == std::vector<std::string>{"A=1,B=x", "A=1,B=\"y,z\"", "A=2,B=x",
                                                     "A=3,B=x", "A=3,B=\"y,z\""});
    const search_space tighter(s, {{"sm_count", int64_t{1}}});
    CHECK(tighter.total() == 6);
    CHECK(tighter.count() == 2u);
}

TEST_CASE("a configuration's scope holds the base and its parameters") {
    const spec s = three_by_two("");
    const search_space space(s, s.problem_bindings());
    REQUIRE(space.count() == 6u);
    const bindings scope = space.to_config(space.at(3)).scope(s, space.base());
    CHECK(scope.at("N") == value(int64_t{1024}));
    CHECK(scope.at("A") == value(int64_t{2}));
    CHECK(scope.at("B") == value(std::string("y,z")));
}

TEST_CASE("an empty space is an error at the constraints") {
    const spec s = three_by_two("constraints:\n  - A > sm_count\n");
    const search_space space(s, {{"sm_count", int64_t{5}}});
    CHECK(space.count() == 0u);
    try {
        space.require_nonempty();
        FAIL("no error");
    } catch (const input_error& e) {
        CHECK(e.message() == "0 of 6 configurations satisfy the constraints");
        CHECK(e.pos().line == 8);
        CHECK(e.pos().column == 5);
    }
}

TEST_CASE("a constraint that fails to evaluate names the configuration") {
    const spec s = three_by_two("constraints: [\"N / (A - 2) > 0\"]\n");
    try {
        search_space space(s, s.problem_bindings());
        FAIL("no error");
    } catch (const input_error& e) {
        CHECK(e.message() == "in configuration A=2,B=x: division by zero in 'N / (A - 2)'");
        CHECK(e.pos().line == 7);
        CHECK(e.pos().column == 16);
    }
}

TEST_CASE("vector_add.yaml: 576 configurations, cut by the device's block sm_count") {
    const spec s = load_spec(HONE_SOURCE_DIR "/configs/vector_add.yaml");
    bindings base = s.problem_bindings();
    base["max_threads_per_block"] = int64_t{1024};
    CHECK(search_space(s, base).count() == 576u);
    base["max_threads_per_block"] = int64_t{512};
    const search_space small(s, base);
    CHECK(small.total() == 576);
    CHECK(small.count() == 480u);
    CHECK(small.to_config(small.at(0)).key(s) ==
          "BLOCK=32,STRIDED=false,IDX_T=int,VEC=1,MEM=device,MAXREG=0,FAST=false");
    CHECK(small.to_config(small.at(479)).key(s) ==
          "BLOCK=512,STRIDED=true,IDX_T=long long,VEC=4,MEM=managed,MAXREG=32,FAST=true");
}

TEST_CASE("no parameters: one configuration") {
    const spec s =
        load(yaml({{"kernel", "kernel: {source: ../kernels_src/vector_add.cu, name: vector_add}"},
                   {"params", ""},
                   {"launch", "launch: {grid: [1], block: 32}"}}));
    const search_space space(s, {});
    CHECK(space.total() == 1);
    REQUIRE(space.count() == 1u);
    CHECK(space.to_config(space.at(0)).key(s).empty());
}

TEST_CASE("a product of 10^8 is not refused: it is counted, and sampled instead of listed") {
    std::string params = "params: {VEC: [1]";
    for (int i = 0; i < 8; ++i) params += fmt::format(", P{}: {{range: [1, 10]}}", i);
    const spec s = load(yaml({{"params", params + ", BLOCK: [32]}"}}));
    const search_space space(s, {});
    CHECK(space.total() == 100000000u);
    CHECK(space.count() == 100000000u);  // no constraint: the count is the product
    CHECK(!space.enumerated());
    CHECK(space.store_bytes() == 0);
    std::mt19937_64 rng(3);
    const auto p = space.sample(rng);
    REQUIRE(p);
    CHECK(space.contains(*p));
    space.require_nonempty();
}

TEST_CASE("make_config fills missing parameters with their first value") {
    const spec s = three_by_two("");
    const search_space space(s, {});
    const source_pos pos{"x.yaml", 9, 3};
    CHECK(space.make_config({{"B", std::string("y,z")}}, pos).values ==
          std::vector<value>{int64_t{1}, std::string("y,z")});
    CHECK(space.make_config({}, pos).values == std::vector<value>{int64_t{1}, std::string("x")});
    CHECK_THROWS_WITH_AS(space.make_config({{"C", int64_t{1}}}, pos),
                         "x.yaml:9:3: no parameter named 'C'", input_error);
    CHECK_THROWS_WITH_AS(space.make_config({{"A", int64_t{7}}}, pos),
                         "x.yaml:9:3: 7 is not a value of parameter 'A'", input_error);
}
