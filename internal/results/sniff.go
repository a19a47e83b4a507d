package results

import (
	"bytes"
	"io"
)

// SniffStream reads the opening bytes of r and reports whether they are a
// loadlab stream's magic. The returned reader gives back those bytes and
// then the rest of r, so it can be handed to NewReader either way; ok is
// false too when r ends (or fails) before the magic is complete.
func SniffStream(r io.Reader) (rest io.Reader, ok bool) {
	head := make([]byte, len(magic))
	n, err := io.ReadFull(r, head)
	rest = io.MultiReader(bytes.NewReader(head[:n]), r)
	return rest, err == nil && IsStream(head)
}
