#!/usr/bin/env bash
# Records the heat stencil's hotspot-shaped space (bench/configs/heat_space.yaml, 28,785
# configurations) on this machine's GPU, exhaustively, into DB: a brute-forced space of a kernel
# that no strategy of hone's was designed on, for `hone replay` and bench/strategies.py beside
# the FAIR hub's spaces (bench/strategies-protocol.md).
#   bench/heat_space.sh DB [SECONDS [HONE TUNE ARGS...]]   (e.g. --set WIDTH=2048 --set HEIGHT=2048)
# Stops handing out configurations after SECONDS (default 480, so that a 10-minute call returns
# the database); run it again on the same DB to go on where it stopped (a resumed run skips what
# is stored). Events time the launches (50 us to 5 ms at 4096 x 4096): the range profiler's setup
# a configuration would cost more than the space's measurement.
set -euo pipefail
cd "$(dirname "$0")/.."
db=${1:?usage: bench/heat_space.sh DB [SECONDS]}
limit=${2:-480}
shift $(($# < 2 ? $# : 2))
hone=${HONE:-hone}
"$hone" tune bench/configs/heat_space.yaml -o "$db" --timer events --time-limit "$limit" "$@"
"$hone" show "$db" --top 5
