#!/usr/bin/env bash
# render-report.sh RUN_DIR [OUT.png] [WIDTH]: renders RUN_DIR/report.html in
# headless Chromium (Debian: apt-get install chromium) to a full-page PNG,
# to check the report as a reader sees it: table widths, plots, headings.
set -euo pipefail
run=${1:?usage: render-report.sh RUN_DIR [OUT.png] [WIDTH]}
out=${2:-$run/report.png}
width=${3:-1280}
page=$(realpath "$run/report.html")
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "render-report.sh: no chromium on PATH (Debian: apt-get install chromium)" >&2
  exit 1
fi
# A tall window: --screenshot captures the window, not the whole page.
height=$(( $(wc -c < "$page") / 40 + 2000 ))
height=$(( height > 16000 ? 16000 : height ))
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --window-size="$width,$height" --screenshot="$out" "file://$page" 2>/dev/null
echo "$out"
