package results

import (
	"errors"
	"fmt"
	"io"
)

// Policy says what reading does when it meets a damaged part of a file:
// a corrupt or torn block of a loadlab stream, or a vegeta file cut short.
type Policy int

const (
	// Strict makes damage an error: `loadlab report` exits 2 on it, since a
	// report that silently left results out would misstate the run.
	Strict Policy = iota
	// KeepBefore keeps every result it can read and reports the damage for
	// a warning: `plot`, `compare` and a run's write-up draw what is there
	// and say what is missing. A loadlab stream (version 2) is read past
	// damaged blocks to the next good one; anything else stops at the
	// damage.
	KeepBefore
)

// resyncer is a decoder that can skip damaged blocks.
type resyncer interface {
	Resync(on bool)
	Damaged() []Damage
}

// DamagedError lists the regions a resynchronising read skipped.
type DamagedError struct{ Damages []Damage }

// Error summarises the damage.
func (e *DamagedError) Error() string {
	var lost int64
	unknown := false
	for _, d := range e.Damages {
		if d.Lost < 0 {
			unknown = true
		} else {
			lost += d.Lost
		}
	}
	s := fmt.Sprintf("%d damaged regions skipped (the first: %s); %d results lost", len(e.Damages), e.Damages[0], lost)
	if unknown {
		s += ", and more in blocks whose headers were unreadable"
	}
	return s
}

// Unwrap makes errors.Is(err, ErrCorrupt) true.
func (e *DamagedError) Unwrap() error { return ErrCorrupt }

// ReadAll adds every result src yields to sink, in order, and returns how
// many it added. Damage (a *CorruptError, or io.ErrUnexpectedEOF from a
// file cut short) ends the reading: under Strict it is returned as err;
// under KeepBefore it is returned as damage, with err nil. Any other
// failure is err under both.
func ReadAll(src Decoder, sink Sink, policy Policy) (n int, damage, err error) {
	rs, canResync := src.(resyncer)
	if canResync && policy == KeepBefore {
		rs.Resync(true)
	}
	var r Result
	for {
		e := src.Decode(&r)
		switch {
		case e == nil:
			sink.Add(&r)
			n++
			continue
		case errors.Is(e, io.EOF):
			if canResync && len(rs.Damaged()) > 0 {
				return n, &DamagedError{Damages: rs.Damaged()}, nil
			}
			return n, nil, nil
		case errors.Is(e, ErrCorrupt) || errors.Is(e, io.ErrUnexpectedEOF):
			if policy == KeepBefore {
				return n, e, nil
			}
		}
		return n, nil, e
	}
}
