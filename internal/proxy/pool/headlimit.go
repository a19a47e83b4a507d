package pool

import (
	"errors"
	"io"
)

// MaxResponseHead bounds an upstream response's status line and headers
// (1 MiB): a larger head fails the request with an error, which the proxy
// answers with 502, as nginx does beyond proxy_buffer_size. Without it an
// upstream could make the proxy hold a head of any size.
const MaxResponseHead = 1 << 20

// ErrHeadTooLarge is returned by RoundTrip when the upstream's response
// head exceeds MaxResponseHead.
var ErrHeadTooLarge = errors.New("upstream sent a response head larger than 1 MiB")

// headLimit sits under a worker's buffered reader and, while armed, fails
// reads beyond a byte budget: the budget is set when a response head is
// about to be read and lifted once it is parsed, so bodies are not
// limited.
type headLimit struct {
	r     io.Reader
	left  int64
	armed bool
}

func (h *headLimit) Read(p []byte) (int, error) {
	if !h.armed {
		return h.r.Read(p)
	}
	if h.left <= 0 {
		return 0, ErrHeadTooLarge
	}
	if int64(len(p)) > h.left {
		p = p[:h.left]
	}
	n, err := h.r.Read(p)
	h.left -= int64(n)
	return n, err
}

// arm starts counting a head's bytes; the buffered reader's read-ahead
// (at most its size) is allowed on top of the limit.
func (h *headLimit) arm(slack int) { h.left, h.armed = MaxResponseHead+int64(slack), true }

// disarm lifts the limit.
func (h *headLimit) disarm() { h.armed = false }
