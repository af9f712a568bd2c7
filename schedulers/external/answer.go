package external

// The answer to a decide message is parsed by hand: it is half of every
// decision's cost on the Go side when encoding/json does it (reflection,
// a Decoder per decision for the unknown-key check). parseDecisions reads
// the common form and gives up (ok false) on anything else, which the
// strict encoding/json path then reads or refuses with its message; so
// the fast path accepts nothing the strict one refuses, and errors read
// the same whichever path saw the line.

// fastAnswer is what parseDecisions read: the answer's type and seq, and
// per decision its parsed form and its text (for errors).
type fastAnswer struct {
	typ  []byte
	seq  int
	ds   []decision
	text [][]byte
	ints []int // the jobs, servers and sockets of ds, carved from here
}

// parseDecisions reads line, an answer in the form
// {"type":"decisions","seq":N,"decisions":[{"op":"start","job":J,"servers":[..],"sockets":[..]}, ...]}
// with its keys in any order, each at most once, and JSON whitespace
// anywhere. Strings with escapes, numbers that are not small integers,
// null, other keys: ok false.
func (a *fastAnswer) parse(line []byte) (ok bool) {
	sc := scanner{b: line}
	if a.ints == nil {
		a.ints = make([]int, 0, 64) // an empty list must not be nil
	}
	a.typ, a.seq, a.ds, a.text, a.ints = nil, 0, a.ds[:0], a.text[:0], a.ints[:0]
	var seen [3]bool
	ok = sc.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			if seen[0] {
				return false
			}
			seen[0] = true
			var good bool
			a.typ, good = sc.str()
			return good
		case "seq":
			if seen[1] {
				return false
			}
			seen[1] = true
			var good bool
			a.seq, good = sc.int()
			return good
		case "decisions":
			if seen[2] {
				return false
			}
			seen[2] = true
			return sc.array(func() bool { return a.decision(&sc) })
		}
		return false
	})
	if !ok || !seen[1] {
		return false
	}
	sc.space()
	return sc.i == len(sc.b)
}

func (a *fastAnswer) decision(sc *scanner) bool {
	sc.space()
	from := sc.i
	var d decision
	var seen [4]bool
	ok := sc.object(func(key []byte) bool {
		switch string(key) {
		case "op":
			if seen[0] {
				return false
			}
			seen[0] = true
			op, good := sc.str()
			switch string(op) {
			case "start":
				d.Op = "start"
			case "preempt":
				d.Op = "preempt"
			default:
				return false
			}
			return good
		case "job":
			if seen[1] {
				return false
			}
			seen[1] = true
			j, good := sc.int()
			// Carved like the lists: a pointer into a.ints outlives
			// a later append's move (the old array stays), not the
			// next answer, which validate no longer reads.
			a.ints = append(a.ints, j)
			d.Job = &a.ints[len(a.ints)-1]
			return good
		case "servers":
			if seen[2] {
				return false
			}
			seen[2] = true
			var good bool
			d.Servers, good = a.intList(sc)
			return good
		case "sockets":
			if seen[3] {
				return false
			}
			seen[3] = true
			var good bool
			d.Sockets, good = a.intList(sc)
			return good
		}
		return false
	})
	if !ok {
		return false
	}
	a.ds = append(a.ds, d)
	a.text = append(a.text, sc.b[from:sc.i])
	return true
}

// intList reads an array of integers; an empty one is an empty, not nil,
// slice, as encoding/json makes it.
func (a *fastAnswer) intList(sc *scanner) ([]int, bool) {
	k := len(a.ints)
	ok := sc.array(func() bool {
		x, good := sc.int()
		a.ints = append(a.ints, x)
		return good
	})
	// Full slice expression: a later append must not write into it.
	return a.ints[k:len(a.ints):len(a.ints)], ok
}

// scanner reads JSON from b at i.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) byte(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// object reads {"key": value, ...}, value by value through member.
func (s *scanner) object(member func(key []byte) bool) bool {
	if !s.byte('{') {
		return false
	}
	if s.byte('}') {
		return true
	}
	for {
		key, ok := s.str()
		if !ok || !s.byte(':') || !member(key) {
			return false
		}
		if s.byte('}') {
			return true
		}
		if !s.byte(',') {
			return false
		}
	}
}

// array reads [value, ...], value by value through elem.
func (s *scanner) array(elem func() bool) bool {
	if !s.byte('[') {
		return false
	}
	if s.byte(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if s.byte(']') {
			return true
		}
		if !s.byte(',') {
			return false
		}
	}
}

// str reads a string of printable ASCII without escapes.
func (s *scanner) str() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	from := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[from : s.i-1], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// int reads an integer of at most 15 digits, in JSON's form (no leading
// zeros, no plus sign).
func (s *scanner) int() (int, bool) {
	s.space()
	neg := s.i < len(s.b) && s.b[s.i] == '-'
	if neg {
		s.i++
	}
	from := s.i
	x := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		x = 10*x + int(s.b[s.i]-'0')
		s.i++
	}
	n := s.i - from
	if n == 0 || n > 15 || (n > 1 && s.b[from] == '0') {
		return 0, false
	}
	// A fraction or an exponent: not an int.
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, false
	}
	if neg {
		x = -x
	}
	return x, true
}
