package http1

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"

	"github.com/loadlab/loadlab/internal/httpsyntax"
)

// statusCode returns the code of a status line ("HTTP/1.x NNN reason"),
// or -1 when the line is not one.
func statusCode(line []byte) int {
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || line[7] < '0' || line[7] > '9' || line[8] != ' ' {
		return -1
	}
	// The code ends the line, or a space follows it.
	if len(line) > 12 && line[12] != ' ' && line[12] != '\n' && (line[12] != '\r' || len(line) != 14) {
		return -1
	}
	code := 0
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return -1
		}
		code = code*10 + int(c-'0')
	}
	return code
}

// respFields is what the lean client takes from an answer's fields.
type respFields struct {
	follow   bool  // keep Location
	length   int64 // Content-Length, -1 when none
	lenText  [18]byte
	lenSize  int  // bytes of lenText used; 0: no Content-Length yet
	codings  int  // Transfer-Encoding fields
	chunked  bool // the (one) Transfer-Encoding is "chunked"
	close    bool // Connection holds "close"
	upgrade  int  // bit 1: Connection holds "upgrade"; bit 2: an Upgrade field came (both: a protocol switch)
	location []byte
	encoding int    // the first Content-Encoding: 0 none, 1 gzip, 2 another (net/http reads the first)
	keep     bool   // keep every field in fields (Session.KeepFields)
	fields   []byte // "Name: value\n" lines, with keep
}

// uses reports whether the reader uses the field named k (nil: none).
func (h *respFields) uses(k []byte) bool {
	if h == nil {
		return false
	}
	return bytes.EqualFold(k, []byte("Content-Length")) || bytes.EqualFold(k, []byte("Transfer-Encoding")) ||
		bytes.EqualFold(k, []byte("Connection")) || bytes.EqualFold(k, []byte("Upgrade")) ||
		bytes.EqualFold(k, []byte("Content-Encoding")) ||
		(h.follow && bytes.EqualFold(k, []byte("Location")))
}

// set takes the value v of a field the reader uses.
func (h *respFields) set(k, v []byte) error {
	switch {
	case bytes.EqualFold(k, []byte("Content-Length")):
		// As net/http: several fields only with the same text.
		if h.lenSize > 0 {
			if !bytes.Equal(v, h.lenText[:h.lenSize]) {
				return fmt.Errorf("message cannot contain multiple Content-Length headers")
			}
			return nil
		}
		n, ok := httpsyntax.ContentLength(v)
		if !ok {
			return fmt.Errorf("bad Content-Length %q", v)
		}
		h.length, h.lenSize = n, copy(h.lenText[:], v)
	case bytes.EqualFold(k, []byte("Transfer-Encoding")):
		h.codings++
		h.chunked = bytes.EqualFold(v, []byte("chunked"))
	case bytes.EqualFold(k, []byte("Connection")):
		for tok := range bytes.SplitSeq(v, []byte(",")) {
			tok = httpsyntax.TrimOWS(tok)
			if bytes.EqualFold(tok, []byte("close")) {
				h.close = true
			} else if bytes.EqualFold(tok, []byte("upgrade")) {
				h.upgrade |= 1
			}
		}
	case bytes.EqualFold(k, []byte("Upgrade")):
		h.upgrade |= 2
	case bytes.EqualFold(k, []byte("Content-Encoding")):
		if h.encoding == 0 {
			h.encoding = 2
			if bytes.EqualFold(v, []byte("gzip")) {
				h.encoding = 1
			}
		}
	default: // Location
		h.location = append(h.location[:0], v...)
	}
	return nil
}

// readFields reads an answer's fields up to the empty line, checking
// their syntax as net/http does, within budget bytes of head. With h it
// also takes the fields the reader uses (1xx answers and trailers: nil).
// A folded line (obs-fold) continuing a field the reader uses is refused.
func readFields(br *bufio.Reader, budget *int, h *respFields) error {
	if h != nil {
		h.length = -1
	}
	first, usedPrev := true, false
	for {
		line, err := br.ReadSlice('\n')
		if *budget -= len(line); *budget < 0 {
			return errHeadTooLarge
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			if err := skipLongField(br, line, h.uses, budget); err != nil {
				return err
			}
			first, usedPrev = false, false
			continue
		}
		if err != nil {
			return err
		}
		line = trimEOL(line)
		if len(line) == 0 {
			return nil
		}
		if line[0] == ' ' || line[0] == '\t' { // obs-fold
			if first || usedPrev || !httpsyntax.FieldValue(line) {
				return errMalformedField
			}
			continue
		}
		first = false
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok || !httpsyntax.Token(k) || !httpsyntax.FieldValue(v) {
			return errMalformedField
		}
		if h != nil && h.keep {
			h.fields = append(append(append(append(h.fields, k...), ':', ' '), httpsyntax.TrimOWS(v)...), '\n')
		}
		usedPrev = h.uses(k)
		if usedPrev {
			if err := h.set(k, httpsyntax.TrimOWS(v)); err != nil {
				return err
			}
		}
	}
}
