package sim

import "testing"

// TestArena checks that slices from one chunk are capped (an append to
// one leaves its neighbour alone), zeroed, and that a request larger than
// a quarter chunk gets a slice of its own.
func TestArena(t *testing.T) {
	var a arena[int]
	x := a.clone([]int{1, 2, 3})
	y := a.take(2)
	if cap(x) != 3 || len(y) != 2 || y[0] != 0 || y[1] != 0 {
		t.Fatalf("x = %v (cap %d), y = %v", x, cap(x), y)
	}
	x = append(x, 9)
	if y[0] != 0 {
		t.Fatalf("an append to x reached y: %v", y)
	}
	if a.clone(nil) != nil {
		t.Fatal("clone of nothing is not nil")
	}
	big := a.take(arenaChunk)
	if len(big) != arenaChunk || len(a.buf) != 5 {
		t.Fatalf("a large request took %d elements and left the chunk at %d", len(big), len(a.buf))
	}
	for i := 0; i < 3*arenaChunk; i++ {
		if s := a.take(3); len(s) != 3 || cap(s) != 3 || s[0]|s[1]|s[2] != 0 {
			t.Fatalf("take %d: %v (cap %d)", i, s, cap(s))
		}
	}
}
