package sim

import (
	"strings"

	"github.com/schedlab/schedlab/datasets"
)

// ModelProfile is the standalone behaviour of one instance of a training
// job of a model type: CPU use C_J, PCIe traffic P_J, the gradient exchanged
// per iteration and the iteration time with no interference and no
// communication.
type ModelProfile struct {
	Name       string
	CPU        float64 // C_J, cores busy per instance standalone
	PCIeGbps   float64 // P_J, Gbit/s between the socket and its GPUs
	GradientMB float64 // gradient (= parameter) size G, MB (10^6 bytes); pushed and pulled every iteration
	IterS      float64 // ideal iteration time, seconds
	Known      bool    // false for the default profile of an unknown model
	Source     string
}

// Profiles is the one table of model profiles. Gradient sizes are fp32
// parameter counts × 4 bytes from each model's original paper or reference
// implementation (ResNet-50 25.6 M, VGG-16 138 M, Inception-BN 11.3 M,
// ResNet-18 11.7 M, Transformer-base 65 M, BERT-base 110 M, XLNet-base
// 117 M, CycleGAN generator 11.4 M, Inception-v3 23.8 M, PTB medium LSTM
// 20 M). The MARL paper (Table I) names its eight models but gives no numbers
// for C_J, P_J or iteration time; those columns are assumptions consistent
// with its qualitative statements (§II: CTC is CPU intensive, VGG-16
// communication intensive, ResNet-50 compute heavy) at the scale of one
// 1080Ti/V100 worker with MXNet tutorial batch sizes. Trace names (Gavel's
// Philly job types, PAI workload tags) map to the nearest entry.
var Profiles = []ModelProfile{
	// MARL Table I.
	{"resnet-50", 4, 12, 102, 0.25, true, "MARL Table I; params He et al. 2016"},
	{"vgg-16", 3, 25, 553, 0.45, true, "MARL Table I; params Simonyan & Zisserman 2015"},
	{"inception-bn", 4, 10, 45, 0.20, true, "MARL Table I; params Ioffe & Szegedy 2015"},
	{"resnext-110", 2, 4, 7, 0.12, true, "MARL Table I; CIFAR-10 depth-110 net ≈ 1.7 M params"},
	{"dssm", 6, 6, 120, 0.10, true, "MARL Table I; text8 embedding ≈ 30 M params (assumed)"},
	{"seq2seq", 4, 8, 160, 0.35, true, "MARL Table I; WMT17 NMT ≈ 40 M params (assumed)"},
	{"ctc", 8, 3, 24, 0.08, true, "MARL Table I; CPU intensive per MARL §II; ≈ 6 M params (assumed)"},
	{"wlm", 3, 5, 80, 0.15, true, "MARL Table I; PTB medium LSTM ≈ 20 M params (Zaremba et al. 2014)"},
	// Names seen in traces.
	{"resnet-18", 3, 10, 47, 0.12, true, "Gavel/Philly job type; params He et al. 2016"},
	{"transformer", 3, 8, 260, 0.30, true, "Gavel/Philly job type; Transformer-base 65 M params"},
	{"lm", 3, 5, 80, 0.15, true, "Gavel/Philly job type; as wlm"},
	{"recommendation", 6, 6, 120, 0.10, true, "Gavel/Philly job type; as dssm (embedding heavy)"},
	{"a3c", 6, 2, 4, 0.05, true, "Gavel/Philly job type; small actor-critic net ≈ 1 M params (assumed)"},
	{"cyclegan", 3, 8, 46, 0.40, true, "Gavel/Philly job type; generator 11.4 M params"},
	{"bert", 4, 12, 440, 0.40, true, "PAI workload tag; BERT-base 110 M params"},
	{"xlnet", 4, 12, 470, 0.45, true, "PAI workload tag; XLNet-base 117 M params"},
	{"inception", 4, 10, 95, 0.25, true, "PAI workload tag; Inception-v3 23.8 M params"},
	{"resnet", 4, 12, 102, 0.25, true, "PAI workload tag; as resnet-50"},
	{"nmt", 4, 8, 160, 0.35, true, "PAI workload tag; as seq2seq"},
	{"ctr", 6, 6, 120, 0.10, true, "PAI workload tag; as dssm"},
	{"graphlearn", 8, 3, 24, 0.10, true, "PAI workload tag; CPU-bound graph sampling (assumed)"},
}

// DefaultProfile is used for jobs whose model is empty or unknown (most PAI
// jobs): the medians of the table above. (Whatever the profile, the
// simulator takes C_J from an instance's CPU request when it has one.)
var DefaultProfile = ModelProfile{Name: "", CPU: 0, PCIeGbps: 8, GradientMB: 100, IterS: 0.25, Known: false, Source: "median of Profiles; C_J = CPU request"}

var profileIndex = func() map[string]int {
	m := make(map[string]int, len(Profiles))
	for i, p := range Profiles {
		m[p.Name] = i
	}
	return m
}()

// ProfileOf returns the profile for a trace's model name. Matching ignores
// case, a trailing "(batch size N)" and the difference between spaces,
// underscores and hyphens. Unknown names get DefaultProfile.
func ProfileOf(model string) ModelProfile {
	if i, ok := profileIndex[normModel(model)]; ok {
		return Profiles[i]
	}
	return DefaultProfile
}

// MARLModels are the eight model types of the MARL paper's Table I, in the
// table's order: the list the synthetic MARL workloads draw from
// (datasets.MARLModels), whose profiles are here.
var MARLModels = datasets.MARLModels

var modelSep = strings.NewReplacer(" ", "-", "_", "-")

func normModel(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.Index(s, "("); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return modelSep.Replace(s)
}
