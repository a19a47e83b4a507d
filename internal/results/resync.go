package results

import (
	"bytes"
	"errors"
)

// skip handles a damaged block when resynchronising: it records the
// damage, finds the next sync marker (first inside the damaged block's own
// bytes, which may hold the start of the next block, then further on) and
// reports true when reading can go on from it. A torn tail (the stream
// ends inside the block) or a version 1 stream is not skipped.
func (r *Reader) skip(err error) bool {
	var ce *CorruptError
	if !r.resync || r.version < 2 || !errors.As(err, &ce) || ce.Hostile || ce.Torn && !r.markerAhead() {
		return false
	}
	start := r.blockAt
	d := Damage{Offset: start, Lost: -1, Reason: ce.Reason}
	if r.blockCount > 0 && r.blockCount <= blockMaxRecords {
		d.Lost = int64(r.blockCount)
	}
	if r.left > 0 {
		d.Lost = int64(r.left) // the records of the block not yet returned
	}
	r.left, r.block, r.pos = 0, r.block[:0], 0
	// The damaged block's bytes past its own marker may hold the next
	// block: give them back from the first marker on.
	consumed := append([]byte(nil), r.consumed...)
	if i := bytes.Index(consumed[min(1, len(consumed)):], []byte(syncMarker)); i >= 0 {
		i++
		r.src.unread(consumed[i:])
		d.Bytes = int64(i)
		r.damage = append(r.damage, d)
		return true
	}
	// Else scan the input for the next marker.
	// Else scan the input for the next marker; at the end of the input the
	// damaged block was the last one, and reading ends cleanly after it.
	skipped := int64(len(consumed))
	r.scanToMarker(&skipped)
	d.Bytes = skipped
	d.AtLeast = d.Lost >= 0 && (r.blockEnd == 0 || start+skipped > r.blockEnd)
	r.damage = append(r.damage, d)
	return true
}

// scanToMarker reads until the sync marker and gives it back; false at the
// end of the input.
func (r *Reader) scanToMarker(skipped *int64) bool {
	m := []byte(syncMarker)
	matched := 0
	for {
		b, err := r.src.ReadByte()
		if err != nil {
			return false
		}
		*skipped++
		switch {
		case b == m[matched]:
			matched++
		case b == m[0]:
			matched = 1
		default:
			matched = 0
		}
		if matched == len(m) {
			*skipped -= int64(len(m))
			r.src.unread(m)
			return true
		}
	}
}

// markerAhead reports whether a torn block is in fact followed by more
// blocks: its bytes hold another sync marker (a writer that crashed and
// was restarted appends a fresh block after the torn one).
func (r *Reader) markerAhead() bool {
	return len(r.consumed) > 1 && bytes.Contains(r.consumed[1:], []byte(syncMarker))
}
