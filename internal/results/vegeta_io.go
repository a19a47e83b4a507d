package results

import (
	"bufio"
	"io"
)

// newCountingReader wraps r (reusing it when it already is a *bufio.Reader)
// so decoders can report byte offsets. It implements io.ByteReader, which
// stops encoding/gob from adding a buffer of its own and keeps the counts
// exact.
func newCountingReader(r io.Reader) *countingReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &countingReader{r: br}
}

// tailTracker remembers whether its source is exhausted and its last byte,
// so text decoders can tell a record cut short by a crash (the input ends
// inside it, without a final newline) from one damaged in the middle.
type tailTracker struct {
	r    io.Reader
	n    int64
	last byte
	eof  bool
}

func (t *tailTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.n += int64(n)
		t.last = p[n-1]
	}
	if err == io.EOF {
		t.eof = true
	}
	return n, err
}

// cutShort reports whether consumed bytes reach the end of the input and
// the input does not end with a newline.
func (t *tailTracker) cutShort(consumed int64) bool {
	return t.eof && consumed >= t.n && t.n > 0 && t.last != '\n'
}
