package pool

import (
	"io"
	"net/http"

	"github.com/loadlab/loadlab/internal/httpsyntax"
)

// Answer is an upstream answer handed over by RoundTripHead as bytes: its
// head checked in place (plainAnswer), not parsed into a header map.
type Answer struct {
	// Status is the status code (2xx, not 204).
	Status int
	// Fields are the head's field lines, each ending in CRLF, as the
	// upstream sent them (the status line and the blank line left out).
	// They are in the worker's read buffer: valid until Body's first Read.
	Fields []byte
	// Length is the body's length (the one Content-Length field).
	Length int64
	// Body reads the body and, once read and closed, hands the
	// connection back for keep-alive, as a response body.
	Body io.ReadCloser
}

// AcceptFunc says whether a plain answer (status, field lines, body
// length) is handed over as bytes; false: it is read as a response.
type AcceptFunc func(status int, fields []byte, length int64) bool

// plain reads the first bytes of the answer and, when its head is there
// whole and of the plain kind and accept takes it, consumes the head and
// returns it as the worker's Answer. Otherwise it consumes nothing and
// returns nil (with the error reading the first bytes, if one came,
// worded as http.ReadResponse words it).
func (w *Worker) plain(method string, accept AcceptFunc, stop func() bool) (*Answer, error) {
	if _, err := w.br.Peek(1); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if method == http.MethodHead {
		return nil, nil
	}
	buf, _ := w.br.Peek(w.br.Buffered())
	status, fields, length, n, ok := plainAnswer(buf)
	if !ok || !accept(status, fields, length) {
		return nil, nil
	}
	_, _ = w.br.Discard(n) // the bytes stay in the buffer until the next fill
	w.ansBody = leanBody{br: w.br, left: length}
	w.ansWrap = body{rc: &w.ansBody, w: w, stop: stop}
	w.ans = Answer{Status: status, Fields: fields, Length: length, Body: &w.ansWrap}
	return &w.ans, nil
}

// plainAnswer checks an answer's head at the start of b in place: ok when
// the head is there whole (n bytes) and of the plain kind
// (httpsyntax.ScanAnswer) with a 2xx status other than 204 and no
// Connection field, a subset of what readLeanResponse reads (so what it
// would make of it is known without a header map). FuzzPlainAnswer checks
// every head it takes reads the same through http.ReadResponse.
func plainAnswer(b []byte) (status int, fields []byte, length int64, n int, ok bool) {
	a, ok := httpsyntax.ScanAnswer(b)
	if !ok || a.Status < 200 || a.Status > 299 || a.Status == http.StatusNoContent || a.KeepAlive {
		return 0, nil, 0, 0, false
	}
	return a.Status, a.Fields, a.Length, a.Size, true
}
