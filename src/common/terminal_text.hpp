// Text read from files (imported kernel and device names, parameter values, messages) shown on
// a terminal. A name may hold control characters: an escape sequence would recolour the
// terminal, move the cursor, rewrite the window title or hide what follows, and a carriage
// return would overwrite the line. They are shown as visible escapes instead.
#pragma once
#include <string>
#include <string_view>

namespace hone {

// Every control character (C0 but tab and, with keep_newlines, line feed; DEL; the C1 range
// U+0080-U+009F) becomes \xHH (\u00HH for C1), and every byte that is not part of valid UTF-8
// becomes \xHH, so that no terminal of any encoding reads a control sequence in it. Printable
// text, UTF-8 included, is unchanged.
std::string terminal_text(std::string_view text, bool keep_newlines = true);

}  // namespace hone
