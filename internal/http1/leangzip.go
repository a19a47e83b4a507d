package http1

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"errors"
	"io"
	"net/http/httputil"

	"github.com/loadlab/loadlab/internal/targets"
)

// The lean client asks for gzip as net/http (and so vegeta) does: it adds
// "Accept-Encoding: gzip" to requests that set no Accept-Encoding and no
// Range and are not HEAD, and then decompresses a gzip answer
// transparently, counting and keeping the decompressed bytes. A request
// that sets Accept-Encoding itself gets the answer as it came.

// autoGzip reports whether the lean client adds Accept-Encoding: gzip to
// t's requests (and so decompresses their gzip answers).
func (lw *leanWorker) autoGzip(t *targets.Target) bool {
	if t.Method == "HEAD" {
		return false
	}
	for _, name := range [...]string{"Accept-Encoding", "Range"} {
		if targetHas(t, name) || len(lw.l.opts.Header[name]) > 0 {
			return false
		}
	}
	return true
}

// gzipErr is a failure to decompress an answer, recorded as net/http's
// client reports it to vegeta: the decompressor's own text.
type gzipErr struct{ err error }

func (e gzipErr) Error() string { return e.err.Error() }

// readGzip reads a gzip answer's body, framed by chunked or contentLength
// (-1: until the connection closes), decompressing it as it comes: it
// returns the decompressed length and up to keepLimit of its bytes. The
// rest of the framing is read too, so the connection stays usable.
func (w *Session) readGzip(br *bufio.Reader, chunked bool, contentLength int64) (int64, []byte, error) {
	var raw io.Reader = br
	switch {
	case chunked:
		raw = httputil.NewChunkedReader(br) // net/http's own chunked reader
	case contentLength >= 0:
		raw = io.LimitReader(br, contentLength)
	}
	if w.gz == nil {
		w.gz = new(gzip.Reader)
	}
	var n int64
	var kept []byte
	err := w.gz.Reset(raw)
	if err == nil {
		n, kept, err = w.readBody(w.gz)
	} else if err == io.EOF {
		err = nil // an empty body: net/http reads it as empty too
	}
	if corrupt(err) {
		return n, kept, gzipErr{err}
	}
	if err != nil {
		return n, kept, err
	}
	// What follows the gzip stream within the framing (nothing, normally)
	// is read and dropped, as net/http does when it closes the body.
	if _, err := io.Copy(io.Discard, raw); err != nil {
		return n, kept, err
	}
	if chunked { // the trailers, checked as readChunked checks them
		return n, kept, readTrailer(br)
	}
	return n, kept, nil
}

// corrupt reports whether err says the compressed data is bad (rather
// than the connection failing or the body ending early).
func corrupt(err error) bool {
	var ce flate.CorruptInputError
	return errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.As(err, &ce)
}
