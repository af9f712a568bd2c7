#!/usr/bin/env bash
# render-report.sh RUN_DIR [OUT.png] [WIDTH]: renders RUN_DIR/report.html in
# headless Chromium (Debian: apt-get install chromium) to a PNG of the whole
# page, to check the report as a reader sees it: table widths, plots,
# headings. It prints the PNG's path and the page's size; a page wider than
# the window (a reader would scroll sideways) is an error.
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
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chrome() {
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$tmp/profile" "$@" 2>/dev/null
}
# --screenshot captures the window, not the page: measure the page first (a
# copy of it that writes its size into the DOM once laid out), then open a
# window as tall as the page.
sed 's#</body>#<script>addEventListener("load",()=>{const d=document.documentElement,p=document.createElement("pre");p.id="sl-size";p.textContent=d.scrollWidth+" "+d.scrollHeight;document.body.appendChild(p)})</script></body>#' \
  "$page" > "$tmp/report.html"
size=$(chrome --window-size="$width,900" --dump-dom "file://$tmp/report.html" | sed -n 's#.*<pre id="sl-size">\([0-9]*\) \([0-9]*\)</pre>.*#\1 \2#p')
if [ -z "$size" ]; then
  echo "render-report.sh: chromium did not lay out $page" >&2
  exit 1
fi
read -r pagew pageh <<< "$size"
chrome --window-size="$width,$pageh" --screenshot="$out" "file://$page" >/dev/null
echo "$out: ${pagew} x ${pageh} px at a window ${width} px wide"
if [ "$pagew" -gt "$width" ]; then
  echo "render-report.sh: the page is ${pagew} px wide, more than the ${width} px window" >&2
  exit 1
fi
