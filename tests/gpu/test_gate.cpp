// The stream gate that holds a round of samples until all of it is queued: on the GPUs hone
// measures on it must hold (the timing code falls back to spins where the driver refuses it,
// which this test would then report) and release.
#include <doctest/doctest.h>

#include "driver/resources.hpp"

using namespace hone;

TEST_CASE("a stream gate holds queued work until released" * doctest::test_suite("in_process")) {
    cu::primary_context ctx(0);
    ctx.make_current();
    cu::stream s;
    cu::stream_gate gate;
    cu::event e;
    for (int round = 0; round < 3; ++round) {  // the gate opens and shuts again
        REQUIRE(gate.hold(s));
        e.record(s);
        CHECK(cu::driver().cuStreamQuery(s.get()) == CUDA_ERROR_NOT_READY);
        gate.release();
        s.synchronize();
        CHECK(cu::driver().cuStreamQuery(s.get()) == CUDA_SUCCESS);
    }
    gate.release();  // with nothing held: harmless
    s.synchronize();
}
