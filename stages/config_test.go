package stages

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// mustHash is cfg.Hash for tests whose configuration is valid.
func mustHash(t *testing.T, cfg *Config) string {
	t.Helper()
	h, err := cfg.Hash()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestHashNonFinite: a configuration JSON cannot encode gets an error from
// Hash, not a panic (issue 16: `.inf` in a float key crashed config show).
func TestHashNonFinite(t *testing.T) {
	cfg := quickConfig()
	cfg.Datasets.IntervalS = math.Inf(1)
	h, err := cfg.Hash()
	if err == nil || h != "" {
		t.Fatalf("Hash of interval_s +Inf = %q, %v; want an error", h, err)
	}
	if !strings.Contains(err.Error(), "config hash") {
		t.Errorf("error %q does not say it is the config hash", err)
	}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "datasets.interval_s") {
		t.Errorf("Validate of interval_s +Inf: %v, want an error naming datasets.interval_s", err)
	}
}

// TestHashWithoutHistory: where a run is added to the history changes no
// output, so neither the config hash nor the recorded configuration of a
// run without it (history.dir "" is omitted: runs hash as before the key).
func TestHashWithoutHistory(t *testing.T) {
	cfg := quickConfig()
	h := mustHash(t, cfg)
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"history"`) {
		t.Errorf("history off, yet recorded: %s", b)
	}
	cfg.History.Dir = "runs/history"
	if got := mustHash(t, cfg); got != h {
		t.Errorf("history.dir changed the config hash: %s, was %s", got, h)
	}
}
