#include "common/value_key.hpp"

#include <type_traits>

namespace hone {

std::string value_key(const value& v) {
    std::string out(1, static_cast<char>('0' + v.index()));
    std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>) {
                out += x;
            } else if constexpr (std::is_same_v<T, double>) {
                const double d = x == 0 ? 0.0 : x;  // -0.0 == 0.0
                out.append(reinterpret_cast<const char*>(&d), sizeof d);
            } else {
                out.append(reinterpret_cast<const char*>(&x), sizeof x);
            }
        },
        v);
    return out;
}

}  // namespace hone
