package evaluation_test

import (
	"fmt"

	"github.com/schedlab/schedlab/evaluation"
)

// Darwin's Zea mays data (Fisher 1935): height differences of 15 pairs of
// cross- and self-fertilised plants, in eighths of an inch.
func ExampleWilcoxonSignedRank() {
	cross := []float64{6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75}
	self := make([]float64, len(cross))
	w, err := evaluation.WilcoxonSignedRank(cross, self)
	if err != nil {
		panic(err)
	}
	fmt.Printf("n=%d W+=%g W-=%g exact=%v p=%.4f\n", w.N, w.WPlus, w.WMinus, w.Exact, w.P)
	// Output: n=15 W+=96 W-=24 exact=true p=0.0413
}

func ExampleDefaultSpec() {
	s, err := evaluation.DefaultSpec(evaluation.DASTable1)
	if err != nil {
		panic(err)
	}
	s.Schedulers = []string{"FIFO-FF", "tetris"} // aliases are accepted
	fmt.Println(s.Validate(), len(s.Clusters), s.Workloads[0].MaxJobs, s.Workloads[0].TestFraction)
	// Output: <nil> 3 20000 0.2
}
