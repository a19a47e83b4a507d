package results

import (
	"errors"
	"io"
)

// Policy says what reading does when it meets a damaged part of a file:
// a corrupt or torn block of a loadlab stream, or a vegeta file cut short.
type Policy int

const (
	// Strict makes damage an error: `loadlab report` exits 2 on it, since a
	// report that silently left results out would misstate the run.
	Strict Policy = iota
	// KeepBefore keeps the results read before the damage and reports the
	// damage for a warning: `plot`, `compare` and a run's write-up draw
	// what is there and say what is missing.
	KeepBefore
)

// ReadAll adds every result src yields to sink, in order, and returns how
// many it added. Damage (a *CorruptError, or io.ErrUnexpectedEOF from a
// file cut short) ends the reading: under Strict it is returned as err;
// under KeepBefore it is returned as damage, with err nil. Any other
// failure is err under both.
func ReadAll(src Decoder, sink Sink, policy Policy) (n int, damage, err error) {
	var r Result
	for {
		e := src.Decode(&r)
		switch {
		case e == nil:
			sink.Add(&r)
			n++
			continue
		case errors.Is(e, io.EOF):
			return n, nil, nil
		case errors.Is(e, ErrCorrupt) || errors.Is(e, io.ErrUnexpectedEOF):
			if policy == KeepBefore {
				return n, e, nil
			}
		}
		return n, nil, e
	}
}
