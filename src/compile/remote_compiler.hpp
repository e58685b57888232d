// A compiler outside this process's pool: another MPI rank's compile pool (dist/). A
// compile_pool hands it requests when its own workers are all busy, so that every rank's cores
// compile for the run and not rank 0's alone.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "compile/compile.hpp"

namespace hone {

class remote_compiler {
  public:
    virtual ~remote_compiler() = default;
    virtual std::size_t capacity() const = 0;  // requests it compiles at once
    virtual std::string name() const = 0;      // for messages: "rank 2 (host)"
    virtual void send(uint64_t id, const compile_request& req, double timeout_s) = 0;
    // A finished compile, waiting up to wait_s; nullopt when none came. Throws when the
    // compiler is gone (the pool then compiles what it held itself).
    virtual std::optional<std::pair<uint64_t, compile_result>> receive(double wait_s) = 0;
};

}  // namespace hone
