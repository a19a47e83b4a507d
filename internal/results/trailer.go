package results

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"strings"
)

// trailerPrefix opens the trailer's entry. The trailer is written as the
// stream's last block: a block of no records whose dictionary holds one
// error entry, this prefix and the trailer's JSON, which no record refers
// to. A reader that knows no trailer (every loadlab before it) reads the
// block as an unused dictionary entry and the stream as before; no real
// error text starts with a NUL byte.
const trailerPrefix = "\x00loadlab-trailer\x00"

// maxTrailer is the longest trailer written or read.
const maxTrailer = 64 << 10

// Trailer is what a stream's writer knew only once the results were
// written: what the machine did to the attack while it ran (a
// runblock.Health as JSON, kept raw here: package results does not
// interpret it). Version says its layout.
type Trailer struct {
	Version int             `json:"version"`
	Health  json.RawMessage `json:"health,omitempty"`
}

// TrailerVersion is the Trailer layout written.
const TrailerVersion = 1

// WriteTrailer flushes the pending records and writes t as the stream's
// last block; call Close after it. A stream has at most one trailer.
func (w *Writer) WriteTrailer(t Trailer) error {
	if err := w.Flush(); err != nil {
		return err
	}
	t.Version = TrailerVersion
	js, err := json.Marshal(t)
	if err != nil {
		return err
	}
	if len(js) > maxTrailer {
		return errors.New("results: trailer too long")
	}
	// the entry's id: the next free error id (the last one when the
	// dictionary is full: no record follows to be misread)
	id := min(len(w.errs.vals), maxErrors-1)
	payload := binary.AppendUvarint(w.payload[:0], 1)
	payload = append(payload, dictError)
	payload = binary.AppendUvarint(payload, uint64(id))
	payload = appendBytes(payload, append([]byte(trailerPrefix), js...))
	w.payload = payload
	out := append(w.out[:0], syncMarker...)
	lenStart := len(out)
	z := w.enc.EncodeAll(payload, w.z[:0])
	w.z = z
	out = binary.AppendUvarint(out, uint64(len(z)))
	out = binary.AppendUvarint(out, uint64(len(payload)))
	out = binary.AppendUvarint(out, 0)
	crc := crc32.Update(crc32.Checksum(out[lenStart:], castagnoli), castagnoli, z)
	out = binary.LittleEndian.AppendUint32(out, crc)
	out = append(out, z...)
	w.out = out
	n, err := w.w.Write(out)
	w.written += int64(n)
	if err != nil {
		w.err = err
	}
	return err
}

// trailerEntry reads an error entry's text as a trailer; ok is false for
// a real error text.
func trailerEntry(s []byte) (t *Trailer, ok bool) {
	rest, found := strings.CutPrefix(string(s), trailerPrefix)
	if !found {
		return nil, false
	}
	var tr Trailer
	if len(rest) > maxTrailer || json.Unmarshal([]byte(rest), &tr) != nil || tr.Version < 1 {
		return nil, true // a trailer of a layout this loadlab cannot read: none
	}
	return &tr, true
}

// Trailer is the stream's trailer once Decode returned io.EOF; nil for a
// stream without one (written before loadlab wrote them, by an attack
// that was killed, or not by an attack).
func (r *Reader) Trailer() *Trailer { return r.trailer }

// Trailer is a loadlab stream's trailer once it was read to its end (see
// Reader.Trailer); nil for other formats.
func (s *Source) Trailer() *Trailer {
	if rd, ok := s.dec.(*Reader); ok {
		return rd.Trailer()
	}
	return nil
}
