// CUDA driver errors, classified. The driver itself is loaded with dlopen at run time (see
// src/driver/cuda_api.hpp); nothing here needs cuda.h.
#pragma once
#include <string>

#include "hone/error.hpp"

namespace hone {

// A sticky error leaves the context unusable: every later call fails the same way, so the
// session (process) must end. Everything else (701 out of resources, invalid value, OOM, ...)
// costs only the call that failed.
bool is_sticky_error(int code);

// A failed driver call. An env_error: if nothing handles it, the environment is at fault.
class cuda_error : public env_error {
  public:
    // message: "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"
    cuda_error(int code, std::string name, const std::string& message);
    int code() const { return code_; }
    const std::string& name() const { return name_; }  // "CUDA_ERROR_OUT_OF_MEMORY"
    bool sticky() const { return is_sticky_error(code_); }

  private:
    int code_;
    std::string name_;
};

}  // namespace hone
