#!/usr/bin/env bash
# build.sh OUT [GO BUILD FLAGS...]: go build ./cmd/schedlab into OUT, saying
# what it does: a first build compiles some 600 packages for minutes, and
# silence would look like a hang. Every 10 s it prints how many packages
# are compiled of how many the binary has; compiler errors and module
# downloads pass through; the exit status is go build's. A build with
# nothing to compile prints only its last line.
set -uo pipefail
out=${1:?usage: build.sh OUT [GO BUILD FLAGS...]}
shift
go=${GO:-go}
total=$("$go" list "$@" -deps ./cmd/schedlab 2>/dev/null | grep -c .)
status=$(mktemp)
trap 'rm -f "$status"' EXIT
start=$SECONDS
last=$SECONDS
n=0
while IFS= read -r line; do
	if [[ $line =~ ^[A-Za-z0-9_./~-]+$ ]]; then # a package, as go build -v names it
		n=$((n + 1))
		if ((SECONDS - last >= 10)); then
			echo "  building: $n of about $total packages compiled, $((SECONDS - start)) s so far"
			last=$SECONDS
		fi
	else
		echo "$line" >&2
	fi
done < <("$go" build -v "$@" -o "$out" ./cmd/schedlab 2>&1; echo $? >"$status")
rc=$(cat "$status")
if [ "$rc" = 0 ]; then
	echo "  built $out: $n packages compiled in $((SECONDS - start)) s"
else
	echo "build.sh: go build failed (exit $rc)" >&2
fi
exit "$rc"
