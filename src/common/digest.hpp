// Content digests (XXH3-128, hex): cache keys, source hashes, run identities.
// Not cryptographic: keys are built from the user's own inputs, not from adversaries.
#pragma once
#include <memory>
#include <string>
#include <string_view>

namespace hone {

class digest {
  public:
    digest();
    ~digest();
    // Each part is length-prefixed, so ("ab","c") and ("a","bc") differ.
    digest& add(std::string_view part);
    std::string hex() const;  // 32 hex characters

  private:
    struct state;
    std::unique_ptr<state> s_;
};

std::string digest_hex(std::string_view data);

}  // namespace hone
