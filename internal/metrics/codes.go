package metrics

// codeTally counts the first few distinct status codes of a run in fixed
// slots before they reach the StatusCodes map: a run has a handful of
// codes, and a map assignment per result was a quarter of a report's time.
// Codes beyond the slots go to the map directly.
type codeTally struct {
	n     int
	code  [8]uint16
	count [8]uint64
}

// add counts one response with status code c.
func (t *codeTally) add(c uint16, overflow map[uint16]uint64) {
	for i := 0; i < t.n; i++ {
		if t.code[i] == c {
			t.count[i]++
			return
		}
	}
	if t.n < len(t.code) {
		t.code[t.n], t.count[t.n] = c, 1
		t.n++
		return
	}
	overflow[c]++
}

// fold moves the slots' counts into m and empties them.
func (t *codeTally) fold(m map[uint16]uint64) {
	for i := 0; i < t.n; i++ {
		m[t.code[i]] += t.count[i]
	}
	t.n = 0
}
