package external

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Config configures one external policy process.
type Config struct {
	// Name is the policy's name in errors and tables (the NAME of an
	// external:NAME row).
	Name string
	// Command is the program and its arguments, split into words as a
	// POSIX shell splits them (quotes and backslashes; no variables, globs
	// or pipes): "python3 -u my_policy.py --greedy".
	Command string
	// Dir is the child's working directory ("" the current one).
	Dir string
	// Timeout bounds each decision: from the message's first byte written
	// to its answer's last byte read (0: DefaultTimeout).
	Timeout time.Duration
	// StartTimeout bounds the start and the handshake (0:
	// DefaultStartTimeout): an interpreter that imports numpy needs more
	// than a decision does.
	StartTimeout time.Duration
	// Seed is the run's seed, sent in the handshake.
	Seed uint64
	// Oracle sends each job's true (standalone) duration with its arrival:
	// a row that reads the future, to be named and shown as an oracle.
	Oracle bool
	// MaxLineBytes bounds one answer line (0: DefaultMaxLineBytes); a
	// longer one is a flood and ends the run.
	MaxLineBytes int
	// RowOnly wraps every error of the policy in a *RowError: in an
	// experiment it stops the policy's row, not the run.
	RowOnly bool
}

// Defaults of Config's zero fields.
const (
	DefaultTimeout      = 10 * time.Second
	DefaultStartTimeout = 60 * time.Second
	DefaultMaxLineBytes = 1 << 20
	// killGrace is how long Close waits for a child to exit on its own
	// after its input is closed.
	killGrace = 2 * time.Second
)

func (c Config) withDefaults() Config {
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = DefaultStartTimeout
	}
	if c.MaxLineBytes == 0 {
		c.MaxLineBytes = DefaultMaxLineBytes
	}
	return c
}

// Validate checks the config; messages name the field.
func (c Config) Validate() error {
	var errs []error
	if err := checkName(c.Name); err != nil {
		errs = append(errs, err)
	}
	if _, err := SplitCommand(c.Command); err != nil {
		errs = append(errs, fmt.Errorf("command: %w", err))
	}
	if c.Timeout < 0 || c.StartTimeout < 0 {
		errs = append(errs, fmt.Errorf("timeout: must be >= 0, got %v and start %v", c.Timeout, c.StartTimeout))
	}
	if c.MaxLineBytes < 0 {
		errs = append(errs, fmt.Errorf("max_line_bytes: must be >= 0, got %d", c.MaxLineBytes))
	}
	return errors.Join(errs...)
}

// checkName holds a policy's name to the registry's spelling of scheduler
// names: lower case letters, digits and hyphens.
func checkName(name string) error {
	if name == "" {
		return errors.New("name: empty")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return fmt.Errorf("name: %q must be lower-case letters, digits and hyphens", name)
		}
	}
	return nil
}

// SplitCommand splits a command line into words as a POSIX shell does
// with quoting alone: blanks separate words; single quotes keep
// everything to the next single quote; double quotes keep everything but
// a backslash before ", \, $ or `; a backslash outside quotes keeps the
// next character. Nothing is expanded.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("ends in a backslash")
			}
			i++
			w.WriteByte(s[i])
			inWord = true
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	if len(words) == 0 {
		return nil, errors.New("empty")
	}
	return words, nil
}
