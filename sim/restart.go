package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// RestartCost is the key sim.restart_s: what resuming a preempted job
// costs, in standalone seconds of extra work, charged at each resume. It
// is one number for every job (0 as Tiresias and Blox charge; 30 as
// Pollux, Qiao et al., OSDI 2021, §5: "a fixed 30 s delay" per
// re-allocation), or a table per model, as Sia (Jayaram Subramanya et
// al., SOSP 2023) measures each model's checkpoint-restore time.
//
// Its forms, in JSON (the experiment specs) and text (replay's
// --restart-s):
//
//	30                                      every job: 30 s
//	{"default": 30, "resnet-50": 25.5}      resnet-50: 25.5 s, any other model 30 s
//	default=30,resnet-50=25.5               the same table as text
//
// Model names match as ProfileOf matches them (case, separators and a
// "(batch size N)" ignored); "default" is the cost of a model the table
// does not name (0 when absent). The zero value charges nothing.
type RestartCost struct {
	// S is the cost of a job whose model the table does not name.
	S float64
	// table is the per-model costs in the text form, names as normModel
	// writes them, sorted: "" for none. Text keeps the type comparable,
	// so that two configurations compare with ==.
	table string
}

// RestartFixed is the same restart cost s for every job.
func RestartFixed(s float64) RestartCost { return RestartCost{S: s} }

// RestartTable is a cost per model, def for the models it does not name.
// The error names the entry that is out of range or given twice (two
// spellings of one model).
func RestartTable(def float64, models map[string]float64) (RestartCost, error) {
	c := RestartCost{S: def}
	seen := map[string]string{}
	var parts []string
	for _, m := range slices.Sorted(maps.Keys(models)) {
		s := models[m]
		switch n := normModel(m); {
		case n == "" || n == restartDefault || strings.ContainsAny(n, ",="):
			return RestartCost{}, fmt.Errorf("sim.restart_s: model %q: not a model name", m)
		case seen[n] != "":
			return RestartCost{}, fmt.Errorf("sim.restart_s: models %q and %q are the same model", seen[n], m)
		case !(s >= 0) || math.IsInf(s, 0):
			return RestartCost{}, fmt.Errorf("sim.restart_s.%s: must be >= 0 and finite, got %v", m, s)
		default:
			seen[n] = m
			parts = append(parts, n+"="+formatSeconds(s))
		}
	}
	slices.Sort(parts)
	c.table = strings.Join(parts, ",")
	return c, c.Validate()
}

func formatSeconds(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// restartDefault is the table's key for the models it does not name.
const restartDefault = "default"

// Of is the cost of resuming a job of model.
func (c RestartCost) Of(model string) float64 {
	if c.table == "" {
		return c.S
	}
	n := normModel(model)
	for rest := c.table; rest != ""; {
		var e string
		e, rest, _ = strings.Cut(rest, ",")
		if m, v, _ := strings.Cut(e, "="); m == n {
			x, _ := strconv.ParseFloat(v, 64) // written by formatSeconds
			return x
		}
	}
	return c.S
}

// Models is the per-model table (nil for none), names normalised.
func (c RestartCost) Models() map[string]float64 {
	if c.table == "" {
		return nil
	}
	out := map[string]float64{}
	for _, e := range strings.Split(c.table, ",") {
		m, v, _ := strings.Cut(e, "=")
		out[m], _ = strconv.ParseFloat(v, 64)
	}
	return out
}

// IsZero reports whether c charges nothing (and so is left out of a
// configuration's JSON, which keeps its hash as before the key existed).
func (c RestartCost) IsZero() bool { return c == RestartCost{} }

// Validate checks the default cost (≥ 0 and finite); RestartTable has
// checked the table's.
func (c RestartCost) Validate() error {
	if !(c.S >= 0) || math.IsInf(c.S, 0) {
		return fmt.Errorf("sim.restart_s: must be >= 0 and finite, got %v", c.S)
	}
	return nil
}

// String is the text form (ParseRestartCost reads it back).
func (c RestartCost) String() string {
	if c.table == "" {
		return formatSeconds(c.S)
	}
	return restartDefault + "=" + formatSeconds(c.S) + "," + c.table
}

// ParseRestartCost reads the text form: a number, or model=seconds pairs
// separated by commas, "default" among the models. The error names the
// entry that is wrong.
func ParseRestartCost(s string) (RestartCost, error) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "=") {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return RestartCost{}, fmt.Errorf("sim.restart_s: %q: want a number of seconds or model=seconds pairs (default=30,resnet-50=25)", s)
		}
		c := RestartFixed(x)
		return c, c.Validate()
	}
	var def float64
	models := map[string]float64{}
	for i, part := range strings.Split(s, ",") {
		m, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		m = strings.TrimSpace(m)
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || m == "" || err != nil {
			return RestartCost{}, fmt.Errorf("sim.restart_s: entry %d %q: want model=seconds", i+1, part)
		}
		if err := setEntry(&def, models, m, x); err != nil {
			return RestartCost{}, err
		}
	}
	return RestartTable(def, models)
}

// setEntry records one table entry, "default" included.
func setEntry(def *float64, models map[string]float64, model string, s float64) error {
	if normModel(model) == restartDefault {
		*def = s
		return nil
	}
	if _, dup := models[model]; dup {
		return fmt.Errorf("sim.restart_s: model %q given twice", model)
	}
	models[model] = s
	return nil
}

// tableForm is the JSON and YAML form: the number alone when no model has its
// own cost (so a configuration that sets one number encodes as before the
// table existed), else the table with its default.
func (c RestartCost) tableForm() any {
	if c.table == "" {
		return c.S
	}
	m := c.Models()
	m[restartDefault] = c.S
	return m
}

// MarshalJSON writes the number, or the table (keys sorted).
func (c RestartCost) MarshalJSON() ([]byte, error) { return json.Marshal(c.tableForm()) }

// MarshalYAML writes the forms MarshalJSON writes.
func (c RestartCost) MarshalYAML() (any, error) { return c.tableForm(), nil }

// UnmarshalJSON reads a number, a table of numbers, or the text form.
func (c *RestartCost) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	var out RestartCost
	var err error
	switch {
	case len(b) > 0 && b[0] == '{':
		d := json.NewDecoder(bytes.NewReader(b))
		if _, err := d.Token(); err != nil {
			return fmt.Errorf("sim.restart_s: %w", err)
		}
		var def float64
		models := map[string]float64{}
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return fmt.Errorf("sim.restart_s: %w", err)
			}
			var x float64
			if err := d.Decode(&x); err != nil {
				return fmt.Errorf("sim.restart_s.%v: must be a number of seconds: %w", k, err)
			}
			if err := setEntry(&def, models, k.(string), x); err != nil {
				return err
			}
		}
		out, err = RestartTable(def, models)
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("sim.restart_s: %w", err)
		}
		out, err = ParseRestartCost(s)
	default:
		if err := json.Unmarshal(b, &out.S); err != nil {
			return fmt.Errorf("sim.restart_s: must be a number of seconds or a table of them per model: %w", err)
		}
		err = out.Validate()
	}
	if err != nil {
		return err
	}
	*c = out
	return nil
}
