package external_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/schedlab/schedlab/schedulers/external"
	"github.com/schedlab/schedlab/sim"
)

// TestCompactMessages runs one scenario against a policy that answers
// protocol 2 and one that answers 3: every message of version 3 must say
// what version 2's says, its arrivals and finishes as arrays and its empty
// lists left out, and version 2's must keep every list.
func TestCompactMessages(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Speed = sim.SpeedStandalone
	cfg.SkipFloor = true
	jobs := protocolJobs(40)
	for i := range jobs {
		if i%3 == 0 {
			jobs[i].User, jobs[i].Model = "u\"1", "resnet"
		}
		if i%4 == 1 {
			jobs[i].Tasks[0].GPU = 0.5 // a fraction in the free resources
		}
	}
	logs := map[int][][]byte{}
	for _, v := range []int{2, external.Protocol} {
		peer := echoPolicy{version: v, keep: true}
		p, err := external.NewConn(context.Background(), external.Config{Name: "go", Oracle: true}, &peer, &peer)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sim.Run(context.Background(), flat(t, 1), jobs, p, cfg, nil); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		logs[v] = peer.log
	}
	old, compact := logs[2], logs[external.Protocol]
	if len(old) != len(compact) || len(old) < 40 {
		t.Fatalf("%d messages in version 2, %d in version 3", len(old), len(compact))
	}
	for i := range old {
		var want, got map[string]any
		if err := json.Unmarshal(old[i], &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(compact[i], &got); err != nil {
			t.Fatal(err)
		}
		if want["type"] == "decide" {
			for _, k := range []string{"arrived", "finished", "free"} {
				if _, ok := want[k]; !ok {
					t.Fatalf("version 2 message %d has no %q: %s", i, k, old[i])
				}
				if l, ok := got[k].([]any); ok && len(l) == 0 {
					t.Fatalf("version 3 message %d keeps an empty %q: %s", i, k, compact[i])
				}
			}
		}
		if want["type"] == "hello" {
			want["protocol"] = float64(external.Protocol)
		}
		if got["type"] != "hello" {
			got = asVersion2(t, got)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("message %d:\nversion 2 %s\nversion 3 %s", i, old[i], compact[i])
		}
	}
}

// asVersion2 rewrites a decoded version-3 message in version 2's form.
func asVersion2(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	if m["type"] != "decide" {
		return m
	}
	for _, k := range []string{"arrived", "finished", "free"} {
		if _, ok := m[k]; !ok {
			m[k] = []any{}
		}
	}
	for i, a := range m["arrived"].([]any) {
		a := a.([]any)
		if len(a) != 7 {
			t.Fatalf("arrival %v: want 7 fields in an oracle row", a)
		}
		var tasks []any
		for _, x := range a[3].([]any) {
			x := x.([]any)
			tasks = append(tasks, map[string]any{"role": x[0], "instances": x[1], "gpu": x[2], "cpu": x[3], "mem_gib": x[4]})
		}
		o := map[string]any{"job": a[0], "id": a[1], "submit": a[2], "tasks": tasks, "duration": a[6]}
		if a[4] != "" {
			o["user"] = a[4]
		}
		if a[5] != "" {
			o["model"] = a[5]
		}
		m["arrived"].([]any)[i] = o
	}
	for i, f := range m["finished"].([]any) {
		f := f.([]any)
		m["finished"].([]any)[i] = map[string]any{"job": f[0], "finish": f[1]}
	}
	return m
}
