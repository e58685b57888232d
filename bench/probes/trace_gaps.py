#!/usr/bin/env python3
"""Where a command's wall time goes, from its HONE_TRACE=1 lines (src/common/trace.hpp).

  trace_gaps.py ERR_FILE START_UNIX_S WALL_S

Prints each mark at its offset from the command's start as the harness saw it (START_UNIX_S),
the gap since the mark before, and the exit (START + WALL) last; then the time outside every
run (before the first run began, between runs on no GPU, after the last ended)."""
import sys

err, start, wall = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
marks = []
for line in open(err, errors="replace"):
    if line.startswith("hone-trace "):
        _, unix_s, _, what = line.rstrip("\n").split(" ", 3)
        marks.append((float(unix_s) - start, what))
marks.sort()
marks.append((wall, "exit (harness)"))
prev = 0.0
for t, what in marks:
    print(f"  {t:7.3f} s  +{(t - prev) * 1000:6.1f} ms  {what}")
    prev = t
begins = [t for t, w in marks if w.endswith("tune begins")]
ends = [t for t, w in marks if w.endswith("tune returned")]
if begins and ends:
    # Intervals covered by at least one run: the rest is the command's own.
    events = sorted([(t, 1) for t in begins] + [(t, -1) for t in ends])
    covered, depth, since = 0.0, 0, 0.0
    for t, d in events:
        if depth == 0 and d == 1:
            since = t
        depth += d
        if depth == 0:
            covered += t - since
    print(f"  runs cover {covered:.3f} s of {wall:.3f} s; before the first "
          f"{min(begins):.3f} s, after the last {wall - max(ends):.3f} s; "
          f"sum of run walls {sum(ends) - sum(begins):.3f} s")
