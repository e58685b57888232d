// A timeline of a command for finding where its wall time goes: with HONE_TRACE=1 each mark
// prints one line on stderr, "hone-trace <unix seconds> <since this process began> <what>".
// Unix seconds let the lines of several processes (workers, ranks, a bench's harness) be merged.
#pragma once
#include <string_view>

namespace hone {

bool trace_on();
void trace_mark(std::string_view what);

}  // namespace hone
