package section

import (
	"strings"
	"testing"
)

type alpha struct {
	N int    `mapstructure:"n" yaml:"n" json:"n"`
	S string `mapstructure:"s" yaml:"s" json:"s,omitempty"`
}

type beta struct {
	X float64 `mapstructure:"x" yaml:"x" json:"x"`
}

type holder struct {
	Seeds int `json:"seeds"`
	Set   Set `json:"-"`
}

// TestSetCopyOnWrite: a copy of a Set keeps its values when the original
// changes, and a key never set reads as its type's zero value.
func TestSetCopyOnWrite(t *testing.T) {
	a := New[alpha]("a")
	var s Set
	if got := a.Get(s); got != (alpha{}) {
		t.Fatalf("unset section reads %+v", got)
	}
	s = a.With(s, alpha{N: 1})
	c := s
	a.Edit(&s, func(v *alpha) { v.N = 2 })
	if a.Get(c).N != 1 || a.Get(s).N != 2 {
		t.Errorf("copy %+v, original %+v: want 1 and 2", a.Get(c), a.Get(s))
	}
}

// TestOrderedAndCheck: the encoding puts a section named by order after
// the key before it there and one it does not name last; Check names
// every bad key in full; Value and SetValue round-trip a section.
func TestOrderedAndCheck(t *testing.T) {
	r := NewRegistry("top")
	a := Declare(r, New[alpha]("a"), "test", "n: 0\n", func(v alpha, e *Errs) { e.InRange("n", v.N, 1, 3) })
	b := Declare(r, New[beta]("b"), "test", "x: 0\n", func(v beta, e *Errs) {
		if v.X < 0 {
			e.Addf("x", "must be >= 0, got %v", v.X)
		}
	})
	h := holder{Seeds: 2}
	h.Set = b.With(a.With(h.Set, alpha{N: 5}), beta{X: -1})
	got, err := MarshalJSON(Ordered(struct {
		Seeds int `json:"seeds"`
	}{h.Seeds}, h.Set, r, []string{"a", "seeds"}), "top")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":{"n":5},"seeds":2,"b":{"x":-1}}`; string(got) != want {
		t.Errorf("JSON %s, want %s", got, want)
	}
	err = r.Check(h.Set)
	for _, want := range []string{"top.a.n: must be in [1, 3], got 5", "top.b.x: must be >= 0, got -1"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check: %v, want %q", err, want)
		}
	}
	var back Set
	if err := UnmarshalJSON(got, &back, r, "top"); err != nil {
		t.Fatal(err)
	}
	if a.Get(back).N != 5 || b.Get(back).X != -1 {
		t.Errorf("read back %+v %+v", a.Get(back), b.Get(back))
	}
	p, ok := r.Value(back, "a")
	if !ok {
		t.Fatal("no section a")
	}
	p.(*alpha).N = 3
	r.SetValue(&back, "a", p)
	if a.Get(back).N != 3 || r.Check(back) == nil {
		t.Errorf("SetValue: %+v", a.Get(back))
	}
}
