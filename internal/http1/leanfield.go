package http1

import (
	"bufio"
	"bytes"
	"errors"

	"github.com/loadlab/loadlab/internal/httpsyntax"
)

// The syntax checks of the lean client's response reader, as net/http's
// (net/textproto and net/http/internal): header field names are tokens,
// values hold no control byte but tab, lengths are decimal digits, chunk
// lines end in CRLF and chunk sizes are hex digits.

// maxResponseHead bounds the status lines and fields of one answer (1xx
// answers and trailers included), as net/http's Transport's default
// MaxResponseHeaderBytes.
const maxResponseHead = 10 << 20

// maxChunkLine bounds a chunk-size line, as net/http.
const maxChunkLine = 4096

var (
	errMalformedField = errors.New("malformed MIME header line")
	errHeadTooLarge   = errors.New("server response headers exceeded 10 MiB")
	errChunkLine      = errors.New("malformed chunked encoding")
	errChunkExcess    = errors.New("chunked encoding contains too much non-data")
)

// trimEOL removes the line's LF and the CR before it, if any.
func trimEOL(b []byte) []byte {
	b = b[:len(b)-1]
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b
}

// readChunkLine reads a chunk-size line: it must end in CRLF, hold no
// other CR and be shorter than maxChunkLine.
func readChunkLine(br *bufio.Reader) ([]byte, error) {
	p, err := br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, errChunkLine
		}
		return nil, err
	}
	if i := bytes.IndexByte(p, '\r'); len(p) < 2 || i != len(p)-2 {
		return nil, errChunkLine
	}
	p = p[:len(p)-2]
	if len(p) >= maxChunkLine {
		return nil, errChunkLine
	}
	return p, nil
}

// skipLongField reads the rest of a field line longer than the reader's
// buffer, whose start is first, checking its syntax. Such a field must
// not be one the reader uses (isUsed): those fit in the buffer.
func skipLongField(br *bufio.Reader, first []byte, isUsed func([]byte) bool, budget *int) error {
	k, v, ok := bytes.Cut(first, []byte(":"))
	if !ok || !httpsyntax.Token(k) || isUsed(k) {
		return errMalformedField
	}
	cr := false // a CR may only come right before the final LF
	check := func(b []byte) bool {
		for _, c := range b {
			if cr {
				return false
			}
			if c == '\r' {
				cr = true
			} else if c < ' ' && c != '\t' || c == 0x7f {
				return false
			}
		}
		return true
	}
	if !check(v) {
		return errMalformedField
	}
	for {
		p, err := br.ReadSlice('\n')
		if *budget -= len(p); *budget < 0 {
			return errHeadTooLarge
		}
		switch {
		case err == nil:
			if !check(p[:len(p)-1]) {
				return errMalformedField
			}
			return nil
		case errors.Is(err, bufio.ErrBufferFull):
			if !check(p) {
				return errMalformedField
			}
		default:
			return err
		}
	}
}
