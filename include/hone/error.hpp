// Errors that reach the user. Bad input is an input_error carrying a source position;
// the CLI prints it as "file:line:column: message" and exits with code 2.
#pragma once
#include <stdexcept>
#include <string>

namespace hone {

// 1-based line and column; 0 means "unknown" (the whole file, or a command-line value).
struct source_pos {
    std::string file;
    int line = 0;
    int column = 0;
    std::string str() const;  // "file:line:column", "file" or "<command line>"
};

class input_error : public std::runtime_error {
  public:
    input_error(source_pos pos, std::string message);
    const source_pos& pos() const { return pos_; }
    const std::string& message() const { return message_; }

  private:
    source_pos pos_;
    std::string message_;
};

// The environment cannot do what was asked (no driver, no GPU, I/O failure...). Exit code 3.
class env_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

}  // namespace hone
