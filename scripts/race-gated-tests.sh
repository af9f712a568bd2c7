#!/usr/bin/env bash
# race-gated-tests.sh DIR... prints a go test -run pattern, ^(TestA|TestB)$,
# naming the tests in DIRs' _test.go files that do less under the race
# detector: those whose body reads raceEnabled (the constant a package's
# race_on_test.go and race_off_test.go declare), directly or through a
# helper function of the package's tests that reads it (one call deep).
# make test-norace runs only these without the race detector: every other
# test already ran, whole, in make test-race.
set -euo pipefail
files=()
for d in "$@"; do
	for f in "$d"/*_test.go; do
		[ -e "$f" ] && files+=("$f")
	done
done
# A package gates its tests on raceEnabled and nothing else, so that this
# finds them all.
for d in "$@"; do
	if grep -l '^//go:build race' "$d"/*_test.go | xargs grep -L 'const raceEnabled = true' | grep .; then
		echo "race-gated-tests.sh: the //go:build race file above must declare const raceEnabled = true" >&2
		exit 1
	fi
done
[ ${#files[@]} -gt 0 ] || { echo "race-gated-tests.sh: no test files in $*" >&2; exit 1; }
# A function runs from its "func" line to the next top-level declaration
# or the end of its file; a method's name is the identifier after its
# receiver.
funcs='
FNR == 1 || /^(var|type|const|import) / { name = "" }
/^func / {
	name = $0
	sub(/^func (\([^)]*\) )?/, "", name)
	sub(/[^A-Za-z0-9_].*/, "", name)
	next
}
'
helpers=$(awk "$funcs"'
name != "" && name !~ /^Test/ && /raceEnabled/ { print name }
' "${files[@]}" | sort -u | paste -sd'|')
tests=$(awk -v helpers="$helpers" "$funcs"'
name ~ /^Test/ && (/raceEnabled/ || (helpers != "" && $0 ~ ("(^|[^A-Za-z0-9_])(" helpers ")\\("))) { print name }
' "${files[@]}" | sort -u | paste -sd'|')
[ -n "$tests" ] || { echo "race-gated-tests.sh: no test in $* reads raceEnabled" >&2; exit 1; }
echo "^($tests)\$"
