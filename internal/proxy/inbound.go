package proxy

import (
	"context"
	"net/http"

	"github.com/loadlab/loadlab/internal/http1/leanserver"
)

// inbound is a client's request as the proxy forwards it: the lean
// server's raw head (raw: a GET or HEAD without a body, its path plain),
// of which an http.Request is made only if the exchange needs one, or an
// http.Request (r: any other request, and every request net/http's
// server serves). path is the request's URL path, which routes it.
type inbound struct {
	r    *http.Request
	raw  *leanserver.RawRequest
	path string
}

func (in inbound) method() string {
	if in.raw != nil {
		return in.raw.Method()
	}
	return in.r.Method
}

func (in inbound) context() context.Context {
	if in.raw != nil {
		return in.raw.Context()
	}
	return in.r.Context()
}

// requestURI is the request's URL.RequestURI(): for a raw head's plain
// target, the target itself.
func (in inbound) requestURI() string {
	if in.raw != nil {
		return in.raw.Target()
	}
	return in.r.URL.RequestURI()
}

// request is the request as an http.Request (made of the raw head, once).
func (in inbound) request() *http.Request {
	if in.raw != nil {
		return in.raw.Request()
	}
	return in.r
}
