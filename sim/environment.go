package sim

// Calibrated environments (DESIGN.md §4): the speed model's free
// parameters, those no paper or public measurement gives, as one named,
// fitted set applied to a simulation.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/pipeline"
)

// Environment is a named set of the speed model's free parameters, fitted
// to one paper's measurements of its own testbed (package calibration).
// The zero-valued parameters are invalid; NeutralEnvironment leaves the
// speed model as it is.
type Environment struct {
	// Name identifies the environment (e.g. "marl-paper").
	Name string
	// Source says what it was fitted to, for the tables' notes.
	Source string
	// BaseModel is the sha256 of the interference model file (a fit's
	// model.json) the environment was calibrated over; "" is the
	// simulator's default model. Its parameters scale that model: over
	// another they reproduce nothing (CheckBase).
	BaseModel string
	// InterferenceScale multiplies every instance's co-location slowdown
	// S(J, J̃) − S(J, ∅) (before the MaxSlowdown cap). Physically it maps
	// the interference model, fitted on one server type, onto the paper's
	// servers: how much more (> 1) or less (< 1) co-runners on a socket
	// cost there (cache size, memory bandwidth, PCIe generation).
	InterferenceScale float64
	// CommScale multiplies the per-iteration volume of every network flow:
	// the inverse of an effective-bandwidth factor on every tier. Values
	// below 1 stand for what the simulator's model leaves out: faster
	// links than assumed, gradient compression or sparse updates, and the
	// overlap of communication with back-propagation (DESIGN.md §4 counts
	// communication after compute, with no overlap).
	CommScale float64
	// PSShare multiplies the slowdown of instances without GPUs (their
	// PCIe use P_J is 0): in the MARL workloads exactly the parameter
	// servers. The simulator takes a job's slowdown as its slowest
	// instance's, as if every instance's work were the whole iteration; a
	// PS's CPU work (summing gradients, applying the update) is only part
	// of it, so slowing the PS by S lengthens the iteration by about
	// PSShare·S. 1 is the speed model as it is.
	PSShare float64
	// GPUShare holds the GPU-sharing parameters (keys gpu_share_scale,
	// gpu_profile_rule, gpu_profile_seed); nil means their defaults
	// (DefaultGPUShare). They are not fitted by calibration: the term they
	// scale is fitted to measurements of its own.
	GPUShare *GPUShareParams
}

// GPUShareParams are an environment's GPU-sharing parameters.
type GPUShareParams struct {
	// Scale multiplies the GPU-sharing slowdown of instances that share a
	// GPU (0 turns the term off; the sensitivity experiment varies it).
	Scale float64
	// ProfileRule is how a job that names no measured model gets its
	// standalone GPU utilisation (GPUProfileRules).
	ProfileRule string
	// ProfileSeed seeds the draw of ProfileRule draw.
	ProfileSeed uint64
	// Term and Profiles are the fitted GPU-sharing term and its pool of
	// measured standalone profiles (keys gpu_share_term, gpu_profiles),
	// carried by an environment so that every simulation run in it
	// charges GPU sharing, whatever CPU/PCIe model it is given (package
	// calibration copies them from the fit); nil: the model's own, if any.
	Term     *ShareTerm
	Profiles []GPUProfile
}

// DefaultGPUShare is the term as fitted (scale 1), profiles drawn with seed 1.
func DefaultGPUShare() GPUShareParams {
	return GPUShareParams{Scale: 1, ProfileRule: GPUProfileDraw, ProfileSeed: 1}
}

// gpuShare is e's GPU-sharing parameters, the defaults for a nil e or nil
// GPUShare.
func (e *Environment) gpuShare() GPUShareParams {
	if e == nil || e.GPUShare == nil {
		return DefaultGPUShare()
	}
	return *e.GPUShare
}

// GPUShareParamsOf is e's GPU-sharing parameters (the defaults when unset).
func (e *Environment) GPUShareParamsOf() GPUShareParams { return e.gpuShare() }

// Validate reports a scale outside [0, 100] or an unknown rule.
func (p GPUShareParams) Validate() error {
	if !(p.Scale >= 0 && p.Scale <= 100) {
		return fmt.Errorf("%w: gpu_share_scale: must be in [0, 100], got %v", ErrBadEnvironment, p.Scale)
	}
	if !slices.Contains(GPUProfileRules, p.ProfileRule) {
		return fmt.Errorf("%w: gpu_profile_rule: must be one of %v, got %q", ErrBadEnvironment, GPUProfileRules, p.ProfileRule)
	}
	if p.Term != nil {
		m := SharingModel{Interference: NoInterference{}, Sharing: *p.Term, Profiles: p.Profiles}
		if err := p.Term.Validate(); err != nil {
			return fmt.Errorf("%w: %v", ErrBadEnvironment, err)
		}
		if err := m.Validate(); err != nil {
			return fmt.Errorf("%w: gpu_profiles: %v", ErrBadEnvironment, err)
		}
	} else if len(p.Profiles) > 0 {
		return fmt.Errorf("%w: gpu_profiles without gpu_share_term", ErrBadEnvironment)
	}
	return nil
}

// Environment parameter ranges, inclusive. They bound the fit and reject
// files outside them: a factor of 100 either way is far beyond anything the
// hardware differences it stands for could explain.
var environmentParams = []envParam{
	{"interference_scale", 0.01, 100, func(e *Environment) *float64 { return &e.InterferenceScale }},
	{"comm_scale", 0.001, 100, func(e *Environment) *float64 { return &e.CommScale }},
	{"ps_share", 0, 1, func(e *Environment) *float64 { return &e.PSShare }},
}

type envParam struct {
	key    string
	lo, hi float64
	get    func(*Environment) *float64
}

// EnvironmentParams lists the numeric keys of an environment file, in
// order, with their inclusive ranges.
func EnvironmentParams() (keys []string, lo, hi []float64) {
	for _, p := range environmentParams {
		keys, lo, hi = append(keys, p.key), append(lo, p.lo), append(hi, p.hi)
	}
	return keys, lo, hi
}

// Params returns the environment's numeric parameters in EnvironmentParams'
// order.
func (e *Environment) Params() []float64 {
	out := make([]float64, len(environmentParams))
	for i, p := range environmentParams {
		out[i] = *p.get(e)
	}
	return out
}

// SetParams sets the numeric parameters from x (EnvironmentParams' order).
func (e *Environment) SetParams(x []float64) {
	for i, p := range environmentParams {
		*p.get(e) = x[i]
	}
}

// NeutralEnvironment leaves the speed model unchanged (every factor 1).
func NeutralEnvironment() Environment {
	return Environment{Name: "neutral", Source: "no calibration", InterferenceScale: 1, CommScale: 1, PSShare: 1}
}

// ErrBadEnvironment: an environment file or value is malformed.
var ErrBadEnvironment = errors.New("invalid environment")

// Validate reports a missing name or a non-finite or out-of-range
// parameter; messages name the key.
func (e *Environment) Validate() error {
	if e.Name == "" {
		return fmt.Errorf("%w: name: must not be empty", ErrBadEnvironment)
	}
	for _, p := range environmentParams {
		v := *p.get(e)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s: must be finite, got %v", ErrBadEnvironment, p.key, v)
		}
		if v < p.lo || v > p.hi {
			return fmt.Errorf("%w: %s: must be in [%g, %g], got %v", ErrBadEnvironment, p.key, p.lo, p.hi, v)
		}
	}
	if e.GPUShare != nil {
		return e.GPUShare.Validate()
	}
	return nil
}

// MarshalJSON writes the environment as a flat object: name, source, then
// the parameters in EnvironmentParams' order, numbers in the shortest form
// that reads back exactly (deterministic bytes).
func (e Environment) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	name, _ := json.Marshal(e.Name)
	src, _ := json.Marshal(e.Source)
	fmt.Fprintf(&b, "{\n  \"name\": %s,\n  \"source\": %s", name, src)
	if e.BaseModel != "" {
		fmt.Fprintf(&b, ",\n  \"base_model_sha256\": %q", e.BaseModel)
	}
	for _, p := range environmentParams {
		v := *p.get(&e)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: %s: must be finite, got %v", ErrBadEnvironment, p.key, v)
		}
		fmt.Fprintf(&b, ",\n  %q: %s", p.key, strconv.FormatFloat(v, 'g', -1, 64))
	}
	if g := e.GPUShare; g != nil {
		rule, _ := json.Marshal(g.ProfileRule)
		fmt.Fprintf(&b, ",\n  \"gpu_share_scale\": %s,\n  \"gpu_profile_rule\": %s,\n  \"gpu_profile_seed\": %d",
			strconv.FormatFloat(g.Scale, 'g', -1, 64), rule, g.ProfileSeed)
		if g.Term != nil {
			term, err := json.Marshal(g.Term)
			if err != nil {
				return nil, fmt.Errorf("%w: gpu_share_term: %v", ErrBadEnvironment, err)
			}
			pool, err := json.Marshal(g.Profiles)
			if err != nil {
				return nil, fmt.Errorf("%w: gpu_profiles: %v", ErrBadEnvironment, err)
			}
			fmt.Fprintf(&b, ",\n  \"gpu_share_term\": %s,\n  \"gpu_profiles\": %s", term, pool)
		}
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// UnmarshalJSON reads an environment strictly: every key must be known,
// every parameter present and a finite number in range. Errors name the
// key.
func (e *Environment) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("%w: %v", ErrBadEnvironment, err)
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys) // report the first bad key deterministically
	var out Environment
	seen := map[string]bool{}
	for _, k := range keys {
		v := raw[k]
		switch k {
		case "gpu_share_scale", "gpu_profile_rule", "gpu_profile_seed", "gpu_share_term", "gpu_profiles":
			if out.GPUShare == nil {
				d := DefaultGPUShare()
				out.GPUShare = &d
			}
			var err error
			switch k {
			case "gpu_share_scale":
				err = json.Unmarshal(v, &out.GPUShare.Scale)
			case "gpu_profile_rule":
				err = json.Unmarshal(v, &out.GPUShare.ProfileRule)
			case "gpu_share_term":
				dec := json.NewDecoder(bytes.NewReader(v))
				dec.DisallowUnknownFields()
				err = dec.Decode(&out.GPUShare.Term)
			case "gpu_profiles":
				dec := json.NewDecoder(bytes.NewReader(v))
				dec.DisallowUnknownFields()
				err = dec.Decode(&out.GPUShare.Profiles)
			default:
				err = json.Unmarshal(v, &out.GPUShare.ProfileSeed)
			}
			if err != nil {
				return fmt.Errorf("%w: %s: %v", ErrBadEnvironment, k, err)
			}
			continue
		case "name", "source", "base_model_sha256":
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return fmt.Errorf("%w: %s: want a string, got %s", ErrBadEnvironment, k, v)
			}
			switch k {
			case "name":
				out.Name = s
			case "source":
				out.Source = s
			default:
				if len(s) != 64 || strings.Trim(s, "0123456789abcdef") != "" {
					return fmt.Errorf("%w: %s: want a sha256 in hex, got %q", ErrBadEnvironment, k, s)
				}
				out.BaseModel = s
			}
			continue
		}
		i := slices.IndexFunc(environmentParams, func(p envParam) bool { return p.key == k })
		if i < 0 {
			known := []string{"name", "source", "base_model_sha256", "gpu_share_scale", "gpu_profile_rule", "gpu_profile_seed", "gpu_share_term", "gpu_profiles"}
			for _, p := range environmentParams {
				known = append(known, p.key)
			}
			return fmt.Errorf("%w: %s: unknown parameter (want one of %v)", ErrBadEnvironment, k, known)
		}
		var num json.Number
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.UseNumber()
		if err := dec.Decode(&num); err != nil {
			return fmt.Errorf("%w: %s: want a number, got %s", ErrBadEnvironment, k, v)
		}
		// ParseFloat turns 1e999 into ±Inf (with ErrRange): reported as
		// non-finite by Validate below.
		f, err := strconv.ParseFloat(num.String(), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%w: %s: want a number, got %s", ErrBadEnvironment, k, v)
		}
		*environmentParams[i].get(&out) = f
		seen[k] = true
	}
	for _, p := range environmentParams {
		if !seen[p.key] {
			return fmt.Errorf("%w: %s: missing", ErrBadEnvironment, p.key)
		}
	}
	if err := out.Validate(); err != nil {
		return err
	}
	*e = out
	return nil
}

// CheckBase refuses to apply e over an interference model other than the
// one it was calibrated over: model is the sha256 of the model file used
// ("" for the simulator's default model).
func (e *Environment) CheckBase(model string) error {
	if e.BaseModel == model {
		return nil
	}
	name := func(h string) string {
		if h == "" {
			return "the simulator's default model"
		}
		return "the model of sha256 " + h[:12]
	}
	return fmt.Errorf("%w: environment %s was calibrated over %s, applied here over %s: its parameters scale that model and reproduce nothing over another (calibrate it over this one, or use that model)",
		ErrBadEnvironment, e.Name, name(e.BaseModel), name(model))
}

// ReadEnvironment reads and validates an environment file; errors name the
// file and the key.
func ReadEnvironment(path string) (*Environment, error) {
	data, err := pipeline.ReadRecord(path, 0)
	if err != nil {
		return nil, fmt.Errorf("sim: environment %s: %w", path, err)
	}
	var e Environment
	// Not json.Unmarshal: its syntax check would run first and return an
	// error that is not ErrBadEnvironment.
	if err := e.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("sim: environment %s: %w", path, err)
	}
	return &e, nil
}

// WriteEnvironment validates e and writes it to path.
func WriteEnvironment(path string, e *Environment) error {
	if err := e.Validate(); err != nil {
		return fmt.Errorf("sim: environment %s: %w", path, err)
	}
	data, err := e.MarshalJSON()
	if err != nil {
		return fmt.Errorf("sim: environment %s: %w", path, err)
	}
	if err := pipeline.WriteFileAtomic(path, data); err != nil {
		return fmt.Errorf("sim: environment %s: %w", path, err)
	}
	return nil
}

// Interference wraps model (nil: DefaultInterference) so that the
// simulator's co-location slowdown S(J, J̃) − S(J, ∅) is multiplied by
// InterferenceScale, and by PSShare for an instance without GPUs: both
// terms are scaled alike, so the difference is.
func (e *Environment) Interference(model Interference) Interference {
	if model == nil {
		model = DefaultInterference()
	}
	if g := e.GPUShare; g != nil && g.Term != nil && sharingOf(model) == nil {
		model = SharingModel{Interference: model, Sharing: *g.Term, Profiles: g.Profiles}
	}
	k, ps := e.InterferenceScale, e.InterferenceScale*e.PSShare
	em := envModel{env: e, base: model, InterferenceFunc: func(target JobLoad, same, other []JobLoad, cores int) float64 {
		if target.P == 0 {
			return ps * model.Slowdown(target, same, other, cores)
		}
		return k * model.Slowdown(target, same, other, cores)
	}}
	base := model
	if sm, ok := model.(SharingModel); ok {
		base = sm.Interference
	}
	if m, ok := base.(ExpLinear); ok {
		em.fromSums = func(target JobLoad, uc, up, oc float64, cores int) float64 {
			if target.P == 0 {
				return ps * m.fromSums(target, uc, up, oc, cores)
			}
			return k * m.fromSums(target, uc, up, oc, cores)
		}
	}
	return em
}

// envModel is an environment's interference model carrying the
// environment, so that a simulation given it (New, Run, and every trainer
// that takes an Interference) also scales communication: passing
// e.Interference(base) is all it takes to run in e.
type envModel struct {
	InterferenceFunc
	env  *Environment
	base Interference // the model it wraps
	// fromSums is the same model given the co-runners' sums (see
	// ExpLinear.fromSums) when the base model is an ExpLinear; else nil.
	fromSums func(target JobLoad, uc, up, oc float64, cores int) float64
}

// sumsModel is model's slowdown given the co-runners' sums, equal to the
// bit to its Slowdown of the lists those sums come from, or nil when the
// model has no such form.
func sumsModel(model Interference) func(target JobLoad, uc, up, oc float64, cores int) float64 {
	switch m := model.(type) {
	case ExpLinear:
		return m.fromSums
	case envModel:
		return m.fromSums
	case SharingModel:
		return sumsModel(m.Interference)
	}
	return nil
}

// environmentOf is the environment model carries, nil if none.
func environmentOf(model Interference) *Environment {
	if m, ok := model.(envModel); ok {
		return m.env
	}
	return nil
}

// commFactor is the factor on flow volumes: 1 without an environment.
func (e *Environment) commFactor() float64 {
	if e == nil {
		return 1
	}
	return e.CommScale
}

// UseEnvironment runs the simulation in environment e: interference scaled
// by e.InterferenceScale (and PSShare), flow volumes by e.CommScale. Call
// it after New and before the first Next, with a base model not already
// wrapped by an environment (New given e.Interference(base) does the same).
func (s *Sim) UseEnvironment(e *Environment) error {
	if err := e.Validate(); err != nil {
		return fmt.Errorf("sim: environment %q: %w", e.Name, err)
	}
	if s.now != 0 || s.decisions != 0 || s.awaiting || len(s.running) > 0 {
		return errors.New("sim: UseEnvironment after the run started")
	}
	s.env = e
	s.model = e.Interference(s.model)
	s.fromSums = sumsModel(s.model)
	return s.setupSharing()
}

// FlatOf is n servers of the given kind under one top-of-rack switch, each
// linked at the kind's NIC speed: Flat for a server kind that is not one of
// KindNames (a paper's testbed, e.g. package calibration's).
func FlatOf(n int, kind ServerKind) (*Cluster, error) {
	if n < 1 {
		return nil, fmt.Errorf("sim: flat(%d,%s): need at least one server", n, kind.Name)
	}
	b := newBuilder(fmt.Sprintf("flat(%d,%s)", n, kind.Name), 1)
	tor := b.sw("tor", 1)
	for i := 0; i < n; i++ {
		b.t.addLink(b.serverOf(kind, 0), tor, kind.NICGbps, 0)
	}
	return b.done()
}
