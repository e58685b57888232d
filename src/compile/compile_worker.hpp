// The compile worker's side of the socket (docs/worker-protocol.md, "Compile worker").
#pragma once

namespace hone {

// Serves hello and compile requests on fd until the supervisor closes it.
// Test hooks: a request whose source contains $HONE_TEST_CRASH_MARKER raises SIGSEGV, one that
// contains $HONE_TEST_HANG_MARKER never answers (both unset: no effect).
void serve_compiles(int fd);

}  // namespace hone
