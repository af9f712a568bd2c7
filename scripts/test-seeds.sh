#!/usr/bin/env bash
# test-seeds.sh BIN FIRST LAST [PRESET] [JOBS]: runs `BIN run --preset PRESET
# --seed N` for every seed N from FIRST to LAST, JOBS runs at once (default:
# the number of CPUs), each into a run directory of its own that is removed
# when the run succeeds. Prints each failed seed with the end of its log (the
# log and run directory stay, under the directory printed) and exits 1 if
# any failed. `make test-seeds` runs the quick preset for seeds 1-100.
set -euo pipefail
bin=${1:?usage: test-seeds.sh BIN FIRST LAST [PRESET] [JOBS]}
first=${2:?usage: test-seeds.sh BIN FIRST LAST [PRESET] [JOBS]}
last=${3:?usage: test-seeds.sh BIN FIRST LAST [PRESET] [JOBS]}
preset=${4:-quick}
jobs=${5:-$(nproc)}
bin=$(realpath "$bin")
dir=$(mktemp -d "${TMPDIR:-/tmp}/schedlab-seeds-XXXXXX")
export bin preset dir
start=$(date +%s)
# One run per seed; its own directory, so that the runs share no cache.
# GOMAXPROCS=1 per run: JOBS runs at once already fill the CPUs.
seq "$first" "$last" | xargs -P "$jobs" -I{} sh -c '
	if GOMAXPROCS=1 "$bin" run --preset "$preset" --seed {} --out "$dir/{}" >"$dir/{}.log" 2>&1; then
		rm -rf "$dir/{}" "$dir/{}.log"
	fi' || true
failed=$(cd "$dir" && ls -- *.log 2>/dev/null | sed 's/\.log$//' | sort -n || true)
n=$((last - first + 1))
echo "test-seeds: $preset, seeds $first-$last, $jobs at once: $(( $(date +%s) - start )) s"
if [ -n "$failed" ]; then
	for s in $failed; do
		echo "== seed $s failed ($dir/$s.log):"
		tail -n 3 "$dir/$s.log"
	done
	echo "test-seeds: $(echo "$failed" | wc -w) of $n seeds failed: $(echo $failed)"
	exit 1
fi
rm -rf "$dir"
echo "test-seeds: all $n seeds passed"
