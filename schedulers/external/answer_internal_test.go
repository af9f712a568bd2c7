package external

import (
	"reflect"
	"testing"
)

// answerLines are answers in and around the form parseDecisions reads.
var answerLines = []string{
	`{"type":"decisions","seq":3,"decisions":[]}`,
	`{"type":"decisions","seq":3,"decisions":[{"op":"start","job":0,"servers":[0]}]}`,
	`{"type":"decisions","seq":3,"decisions":[{"op":"start","job":12,"servers":[1,2,3],"sockets":[0,-1,1]},{"op":"preempt","job":4}]}`,
	` { "decisions" : [ { "servers" : [ 0 ] , "job" : 1 , "op" : "start" } ] , "seq" : 3 , "type" : "decisions" } ` + "\r\n",
	`{"type":"decisions","seq":3,"decisions":[{"op":"start","job":1,"servers":[],"sockets":[]}]}`,
	`{"type":"decisions","seq":3,"decisions":[{}]}`,
	`{"type":"decisions","seq":3,"decisions":[{"op":"start","servers":[0]}]}`,
	// Outside the fast form: the strict path reads or refuses them.
	`{"type":"decisions","seq":3,"decisions":[{"op":"start","job":1.0,"servers":[0]}]}`,
	`{"type":"decisions","seq":3,"decisions":[{"op":"start","job":01,"servers":[0]}]}`,
	`{"type":"decisions","seq":3,"decisions":[{"op":"stop","job":1,"servers":[0]}]}`,
	`{"type":"decisions","seq":3,"decisions":[{"op":"start","job":1,"servers":[0],"extra":1}]}`,
	`{"type":"decisions","seq":3,"decisions":null}`,
	`{"type":"decisions","seq":3,"seq":4,"decisions":[]}`,
	`{"Type":"decisions","seq":3,"decisions":[]}`,
	`{"type":"decisions","seq":3,"decisions":[]} x`,
	`{"type":"decisions","seq":3,"decisions":[{"op":"st\u0061rt","job":1,"servers":[0]}]}`,
	`{"type":"decisions","seq":3,"decisions":[{"op":"start","job":1e0,"servers":[0]}]}`,
	`{"type":"decisions","seq":3,"decisions":[{"op":"start","job":1234567890123456,"servers":[0]}]}`,
	`{"type":"decisions","seq":3,"decisions":[{"op":"start","job":1,"servers":[0,]}]}`,
	`{"type":"decisions","seq":3,"decisions":[{"op":"start","job":-0,"servers":[-1]}]}`,
	`{"type":"decisions","seq":3,"decisions":[`,
	`{"type":"error","seq":3,"message":"boom"}`,
	`{"type":"decisions"}`,
	``,
}

// TestFastAnswerAgrees: wherever the hand-written parser reads an answer,
// encoding/json's strict decoding reads the same type, seq and decisions
// (the fast path accepts nothing the strict one refuses); and the common
// forms do take the fast path.
func TestFastAnswerAgrees(t *testing.T) {
	fastOnes := 0
	for _, line := range answerLines {
		agree(t, []byte(line))
		var f fastAnswer
		if f.parse([]byte(line)) {
			fastOnes++
		}
	}
	if fastOnes < 7 {
		t.Errorf("%d of the lines took the fast path, want the first 7 at least", fastOnes)
	}
}

func FuzzFastAnswer(f *testing.F) {
	for _, line := range answerLines {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) { agree(t, line) })
}

func agree(t *testing.T, line []byte) {
	t.Helper()
	var f fastAnswer
	if !f.parse(line) {
		return
	}
	var a answer
	if err := decodeStrict(line, &a); err != nil {
		t.Fatalf("%q: the fast path read it, the strict one says %v", line, err)
	}
	if a.Type != string(f.typ) || a.Seq == nil || *a.Seq != f.seq || len(a.Decisions) != len(f.ds) {
		t.Fatalf("%q: strict reads type %q, seq %v, %d decisions; fast %q, %d, %d", line, a.Type, a.Seq, len(a.Decisions), f.typ, f.seq, len(f.ds))
	}
	for k, raw := range a.Decisions {
		var d decision
		if err := decodeStrict(raw, &d); err != nil {
			t.Fatalf("%q: decision %d: the fast path read it, the strict one says %v", line, k, err)
		}
		if !reflect.DeepEqual(d, f.ds[k]) {
			t.Fatalf("%q: decision %d: strict %+v, fast %+v", line, k, d, f.ds[k])
		}
		if string(raw) != string(f.text[k]) {
			t.Fatalf("%q: decision %d: strict text %q, fast %q", line, k, raw, f.text[k])
		}
	}
}
