package evaluation

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// TestSectionIsAValue: a section set through its handle is read back, a
// copy of the Config keeps its own value when the other changes, and an
// unset section reads as its zero value.
func TestSectionIsAValue(t *testing.T) {
	var c Config
	if got := SensitivitySection.Get(&c); !reflect.DeepEqual(got, SensitivityConfig{}) {
		t.Errorf("unset: %+v, want the zero value", got)
	}
	SensitivitySection.Set(&c, SensitivityConfig{Parts: []string{SensitivityDAS}})
	d := c
	SensitivitySection.Edit(&d, func(s *SensitivityConfig) { s.Parts = []string{SensitivityMARLDevice} })
	CalibrationSection.Set(&d, CalibrationConfig{DAS: true})
	if got := SensitivitySection.Get(&c).Parts; !slices.Equal(got, []string{SensitivityDAS}) {
		t.Errorf("the original's parts became %v through a copy", got)
	}
	if CalibrationSection.Get(&c).DAS {
		t.Error("a section set on a copy reached the original")
	}
	if got := SensitivitySection.Get(&d).Parts; !slices.Equal(got, []string{SensitivityMARLDevice}) {
		t.Errorf("the copy's parts: %v", got)
	}
}

// TestConfigJSON: Config's JSON holds its keys in hashOrder (the order of
// the configuration hash, which must not move), registered sections
// included, and reads back into the same value over another.
func TestConfigJSON(t *testing.T) {
	var c Config
	c.Experiments, c.Seeds = []string{Sensitivity}, 3
	DASTable1Section.Edit(&c, func(s *DASTable1Config) { s.MaxJobs = 7 })
	SensitivitySection.Set(&c, SensitivityConfig{Parts: []string{SensitivityDAS}, CommScales: []float64{0.5}})
	CalibrationSection.Set(&c, CalibrationConfig{DAS: true})
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var keys []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch tok := tok.(type) {
		case json.Delim:
			if tok == '{' || tok == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 && dec.More() {
				keys = append(keys, tok)
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if !slices.Equal(keys, hashOrder) {
		t.Errorf("keys %v, want %v", keys, hashOrder)
	}
	var back Config
	SensitivitySection.Set(&back, SensitivityConfig{Parts: []string{"x"}, InterferenceScales: []float64{9}})
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, err := json.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, b2) {
		t.Errorf("read back as\n%s\nwant\n%s", b2, b)
	}
}
