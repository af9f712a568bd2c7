package sim

// GPU sharing: instances with a fraction of a GPU that the simulator packs
// onto one GPU slow each other down, by a term fitted to measured pairs
// (fitting's GPU-sharing term; Gavel's and Lucid's testbeds).

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/schedlab/schedlab/datasets"
)

// GPUSharing is the GPU-sharing term: the speed, relative to running
// alone, of a job with standalone GPU utilisation uj (a fraction) that
// shares one GPU with co-runners whose standalone utilisations sum to uc.
// Implementations must be safe for concurrent use and must not allocate
// (the simulator calls it for every instance whose co-runners changed);
// fitting.ShareFit is the fitted one.
type GPUSharing interface {
	SharedSpeed(uj, uc float64) float64
}

// GPUProfile is one measured job configuration's standalone GPU
// utilisation: the pool the simulator draws trace jobs' profiles from.
type GPUProfile struct {
	Model   string  `json:"model"`    // the model it measured ("ResNet-18", "ResNet18")
	GPUUtil float64 `json:"gpu_util"` // standalone GPU utilisation, a fraction in [0, 1]
}

// Standalone forms of the GPU-sharing term (fitting compares them, with a
// per-job-type form that needs pairs of every type and so is not here).
const (
	ShareFormMedian     = "median"     // s = s0
	ShareFormLinear     = "linear"     // s = c0 + cj·u_J + cc·u_C
	ShareFormBilinear   = "bilinear"   // s = c0 + cj·u_J + cc·u_C + cjc·u_J·u_C
	ShareFormSaturating = "saturating" // s = λ − α·(1 − exp(−β·U))/β, U = u_J + u_C
)

var shareFormParams = map[string]int{ShareFormMedian: 1, ShareFormLinear: 3, ShareFormBilinear: 4, ShareFormSaturating: 3}

// MinSharedSpeed floors a predicted speed: a job sharing a GPU never stops.
const MinSharedSpeed = 0.01

// ShareTerm is a fitted GPU-sharing term in one of the standalone forms:
// the one implementation of their formulas (fitting evaluates its fits
// through it). It implements GPUSharing without allocating.
type ShareTerm struct {
	Form   string    `json:"form"`
	Params []float64 `json:"params"`
}

// SharedSpeed implements GPUSharing, floored at MinSharedSpeed.
func (t ShareTerm) SharedSpeed(uj, uc float64) float64 {
	p := t.Params
	var s float64
	switch t.Form {
	case ShareFormMedian:
		s = p[0]
	case ShareFormLinear:
		s = p[0] + p[1]*uj + p[2]*uc
	case ShareFormBilinear:
		s = p[0] + p[1]*uj + p[2]*uc + p[3]*uj*uc
	case ShareFormSaturating:
		g, _ := SaturatingG(p[2], uj+uc)
		s = p[0] - p[1]*g
	}
	if !(s >= MinSharedSpeed) { // also NaN
		return MinSharedSpeed
	}
	return s
}

// SaturatingG is g(β, U) = (1 − exp(−βU))/β of the saturating form, with
// initial slope 1 (U itself at β = 0, so that the form is linear in that
// limit rather than diverging), and ∂g/∂β; a series near β = 0.
func SaturatingG(beta, u float64) (g, dg float64) {
	x := beta * u
	if math.Abs(x) < 1e-4 {
		return u * (1 - x/2 + x*x/6), u * u * (-0.5 + x/3)
	}
	e := math.Exp(-x)
	return (1 - e) / beta, (u*e*beta - (1 - e)) / (beta * beta)
}

// Validate reports an unknown form, a wrong parameter count or a
// non-finite parameter.
func (t ShareTerm) Validate() error {
	n, ok := shareFormParams[t.Form]
	if !ok {
		return fmt.Errorf("gpu_share_term.form: %q is not a standalone form", t.Form)
	}
	if len(t.Params) != n {
		return fmt.Errorf("gpu_share_term.params: %d, want %d for %s", len(t.Params), n, t.Form)
	}
	for i, v := range t.Params {
		if bad := datasets.CheckValue(ShareParamColumn(t.Form, i), v); bad != nil {
			return fmt.Errorf("gpu_share_term.params[%d]: %s", i, bad.Reason)
		}
	}
	return nil
}

// ShareParamColumn is the bounds-table column (datasets.CheckValue) of
// parameter i of a GPU-sharing form: the saturating form's rate
// (params[2]) has its own range, every other parameter the shared one.
func ShareParamColumn(form string, i int) string {
	if form == ShareFormSaturating && i == 2 {
		return "gpu_share_beta"
	}
	return "gpu_share_param"
}

// SharingModel is an interference model with a GPU-sharing term: the
// CPU/PCIe interference of Interference, plus, under sim.speed model, the
// slowdown of instances that share a GPU (see Sim's GPU sharing rule).
// Profiles is the pool from which jobs get their standalone GPU
// utilisation (the environment's gpu_profile_rule says how).
type SharingModel struct {
	Interference
	Sharing  GPUSharing
	Profiles []GPUProfile
}

// Validate reports a missing term or an empty or out-of-range pool.
func (m SharingModel) Validate() error {
	if m.Interference == nil {
		return fmt.Errorf("sim: sharing model without a CPU/PCIe model (use NoInterference for none)")
	}
	if m.Sharing == nil {
		return fmt.Errorf("sim: sharing model without a GPU-sharing term")
	}
	if len(m.Profiles) == 0 {
		return fmt.Errorf("sim: sharing model without standalone GPU profiles")
	}
	for i, p := range m.Profiles {
		if !(p.GPUUtil >= 0 && p.GPUUtil <= 1) {
			return fmt.Errorf("sim: gpu profile %d (%s): utilisation %v outside [0, 1]", i, p.Model, p.GPUUtil)
		}
	}
	return nil
}

// sharingOf is the sharing model model carries (itself, or the base of an
// environment's model), nil if none.
func sharingOf(model Interference) *SharingModel {
	switch m := model.(type) {
	case SharingModel:
		return &m
	case envModel:
		return sharingOf(m.base)
	}
	return nil
}

// GPUShareParamsOf is the GPU-sharing term model carries, as an
// environment carries it (default scale and rule; package calibration puts
// it into the environments it fits), or nil when model has none or its
// term is not a ShareTerm.
func GPUShareParamsOf(model Interference) *GPUShareParams {
	sm := sharingOf(model)
	if sm == nil {
		return nil
	}
	t, ok := sm.Sharing.(ShareTerm)
	if !ok {
		return nil
	}
	p := DefaultGPUShare()
	p.Term, p.Profiles = &t, slices.Clone(sm.Profiles)
	return &p
}

// GPU profile rules: how a job gets its standalone GPU utilisation from the
// measured pool. A job whose model names a measured model (matched as
// ProfileOf matches names) gets the mean utilisation of that model's
// configurations under every rule; the rule decides for the rest (most
// trace jobs name no model).
const (
	// GPUProfileDraw: a uniform draw from the pool, seeded by the
	// environment's gpu_profile_seed and the job's id (so a job keeps its
	// profile whatever else the trace holds, in any order).
	GPUProfileDraw = "draw"
	// GPUProfileMedian: the pool's median utilisation for every such job.
	GPUProfileMedian = "median"
)

// GPUProfileRules lists the rules.
var GPUProfileRules = []string{GPUProfileDraw, GPUProfileMedian}

// gpuUtilOf assigns every job its standalone GPU utilisation under rule.
func gpuUtilOf(jobs []JobState, pool []GPUProfile, rule string, seed uint64) []float64 {
	byModel := map[string][2]float64{} // sum, count
	utils := make([]float64, len(pool))
	for i, p := range pool {
		k := normModel(p.Model)
		v := byModel[k]
		byModel[k] = [2]float64{v[0] + p.GPUUtil, v[1] + 1}
		utils[i] = p.GPUUtil
	}
	sorted := slices.Sorted(slices.Values(utils))
	median := sorted[len(sorted)/2]
	if len(sorted)%2 == 0 {
		median = (sorted[len(sorted)/2-1] + sorted[len(sorted)/2]) / 2
	}
	out := make([]float64, len(jobs))
	for i := range jobs {
		j := jobs[i].Job
		if v, ok := byModel[normModel(j.Model)]; ok && j.Model != "" {
			out[i] = v[0] / v[1]
			continue
		}
		switch rule {
		case GPUProfileMedian:
			out[i] = median
		default:
			// FNV-1a of the job id, then one PCG step from (seed, hash);
			// the index by multiply-shift of its top 32 bits.
			h := uint64(14695981039346656037)
			for k := 0; k < len(j.JobID); k++ {
				h = (h ^ uint64(j.JobID[k])) * 1099511628211
			}
			var pcg rand.PCG
			pcg.Seed(seed, h)
			out[i] = utils[((pcg.Uint64()>>32)*uint64(len(utils)))>>32]
		}
	}
	return out
}

// gpuShareSlowdown is the GPU-sharing slowdown of instance inst of job
// self homed on socket of server: under the packing rule (Sim's doc: the
// instances with a fraction of a GPU on one socket are packed next-fit, in
// the order they were placed, onto its GPUs; those packed onto one GPU
// share it), 1/f(u_J, U_c) − 1 (the instance runs at the term's speed f,
// relative to alone; a predicted speed above 1 costs nothing) with U_c the
// summed standalone utilisation of its GPU's other instances, times the
// environment's gpu_share_scale; 0 for an instance alone on its GPU or
// with a whole one.
func (s *Sim) gpuShareSlowdown(self, inst, server, socket int) float64 {
	const eps = 1e-9
	if !fractional(s.jobs[self].Instances[inst].Demand.GPU) {
		return 0
	}
	var fill, sum, uj float64
	in, found, co := false, false, 0
	n := 0
	var uc float64
	for _, r := range s.srvInst[server] {
		if int(r.socket) != socket || !(r.g > 0 && r.g < 1) {
			continue
		}
		if fill+r.g > 1+eps { // next GPU
			if in {
				found, uc, co = true, sum-uj, n-1
				break
			}
			fill, sum, n = 0, 0, 0
		}
		fill += r.g
		sum += r.u
		n++
		if int(r.job) == self && int(r.inst) == inst {
			in, uj = true, r.u
		}
	}
	if !found {
		if !in {
			return 0 // a whole GPU, or not placed
		}
		uc, co = sum-uj, n-1
	}
	if co == 0 {
		return 0
	}
	// The term's speeds are relative to running alone (the measurements
	// are), so a sharer runs at f: no subtraction of an "alone" value, as
	// the CPU term needs for its fitted intercept.
	x := s.shareScale * (1/s.share.SharedSpeed(uj, math.Max(uc, 0)) - 1)
	if !(x > 0) {
		return 0
	}
	return x
}

// setupSharing reads the GPU-sharing term and the environment's GPU
// parameters from the model and assigns every job its standalone GPU
// utilisation. Without a sharing model, under standalone speed, or with a
// gpu_share_scale of 0, there is no term.
func (s *Sim) setupSharing() error {
	s.share, s.shareScale, s.gpuUtil = nil, 0, nil
	sm := sharingOf(s.model)
	if sm == nil || s.standalone {
		return nil
	}
	if err := sm.Validate(); err != nil {
		return err
	}
	p := s.env.gpuShare()
	if p.Scale == 0 {
		return nil
	}
	s.share, s.shareScale = sm.Sharing, p.Scale
	s.gpuUtil = gpuUtilOf(s.jobs, sm.Profiles, p.ProfileRule, p.ProfileSeed)
	return nil
}

// gpuUtilOf is job i's standalone GPU utilisation (0 without a term).
func (s *Sim) gpuUtilOf(i int) float64 {
	if s.gpuUtil == nil {
		return 0
	}
	return s.gpuUtil[i]
}

// GPUUtil is job i's standalone GPU utilisation as the GPU-sharing term
// sees it (drawn by the environment's rule), and false without a term.
func (s *Sim) GPUUtil(i int) (float64, bool) {
	if s.gpuUtil == nil {
		return 0, false
	}
	return s.gpuUtil[i], true
}
