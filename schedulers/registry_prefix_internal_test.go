package schedulers

import (
	"fmt"
	"testing"
)

// TestResolveLongestPrefix: when two registered prefixes both match a
// name, the longer one resolves it, whatever the map's order; a name that
// only the shorter matches goes to the shorter.
func TestResolveLongestPrefix(t *testing.T) {
	resolver := func(tag string) Resolver {
		return func(n Name) (Info, Constructor, error) {
			return Info{Name: Name(tag + "|" + string(n))}, nil, nil
		}
	}
	// Several overlapping prefixes, so that a map walk that kept the last
	// match would pick a shorter one in some orders.
	ps := []string{"zz-test:", "zz-test:a:", "zz-test:a:b:", "zz-test:a:b:c:"}
	for _, p := range ps {
		RegisterPrefix(p, resolver(p))
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range ps {
			delete(prefixes, p)
		}
	})
	for _, tc := range []struct{ name, want string }{
		{"zz-test:x", "zz-test:"},
		{"zz-test:a:x", "zz-test:a:"},
		{"zz-test:a:b:x", "zz-test:a:b:"},
		{"ZZ-test:a:b:c:x", "zz-test:a:b:c:"},
	} {
		// Map iteration order changes from walk to walk: ask many times.
		for range 50 {
			e, err := resolve(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(e.info.Name), fmt.Sprintf("%s|%s", tc.want, normalise(tc.name)); got != want {
				t.Fatalf("resolve(%q) = %q, want %q", tc.name, got, want)
			}
		}
	}
}
