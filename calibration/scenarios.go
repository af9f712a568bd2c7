package calibration

import (
	"context"
	"fmt"

	"github.com/schedlab/schedlab/datasets"
	"github.com/schedlab/schedlab/sim"
)

// KindMARLTestbed is the server of the MARL paper's §II measurements: one
// Intel E5-1660 socket taken as 16 cores (the paper's figure) with two GTX
// 1080Ti GPUs on PCIe 3.0 x16 (128 Gbit/s). Memory and NIC speed are not
// given: 64 GiB and 10 Gbit/s are assumptions (the NIC's effect is a
// factor on communication, which comm_scale absorbs).
var KindMARLTestbed = sim.ServerKind{Name: "marl-testbed", Sockets: []sim.Socket{{Cores: 16, GPUs: 2, PCIeGbps: 128}}, MemGiB: 64, NICGbps: 10}

// Worker and PS demands of the §II jobs (see the package doc).
const (
	workerCPU = 6
	psCPU     = 1
)

// Scenario is a fixed placement of jobs, all started at once.
type Scenario struct {
	Name      string
	Cluster   *sim.Cluster
	Jobs      []datasets.Job
	Placement []sim.Placement
}

// marlJobs are the eight Table I jobs as worker + PS pairs.
func marlJobs() []datasets.Job {
	jobs := make([]datasets.Job, len(sim.MARLModels))
	for i, m := range sim.MARLModels {
		jobs[i] = datasets.Job{JobID: m, Model: m, DurationS: 1e6, Tasks: []datasets.Task{
			{Role: datasets.RoleWorker, Instances: 1, GPU: 1, CPU: workerCPU},
			{Role: datasets.RolePS, Instances: 1, CPU: psCPU},
		}}
	}
	return jobs
}

// demand is a task's (GPU, CPU) request.
type demand struct{ gpu, cpu float64 }

func taskDemands(j datasets.Job) []demand {
	var out []demand
	for _, t := range j.Tasks {
		for k := 0; k < int(t.Instances); k++ {
			out = append(out, demand{t.GPU, t.CPU})
		}
	}
	return out
}

// PackedScenario is Fig. 1(a): the eight jobs bin-packed onto four testbed
// servers, each whole job on the first server it fits.
func PackedScenario() (Scenario, error) {
	c, err := sim.FlatOf(4, KindMARLTestbed)
	if err != nil {
		return Scenario{}, err
	}
	jobs := marlJobs()
	free := freeOf(c)
	var pl []sim.Placement
	for i, j := range jobs {
		ds := taskDemands(j)
		var need demand
		for _, d := range ds {
			need.gpu += d.gpu
			need.cpu += d.cpu
		}
		placed := false
		for s := range free {
			if need.gpu <= free[s].gpu && need.cpu <= free[s].cpu {
				free[s].gpu -= need.gpu
				free[s].cpu -= need.cpu
				slots := make([]sim.Slot, len(ds))
				for k := range slots {
					slots[k] = sim.Slot{Server: s}
				}
				pl = append(pl, sim.Placement{Job: i, Slots: slots})
				placed = true
				break
			}
		}
		if !placed {
			return Scenario{}, fmt.Errorf("calibration: packing: job %s fits no server", j.JobID)
		}
	}
	return Scenario{Name: "packed", Cluster: c, Jobs: jobs, Placement: pl}, nil
}

// LoadBalancedScenario is Fig. 3(a): each task onto the feasible server of
// least load (mean of used CPU and GPU fractions), worker then PS.
func LoadBalancedScenario() (Scenario, error) {
	c, err := sim.FlatOf(4, KindMARLTestbed)
	if err != nil {
		return Scenario{}, err
	}
	jobs := marlJobs()
	free := freeOf(c)
	capCPU, capGPU := KindMARLTestbed.CPU(), KindMARLTestbed.GPU()
	var pl []sim.Placement
	for i, j := range jobs {
		var slots []sim.Slot
		for _, d := range taskDemands(j) {
			best, bestLoad := -1, 0.0
			for s := range free {
				if d.gpu > free[s].gpu || d.cpu > free[s].cpu {
					continue
				}
				load := ((capCPU-free[s].cpu)/capCPU + (capGPU-free[s].gpu)/capGPU) / 2
				if best < 0 || load < bestLoad {
					best, bestLoad = s, load
				}
			}
			if best < 0 {
				return Scenario{}, fmt.Errorf("calibration: load balancing: a task of job %s fits no server", j.JobID)
			}
			free[best].gpu -= d.gpu
			free[best].cpu -= d.cpu
			slots = append(slots, sim.Slot{Server: best})
		}
		pl = append(pl, sim.Placement{Job: i, Slots: slots})
	}
	return Scenario{Name: "load-balanced", Cluster: c, Jobs: jobs, Placement: pl}, nil
}

func freeOf(c *sim.Cluster) []demand {
	free := make([]demand, len(c.Servers))
	for i, s := range c.Servers {
		free[i] = demand{s.Kind.GPU(), s.Kind.CPU()}
	}
	return free
}

// rates runs sc's placement (every socket the first with room) and returns
// each job's rate with all jobs running.
func rates(sc Scenario, model sim.Interference, env *sim.Environment) ([]float64, error) {
	cfg := sim.DefaultConfig()
	// C_J as the MARL experiments take it (MARL §IV-B: profiled running
	// alone): the model's profile, capped at the request.
	cfg.CPULoad = sim.CPULoadProfile
	s, err := sim.New(sc.Cluster, sc.Jobs, cfg, model)
	if err != nil {
		return nil, fmt.Errorf("calibration: scenario %s: %w", sc.Name, err)
	}
	if env != nil {
		if err := s.UseEnvironment(env); err != nil {
			return nil, err
		}
	}
	if _, err := s.Next(context.Background()); err != nil {
		return nil, fmt.Errorf("calibration: scenario %s: %w", sc.Name, err)
	}
	pl := make([]sim.Placement, len(sc.Placement))
	for i, p := range sc.Placement {
		pl[i] = sim.Placement{Job: p.Job, Slots: append([]sim.Slot(nil), p.Slots...)}
	}
	if err := s.Apply(pl); err != nil {
		return nil, fmt.Errorf("calibration: scenario %s: %w", sc.Name, err)
	}
	out := make([]float64, len(sc.Jobs))
	for i := range sc.Jobs {
		out[i] = s.Job(i).Rate()
	}
	return out, nil
}

// Slowdowns returns each job's slowdown in sc relative to standalone: the
// job alone on a dedicated server of its first slot's kind (its worker and
// PS together), rate_alone/rate − 1.
func Slowdowns(sc Scenario, model sim.Interference, env *sim.Environment) ([]float64, error) {
	r, err := rates(sc, model, env)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(r))
	for i, j := range sc.Jobs {
		kind := sc.Cluster.Servers[sc.Placement[placementOf(sc, i)].Slots[0].Server].Kind
		alone, err := standaloneRate(j, kind, model, env)
		if err != nil {
			return nil, err
		}
		out[i] = alone/r[i] - 1
	}
	return out, nil
}

func placementOf(sc Scenario, job int) int {
	for k, p := range sc.Placement {
		if p.Job == job {
			return k
		}
	}
	return -1
}

func standaloneRate(j datasets.Job, kind sim.ServerKind, model sim.Interference, env *sim.Environment) (float64, error) {
	c, err := sim.FlatOf(1, kind)
	if err != nil {
		return 0, err
	}
	slots := make([]sim.Slot, j.Instances())
	r, err := rates(Scenario{Name: "standalone " + j.JobID, Cluster: c, Jobs: []datasets.Job{j}, Placement: []sim.Placement{{Job: 0, Slots: slots}}}, model, env)
	if err != nil {
		return 0, err
	}
	return r[0], nil
}

// Mean is the arithmetic mean.
func Mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// profileJob is a one-worker job of model m on gpu GPUs with no CPU
// request, so that its CPU use is its profile's.
func profileJob(id, m string, gpu float64) datasets.Job {
	return datasets.Job{JobID: id, Model: m, DurationS: 1e6, Tasks: []datasets.Task{{Role: datasets.RoleWorker, Instances: 1, GPU: gpu}}}
}

// CTCScenario is Fig. 1(b) at k CTC jobs: target (resnet-50 or vgg-16) on
// one GPU of a testbed server, k CTC jobs sharing its other GPU. The target
// is job 0.
func CTCScenario(target string, k int) (Scenario, error) {
	c, err := sim.FlatOf(1, KindMARLTestbed)
	if err != nil {
		return Scenario{}, err
	}
	jobs := []datasets.Job{profileJob(target, target, 1)}
	pl := []sim.Placement{{Job: 0, Slots: []sim.Slot{{}}}}
	for i := 0; i < k; i++ {
		jobs = append(jobs, profileJob(fmt.Sprintf("ctc-%d", i), "ctc", 1/float64(k)))
		pl = append(pl, sim.Placement{Job: i + 1, Slots: []sim.Slot{{}}})
	}
	return Scenario{Name: fmt.Sprintf("fig1b %s + %d ctc", target, k), Cluster: c, Jobs: jobs, Placement: pl}, nil
}

// LocalityScenario is Fig. 2(b): two ResNet-50 jobs of one GPU each on a
// power8 server, under the same socket or under different ones.
func LocalityScenario(sameSocket bool) (Scenario, error) {
	c, err := sim.Flat(1, "power8")
	if err != nil {
		return Scenario{}, err
	}
	other := 1
	name := "fig2b different CPUs"
	if sameSocket {
		other, name = 0, "fig2b same CPU"
	}
	jobs := []datasets.Job{profileJob("a", "resnet-50", 1), profileJob("b", "resnet-50", 1)}
	pl := []sim.Placement{{Job: 0, Slots: []sim.Slot{{Server: 0, Socket: 0}}}, {Job: 1, Slots: []sim.Slot{{Server: 0, Socket: other}}}}
	return Scenario{Name: name, Cluster: c, Jobs: jobs, Placement: pl}, nil
}
