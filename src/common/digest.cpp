#include "common/digest.hpp"

#include <cstdint>
#include <cstdio>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace hone {

struct digest::state {
    XXH3_state_t st;
};

digest::digest() : s_(std::make_unique<state>()) {
    XXH3_128bits_reset(&s_->st);
}
digest::~digest() = default;

digest& digest::add(std::string_view part) {
    const uint64_t n = part.size();
    XXH3_128bits_update(&s_->st, &n, sizeof n);
    XXH3_128bits_update(&s_->st, part.data(), part.size());
    return *this;
}

std::string digest::hex() const {
    const XXH128_hash_t h = XXH3_128bits_digest(&s_->st);
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                  static_cast<unsigned long long>(h.low64));
    return buf;
}

std::string digest_hex(std::string_view data) {
    return digest().add(data).hex();
}

}  // namespace hone
