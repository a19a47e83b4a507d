package http1

import (
	"bytes"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/loadlab/loadlab/internal/httpsyntax"
	"github.com/loadlab/loadlab/internal/targets"
)

// prepare builds the request bytes of a static target.
func (lw *leanWorker) prepare(t *targets.Target) *leanTarget {
	u := t.StaticURL()
	if u == nil || u.Scheme != "http" || u.User != nil {
		return &leanTarget{}
	}
	host, path, ok := splitHTTPURL([]byte(t.URL.Text()))
	if !ok || !sendableAsIs(path) {
		return &leanTarget{} // net/http escapes it or refuses it
	}
	b, bad := lw.appendHead(nil, nil, t, 0, host, path)
	if bad != "" {
		return &leanTarget{} // net/http refuses it, with its own words
	}
	start := len(b)
	if t.Body != nil {
		b = append(b, t.Body.Text()...)
	}
	n := len(b) - start
	b = fixContentLength(b, start, n, t.Body != nil)
	return &leanTarget{ok: true, addr: hostAddr(host), req: b, body: n}
}

// clPlaceholder is overwritten with the body length once it is known.
const clPlaceholder = "Content-Length: 0000000000\r\n\r\n"

// appendHead appends the request line and headers, ending with the
// Content-Length placeholder and the blank line. w is nil for static
// targets (no rendering needed). The method and every header name must be
// tokens, every header value and the Host free of control characters
// (but tab in values), as net/http requires; each is checked as it is
// written (a byte scan). bad describes the first that failed, in net/http's
// words, "" when all passed: the request must then not be sent. Compiled
// targets cannot fail (package targets checks methods and names, and every
// piece of text a template can write); the scan makes the wire safe
// whatever built the target.
func (lw *leanWorker) appendHead(b []byte, w *Session, t *targets.Target, seq uint64, host, path []byte) (_ []byte, bad string) {
	switch {
	case !httpsyntax.Token(t.Method):
		bad = fmt.Sprintf("net/http: invalid method %q", t.Method)
	case !validHost(host):
		bad = fmt.Sprintf("net/http: invalid Host header %q", host)
	}
	b = append(b, t.Method...)
	b = append(b, ' ')
	b = append(b, path...)
	b = append(b, " HTTP/1.1\r\n"...)
	hasHost := false
	for i, hd := range t.Header {
		if hd.Name == "Host" {
			hasHost = true
		}
		if bad == "" && !httpsyntax.Token(hd.Name) {
			bad = fmt.Sprintf("net/http: invalid header field name %q", hd.Name)
		}
		b = append(b, hd.Name...)
		b = append(b, ": "...)
		v := len(b)
		if hd.Value.Static() || w == nil {
			b = append(b, hd.Value.Text()...)
		} else {
			b = hd.Value.AppendSession(b, w.rng, w.o.Seed, seq, targets.PartHeader(i), w.Vars)
		}
		if bad == "" && !httpsyntax.FieldValue(b[v:]) {
			bad = fmt.Sprintf("net/http: invalid header field value for %q", hd.Name)
		}
		b = append(b, "\r\n"...)
	}
	for k, vs := range lw.l.opts.Header {
		if targetHas(t, k) {
			continue
		}
		for _, v := range vs {
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
	}
	if lw.autoGzip(t) {
		b = append(b, "Accept-Encoding: gzip\r\n"...)
	}
	if !hasHost {
		b = append(b, "Host: "...)
		b = append(b, host...)
		b = append(b, "\r\n"...)
	}
	if !lw.l.opts.KeepAlive {
		b = append(b, "Connection: close\r\n"...)
	}
	b = append(b, clPlaceholder...)
	return b, bad
}

// validHost reports whether host may be sent in a Host header: no control
// character, DEL or space.
func validHost(host []byte) bool {
	for _, c := range host {
		if c <= ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

func targetHas(t *targets.Target, name string) bool {
	for _, h := range t.Header {
		if h.Name == name {
			return true
		}
	}
	return false
}

// fixContentLength writes n into the placeholder just before start, or
// removes the header when the target has no body.
func fixContentLength(b []byte, start, n int, hasBody bool) []byte {
	ph := start - len(clPlaceholder)
	if !hasBody {
		const line = len("Content-Length: 0000000000\r\n")
		copy(b[ph:], b[ph+line:])
		return b[:len(b)-line]
	}
	digits := b[ph+len("Content-Length: ") : ph+len("Content-Length: ")+10]
	s := strconv.AppendInt(make([]byte, 0, 10), int64(n), 10)
	// right-align would leave zeros; instead shift the tail left
	copy(digits, s)
	gap := 10 - len(s)
	if gap > 0 {
		copy(b[ph+len("Content-Length: ")+len(s):], b[ph+len("Content-Length: ")+10:])
		b = b[:len(b)-gap]
	}
	return b
}

// splitHTTPURL splits an http:// URL into host and request path (with the
// query, without a fragment). ok is false for other schemes.
func splitHTTPURL(u []byte) (host, path []byte, ok bool) {
	const p = "http://"
	if len(u) < len(p) || !bytes.EqualFold(u[:len(p)], []byte(p)) {
		return nil, nil, false
	}
	rest := u[len(p):]
	if i := bytes.IndexByte(rest, '#'); i >= 0 {
		if !validFragment(rest[i+1:]) {
			return nil, nil, false // net/url refuses the URL: leave it to net/http
		}
		rest = rest[:i]
	}
	i := bytes.IndexAny(rest, "/?")
	if i < 0 {
		return rest, []byte("/"), len(rest) > 0 && bytes.IndexByte(rest, '@') < 0
	}
	host, path = rest[:i], rest[i:]
	if path[0] == '?' {
		path = append([]byte("/"), path...)
	}
	return host, path, len(host) > 0 && bytes.IndexByte(host, '@') < 0
}

// hostAddr adds the default port 80 when host has none.
func hostAddr(host []byte) string {
	h := string(host)
	if _, _, err := net.SplitHostPort(h); err == nil {
		return h
	}
	if len(h) > 0 && h[0] == '[' { // [::1]
		return h + ":80"
	}
	return net.JoinHostPort(h, "80")
}

// redirect follows a Location: an http:// one through the lean client,
// any other through net/http's (stdClient.follow), as net/http would.
func (lw *leanWorker) redirect(w *Session, t *targets.Target, addr string, req []byte, loc []byte, r *Exchange, hops int) {
	o := lw.l.opts
	fail := func(err error) { // worded as net/http words it: with the Location
		r.Latency = time.Since(r.Sent)
		r.Code, r.BytesIn, r.Body = 0, 0, nil
		op := t.Method[:1] + lowerASCII(t.Method[1:])
		r.Error = explain(&url.Error{Op: op, URL: string(loc), Err: err})
	}
	if hops+1 > o.Redirects {
		fail(fmt.Errorf("stopped after %d redirects", o.Redirects))
		return
	}
	host, path, _ := splitHTTPURL(req2URL(addr, req))
	base := &url.URL{Scheme: "http", Host: string(host), Path: string(path)}
	if p, err := url.Parse(string(path)); err == nil {
		base.Path, base.RawQuery = p.Path, p.RawQuery
	}
	next, err := base.Parse(string(loc))
	if err != nil {
		fail(fmt.Errorf("failed to parse Location header %q: %v", loc, err))
		return
	}
	method := t.Method
	code := r.Code
	keepBody := code == 307 || code == 308
	if !keepBody && method != "HEAD" {
		method = "GET"
	}
	if next.Scheme != "http" {
		// https:// (or another scheme): net/http's to follow, from here.
		r.Code, r.Error, r.Body, r.BytesIn = 0, "", nil, 0
		lw.l.std.follow(w, t, base, next, method, req, keepBody, lw.autoGzip(t), r, hops+1)
		return
	}
	var b []byte
	b = append(b, method...)
	b = append(b, ' ')
	b = append(b, next.RequestURI()...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, next.Host...)
	b = append(b, "\r\n"...)
	// carry the original headers except Host and Content-Length
	head, body, _ := bytes.Cut(req, []byte("\r\n\r\n"))
	lines := bytes.Split(head, []byte("\r\n"))
	for _, l := range lines[1:] {
		if bytes.HasPrefix(bytes.ToLower(l), []byte("host:")) || bytes.HasPrefix(bytes.ToLower(l), []byte("content-length:")) {
			continue
		}
		b = append(b, l...)
		b = append(b, "\r\n"...)
	}
	if keepBody {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(body)), 10)
		b = append(b, "\r\n\r\n"...)
		b = append(b, body...)
	} else {
		b = append(b, "\r\n"...)
	}
	r.Code, r.Error, r.Body, r.BytesIn = 0, "", nil, 0
	lw.roundTrip(w, t, hostAddr([]byte(next.Host)), b, r, hops+1)
}

// req2URL rebuilds "http://host/path" from a request's first line.
func req2URL(addr string, req []byte) []byte {
	line, _, _ := bytes.Cut(req, []byte("\r\n"))
	parts := bytes.SplitN(line, []byte(" "), 3)
	path := []byte("/")
	if len(parts) >= 2 {
		path = parts[1]
	}
	return append([]byte("http://"+addr), path...)
}
