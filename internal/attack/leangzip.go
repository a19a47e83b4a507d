package attack

import (
	"bytes"
	"compress/gzip"
	"io"

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

// gunzip decompresses a whole gzip body, returning the decompressed
// length and up to keepLimit of its bytes.
func (w *worker) gunzip(raw []byte) (int64, []byte, error) {
	if w.gz == nil {
		w.gz = new(gzip.Reader)
	}
	if err := w.gz.Reset(bytes.NewReader(raw)); err != nil {
		if err == io.EOF { // an empty body: net/http reads it as empty too
			return 0, nil, nil
		}
		return 0, nil, gzipErr{err}
	}
	n, kept, err := w.readBody(w.gz)
	if err != nil {
		return n, kept, gzipErr{err}
	}
	return n, kept, nil
}
