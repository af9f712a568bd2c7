package sim

import "github.com/schedlab/schedlab/datasets"

// C_J rules (Config.CPULoad): where an instance's CPU utilisation C_J,
// the CPU interference model's "CPU utilization of training job J
// (profiled … when running alone)" (MARL §IV-B), comes from.
const (
	// CPULoadRequest takes C_J from the instance's CPU request when it has
	// one, else from its model's profile: every instance of a job shape
	// loads its socket alike, whatever its model. The default, and the
	// DAS experiments' (most PAI jobs have no profiled model).
	CPULoadRequest = "request"
	// CPULoadProfile takes a worker's C_J (an instance with GPUs) from its
	// model's standalone profile (Profiles), capped at its CPU request:
	// capacity is booked by requests, so a profile above the request
	// would load a socket beyond what the scheduler was told it holds. A
	// parameter server, and an instance of a model without a profile,
	// keep their request. The MARL experiments' rule: the model type
	// changes CPU interference, as in the paper.
	CPULoadProfile = "profile"
)

// CPULoads lists the C_J rules, the default first.
var CPULoads = []string{CPULoadRequest, CPULoadProfile}

// instanceCPU is C_J of an instance of task t of a job of profile p under
// rule.
func instanceCPU(p *ModelProfile, t datasets.Task, rule string) float64 {
	switch {
	case t.CPU == 0:
		return p.CPU
	case rule == CPULoadProfile && p.Known && t.GPU > 0:
		return min(p.CPU, t.CPU)
	}
	return t.CPU
}
