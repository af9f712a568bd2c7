package external

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/schedlab/schedlab/schedulers"
	"github.com/schedlab/schedlab/sim"
)

// Prefix starts the scheduler name of every declared policy.
const Prefix = "external:"

// Spec is one external policy as a run's configuration declares it (the
// list `external`): an experiment then names it external:NAME among its
// schedulers.
type Spec struct {
	// Name: lower-case letters, digits and hyphens.
	Name string `mapstructure:"name" yaml:"name" json:"name"`
	// Command starts the policy (Config.Command).
	Command string `mapstructure:"command" yaml:"command" json:"command"`
	// Dir is its working directory ("": schedlab's).
	Dir string `mapstructure:"dir" yaml:"dir" json:"dir,omitempty"`
	// TimeoutS bounds each decision, seconds (0: 10).
	TimeoutS float64 `mapstructure:"timeout_s" yaml:"timeout_s" json:"timeout_s,omitempty"`
	// StartTimeoutS bounds the start and handshake, seconds (0: 60).
	StartTimeoutS float64 `mapstructure:"start_timeout_s" yaml:"start_timeout_s" json:"start_timeout_s,omitempty"`
	// Oracle sends true durations: the row reads the future and is
	// labelled "(oracle)".
	Oracle bool `mapstructure:"oracle" yaml:"oracle" json:"oracle,omitempty"`
	// Display labels the row in tables ("": the name).
	Display string `mapstructure:"display" yaml:"display" json:"display,omitempty"`
	// OnError is what a failure of the policy stops: "run" (or "", the
	// default) the whole run, with the error; "row" its row only, whose
	// cells are then empty and the error in the table's notes.
	OnError string `mapstructure:"on_error" yaml:"on_error" json:"on_error,omitempty"`
}

// What a failing policy stops (Spec.OnError).
const (
	OnErrorRun = "run"
	OnErrorRow = "row"
)

// Validate names the bad field under key (external[2]).
func (s Spec) Validate(key string) error {
	c := s.config(0)
	if err := c.Validate(); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	switch s.OnError {
	case "", OnErrorRun, OnErrorRow:
	default:
		return fmt.Errorf("%s.on_error: %q: want %q (the default: a failure stops the run) or %q (it stops the row)", key, s.OnError, OnErrorRun, OnErrorRow)
	}
	for _, v := range []float64{s.TimeoutS, s.StartTimeoutS} {
		if !(v >= 0 && v <= 86400) {
			return fmt.Errorf("%s: timeout_s and start_timeout_s must be in [0, 86400], got %v and %v", key, s.TimeoutS, s.StartTimeoutS)
		}
	}
	return nil
}

func (s Spec) config(seed uint64) Config {
	return Config{Name: s.Name, Command: s.Command, Dir: s.Dir, Seed: seed, Oracle: s.Oracle, RowOnly: s.OnError == OnErrorRow,
		Timeout: time.Duration(s.TimeoutS * float64(time.Second)), StartTimeout: time.Duration(s.StartTimeoutS * float64(time.Second))}
}

// declared holds the declared policies, with a digest of the files their
// commands name (so that a changed policy is a changed row).
var declared struct {
	sync.Mutex
	specs  map[string]Spec
	digest map[string]string
}

// Declare makes each spec's external:NAME a scheduler name in package
// schedulers. Declarations add up over a process's life; a name declared
// again takes the new spec. Two specs of one name in one call are an
// error, as is an invalid spec (naming external[i]).
func Declare(specs []Spec) error {
	seen := map[string]bool{}
	for i, s := range specs {
		key := fmt.Sprintf("external[%d]", i)
		if err := s.Validate(key); err != nil {
			return err
		}
		if seen[s.Name] {
			return fmt.Errorf("%s.name: %q is declared twice", key, s.Name)
		}
		seen[s.Name] = true
	}
	declared.Lock()
	defer declared.Unlock()
	if declared.specs == nil {
		declared.specs, declared.digest = map[string]Spec{}, map[string]string{}
	}
	for _, s := range specs {
		declared.specs[s.Name] = s
		declared.digest[s.Name] = commandDigest(s)
	}
	return nil
}

// commandDigest is a sha256 over the command's words and the contents of
// those that name regular files (from Dir): the policy's script.
func commandDigest(s Spec) string {
	words, _ := SplitCommand(s.Command)
	h := sha256.New()
	for _, w := range words {
		fmt.Fprintf(h, "%q\n", w)
		p := w
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.Dir, p)
		}
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Size() < 64<<20 {
			if b, err := os.ReadFile(p); err == nil {
				h.Write(b)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Row is what identifies a declared policy's results: its spec and the
// digest of its files, for a stage's cache key.
type Row struct {
	Spec   Spec   `json:"spec"`
	Digest string `json:"digest"`
}

// Rows are the declared policies among names (scheduler names, any
// case), in the order given; nil when there is none.
func Rows(names []string) []Row {
	declared.Lock()
	defer declared.Unlock()
	var out []Row
	for _, n := range names {
		name, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(n)), Prefix)
		if s, dec := declared.specs[name]; ok && dec && !slices.ContainsFunc(out, func(r Row) bool { return r.Spec.Name == name }) {
			out = append(out, Row{Spec: s, Digest: declared.digest[name]})
		}
	}
	return out
}

func resolve(n schedulers.Name) (schedulers.Info, schedulers.Constructor, error) {
	name := strings.TrimPrefix(string(n), Prefix)
	declared.Lock()
	s, ok := declared.specs[name]
	var names []string
	if !ok {
		for k := range declared.specs {
			names = append(names, k)
		}
	}
	declared.Unlock()
	if !ok {
		slices.Sort(names)
		return schedulers.Info{}, nil, fmt.Errorf("no external policy %q is declared (the configuration's external list declares: %s)", name, strings.Join(names, ", "))
	}
	display := s.Display
	if display == "" {
		display = s.Name
	}
	doc := "external policy: " + s.Command
	if s.Oracle {
		display += " (oracle)"
		doc += " (oracle: it is sent true durations)"
	}
	info := schedulers.Info{Name: n, Display: display, Doc: doc}
	return info, func(o schedulers.Options) (sim.Scheduler, error) { return s.Policy(o.Seed) }, nil
}

// Policy starts the policy of s for a run seeded with seed: what
// external:NAME's constructor does, for a process that has the spec but
// did not declare it (a worker running an evaluation cell's task).
func (s Spec) Policy(seed uint64) (sim.Scheduler, error) {
	cfg := s.config(seed)
	p, err := New(context.Background(), cfg)
	switch {
	case err != nil && cfg.RowOnly:
		return nil, &RowError{Err: err}
	case err != nil:
		return nil, err
	}
	return p, nil
}

func init() { schedulers.RegisterPrefix(Prefix, resolve) }
