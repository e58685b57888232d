#include "hone/error.hpp"

#include <fmt/format.h>

namespace hone {

std::string source_pos::str() const {
    if (file.empty()) return "<command line>";
    if (line <= 0) return file;
    if (column <= 0) return fmt::format("{}:{}", file, line);
    return fmt::format("{}:{}:{}", file, line, column);
}

input_error::input_error(source_pos pos, std::string message)
    : std::runtime_error(fmt::format("{}: {}", pos.str(), message)),
      pos_(std::move(pos)),
      message_(std::move(message)) {}

}  // namespace hone
