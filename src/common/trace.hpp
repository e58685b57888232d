// A timeline of a command for finding where its wall time goes: with HONE_TRACE=1 each mark
// prints one line on stderr, "hone-trace <unix seconds> <since this process began> <what>".
// Unix seconds let the lines of several processes (workers, ranks, a bench's harness) be merged.
#pragma once
#include <string>
#include <string_view>

namespace hone {

bool trace_on();
// With the calling thread's label (trace_label) before `what`, if it has one.
void trace_mark(std::string_view what);

// While one lives, the marks of its thread begin with "LABEL: " (the run of one size, when the
// runs of several sizes share the timeline). Nested labels restore the outer one.
class trace_label {
  public:
    explicit trace_label(std::string label);
    ~trace_label();
    trace_label(const trace_label&) = delete;
    trace_label& operator=(const trace_label&) = delete;
    // The calling thread's label ("" without one), for threads that work for it.
    static const std::string& current();

  private:
    std::string outer_;
};

}  // namespace hone
