// Where the CUDA toolkit's headers are, for the -I folders NVRTC is given after a kernel's own.
#pragma once
#include <string>
#include <vector>

namespace hone {

// Folders that may hold the toolkit's headers, in the order they are tried: $HONE_CUDA_INCLUDE,
// $CUDA_HOME/include, $CUDA_PATH/include, the include/ beside NVRTC's library, /usr/local/cuda,
// /usr/include.
std::vector<std::string> toolkit_include_candidates();
// The first candidate that holds cuda_fp16.h, and its cccl/ folder where it has one; empty where
// none does.
std::vector<std::string> find_toolkit_includes(const std::vector<std::string>& candidates);
// find_toolkit_includes(toolkit_include_candidates()), looked up once a process.
const std::vector<std::string>& toolkit_includes();

}  // namespace hone
