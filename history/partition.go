package history

import (
	"fmt"
	"strconv"
	"strings"
)

// hiveEscaped lists the bytes Hive escapes in a partition value
// (FileUtils.escapePathName, which Spark's ExternalCatalogUtils copies),
// with the ones it escapes on Windows only (' ', '<', '>', '|'), so that
// a dataset is readable wherever it is copied.
func hiveEscaped(c byte) bool {
	return c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^ <>|", c) >= 0
}

// EscapeValue is a partition value as Hive writes it into a directory
// name: each byte Hive escapes becomes %XX (upper-case hex).
func EscapeValue(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if c := v[i]; hiveEscaped(c) {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// UnescapeValue undoes EscapeValue (and any %XX, as Hive's reader does).
func UnescapeValue(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("partition value %q: %% at byte %d is not followed by two hex digits", s, i)
		}
		c, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("partition value %q: %% at byte %d is not followed by two hex digits", s, i)
		}
		b.WriteByte(byte(c))
		i += 2
	}
	return b.String(), nil
}

// partitionDir is the directory of a preset and revision, relative to
// the dataset's root.
func partitionDir(preset, revision string) string {
	return "preset=" + EscapeValue(preset) + "/revision=" + EscapeValue(revision)
}
