package leanserver

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strings"

	"github.com/loadlab/loadlab/internal/httpsyntax"
)

// RawHandler is an http.Handler the lean server hands each request as it
// read it, before any http.Request is made: the method, the target, the
// fields in the order received. A proxy forwarding the common request
// writes the upstream head from them and never needs the request object
// (no header map, no URL, no copy of the request for its context); for
// any other it asks for the http.Request (RawRequest.Request) and serves
// it as its ServeHTTP would. Connections net/http's server serves (those
// the lean server hands over) go to ServeHTTP as before.
type RawHandler interface {
	http.Handler
	// ServeRaw answers r through w. r is valid only until it returns.
	ServeRaw(w http.ResponseWriter, r *RawRequest)
}

// RawRequest is a request head as the lean server read and checked it
// (see parseHeadInto: the same checks as for an http.Request), handed to
// a RawHandler.
type RawRequest struct {
	lr     *leanReq
	ctx    context.Context
	remote string
	// x and c are the exchange and connection Request makes the request
	// in (nil for ReadRawRequest's); req is the request once made.
	x   *leanExchange
	c   *serverConn
	req *http.Request
}

// Method is the request's method.
func (r *RawRequest) Method() string { return r.lr.method }

// Target is the request target as sent (a path, and a query after '?').
func (r *RawRequest) Target() string { return r.lr.target }

// Path is the target's path as its URL's Path reads it (what
// Request().URL.Path holds), when it can be had without decoding: ok is
// false for a target with an escape ('%') or a byte net/url would escape,
// whose path is then Request().URL.Path.
func (r *RawRequest) Path() (path string, ok bool) {
	if !r.lr.plain {
		return "", false
	}
	path, _, _ = strings.Cut(r.lr.target, "?")
	return path, true
}

// ContentLength is the length of the request's body (0: none).
func (r *RawRequest) ContentLength() int64 { return r.lr.contentLength }

// RemoteAddr is the client's address, as http.Request.RemoteAddr.
func (r *RawRequest) RemoteAddr() string { return r.remote }

// Context is the request's context, as http.Request.Context (on the lean
// server it ends when the client goes away while the handler waits).
func (r *RawRequest) Context() context.Context { return r.ctx }

// Fields are the request's fields in the order received, each as its
// canonical name and its value (trimmed), as http.Request.Header holds
// them: Host is not one of them (see Host), a Content-Length sent twice
// with the same value comes once.
func (r *RawRequest) Fields() iter.Seq2[string, string] {
	return func(yield func(name, value string) bool) {
		for _, f := range r.lr.fields {
			if !yield(f.Key, f.Value) {
				return
			}
		}
	}
}

// HeadFields are Fields as a slice, for writing the head on
// (httpsyntax.AppendForwardedFields): pieces of the head's one copy, to
// read only, valid while the request is.
func (r *RawRequest) HeadFields() []httpsyntax.Field { return r.lr.fields }

// Host is the request's Host field ("" when an HTTP/1.0 request has none).
func (r *RawRequest) Host() string { return r.lr.host }

// Request is the request as an http.Request (header, URL, body and
// context), made on the first call: what the handler's ServeHTTP would
// have been given. Once it is made, the handler reads the body from it.
func (r *RawRequest) Request() *http.Request {
	switch {
	case r.req != nil:
	case r.x != nil:
		r.req = r.x.request(r.c, r.lr)
	default:
		r.lr.fillHeader(nil)
		req := r.lr.template(new(url.URL))
		req.Body, req.RemoteAddr = http.NoBody, r.remote
		r.req = &req
	}
	return r.req
}

// ReadRawRequest reads a request head (a whole one, ending in an empty
// line) as the lean server reads it, for a client at remoteAddr: for
// tools and tests that handle heads without a connection. The request has
// no body (Request's reads none) and a background context; err says why
// the lean server would not take the head.
func ReadRawRequest(head []byte, remoteAddr string) (*RawRequest, error) {
	lr, _, err := parseHeadInto(head, nil)
	if err == nil {
		lr.plain = plainTarget(lr.target)
	}
	if err == nil && !lr.plain {
		if lr.url, err = url.ParseRequestURI(lr.target); err != nil {
			err = &headError{http.StatusBadRequest, "bad request target"}
		}
	}
	if err != nil {
		return nil, err
	}
	return &RawRequest{lr: lr, ctx: context.Background(), remote: remoteAddr}, nil
}
