#include "measure/helpers.hpp"

namespace hone {
namespace {
#include "helpers_fatbin.inc"
}  // namespace

const void* helper_kernels_image() {
    return helpers_fatbin;
}

}  // namespace hone
