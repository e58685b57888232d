#!/usr/bin/env bash
# Renders `hone report` pages in a real browser (headless Chromium, Debian package `chromium`)
# and writes a PNG of each whole page, for a person to look at: axes labelled with units,
# legible text, nothing overlapping. Not part of ./dev test (Chromium is large):
#   tests/formats/report_screenshot.sh [OUT_DIR]        (default: build/report-screens)
# Reports: the small cache in tests/formats, and when ../shared/spaces is there, pnpoly alone and
# the two convolution spaces side by side.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
hone=$root/build/hone
out=${1:-$root/build/report-screens}
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "report_screenshot: no chromium; apt-get install chromium" >&2
  exit 77
fi
mkdir -p "$out"
rm -f "$out"/*.db "$out"/*.html "$out"/*.png
"$hone" import "$root/tests/formats/sample_cache.json" -o "$out/sample.db" > /dev/null
"$hone" report "$out/sample.db" -o "$out/sample.html"
spaces=""
for d in "$root/../shared/spaces" "$root/../../shared/spaces"; do [ -d "$d" ] && spaces=$d && break; done
if [ -n "$spaces" ]; then
  for name in pnpoly_RTX_2080_Ti convolution_A4000 convolution_W6600; do
    "$hone" import "$spaces/$name.json.gz" -o "$out/$name.db" > /dev/null
  done
  "$hone" report "$out/pnpoly_RTX_2080_Ti.db" -o "$out/pnpoly.html"
  "$hone" report "$out/convolution_A4000.db" "$out/convolution_W6600.db" -o "$out/convolution.html"
fi
flags=(--headless --disable-gpu --hide-scrollbars --window-size=1400,9000)
[ "$(id -u)" -eq 0 ] && flags+=(--no-sandbox)
for page in "$out"/*.html; do
  png=${page%.html}.png
  timeout 300 "$browser" "${flags[@]}" --screenshot="$png" "file://$page" > /dev/null 2>&1
  [ -s "$png" ] || { echo "report_screenshot: no screenshot of $page" >&2; exit 1; }
  echo "$png"
done
