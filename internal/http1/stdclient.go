package http1

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/harvest"
	"github.com/loadlab/loadlab/internal/targets"
)

// stdClient sends requests with net/http: used for https, HTTP/2, h2c,
// -max-connections, vegeta's connection flags and -client std, and for
// what the lean client hands over.
type stdClient struct {
	c  *http.Client
	tr *http.Transport
	o  *Options
}

func newStdClient(o *Options) (*stdClient, error) {
	// Every zero of o is net/http's default.
	dialer := &net.Dialer{Timeout: o.Timeout, KeepAlive: 30 * time.Second} // never a LocalAddr: no bind() before connect()
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment, // as vegeta: HTTP_PROXY, HTTPS_PROXY, NO_PROXY (never for loopback)
		DialContext:         dialer.DialContext,
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: o.Connections,
		MaxConnsPerHost:     o.MaxConnections,
		DisableKeepAlives:   !o.KeepAlive,
		DisableCompression:  false, // Accept-Encoding: gzip and transparent decompression, as vegeta (bytes in counts the decompressed body)
		IdleConnTimeout:     90 * time.Second,
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: o.Insecure}, //nolint:gosec // -insecure asks for it
		ForceAttemptHTTP2:   o.HTTP2,
	}
	if !o.HTTP2 {
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	if o.H2C {
		p := new(http.Protocols)
		p.SetUnencryptedHTTP2(true)
		if o.HTTP2 {
			p.SetHTTP2(true)
		}
		tr.Protocols = p
	}
	if o.TLS != nil {
		tr.TLSClientConfig = o.TLS
	}
	if o.Dial != nil {
		tr.DialContext = o.Dial
	}
	if o.ProxyConnectHeader != nil {
		tr.ProxyConnectHeader = o.ProxyConnectHeader
	}
	c := &http.Client{Transport: tr, Timeout: o.Timeout}
	n := o.Redirects
	c.CheckRedirect = func(_ *http.Request, via []*http.Request) error {
		switch {
		case n < 0:
			return http.ErrUseLastResponse
		case n < len(via):
			return fmt.Errorf("stopped after %d redirects", n)
		}
		return nil
	}
	return &stdClient{c: c, tr: tr, o: o}, nil
}

func (s *stdClient) NewSession() *Session { return newSession(s.o) }

func (s *stdClient) Poller() *harvest.Poller { return nil }

// Abort does nothing: net/http's requests end with their context.
func (s *stdClient) Abort() {}

func (s *stdClient) Close() { s.tr.CloseIdleConnections() }

func (s *stdClient) Conns() int { return 0 }

// Do sends t for request seq through net/http and fills r.
func (s *stdClient) Do(ctx context.Context, w *Session, t *targets.Target, seq uint64, r *Exchange) {
	rawURL := w.urlString(t, seq)
	var body io.Reader
	if t.Body != nil {
		var b []byte
		if t.Body.Static() {
			b = []byte(t.Body.Text())
		} else {
			b = t.Body.AppendSession(nil, w.rng, w.o.Seed, seq, targets.PartBody, w.Vars)
		}
		r.BytesOut = uint64(len(b))
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, t.Method, rawURL, body)
	if err != nil {
		w.sentNow(r)
		r.Error = fmt.Sprintf("%s %q: %v", t.Method, t.Source(), err)
		return
	}
	if body != nil && s.o.Chunked {
		// As vegeta: HTTP/1.1 sends the body chunked; HTTP/2, which has
		// no chunked coding, still sends its content-length.
		req.TransferEncoding = []string{"chunked"}
	}
	if h := t.StaticHeader(); h != nil {
		req.Header = h // shared and read-only
		if host := t.StaticHost(); host != "" {
			req.Host = host
		}
	} else {
		for i, hd := range t.Header {
			w.tmp = hd.Value.AppendSession(w.tmp[:0], w.rng, w.o.Seed, seq, targets.PartHeader(i), w.Vars)
			if hd.Name == "Host" {
				req.Host = string(w.tmp)
				continue
			}
			req.Header.Add(hd.Name, string(w.tmp))
		}
	}
	for k, vs := range s.o.Header {
		if _, ok := req.Header[k]; !ok {
			if t.StaticHeader() != nil {
				req.Header = req.Header.Clone()
			}
			req.Header[k] = vs
		}
	}
	w.sentNow(r)
	s.send(w, s.c, req, t, r)
}

// send sends req through c and reads the answer into r.
func (s *stdClient) send(w *Session, c *http.Client, req *http.Request, t *targets.Target, r *Exchange) {
	resp, err := c.Do(req)
	if err != nil {
		r.Latency = time.Since(r.Sent)
		r.Error = errorText(err, t)
		return
	}
	n, kept, err := w.readBody(resp.Body)
	resp.Body.Close()
	r.Latency = time.Since(r.Sent)
	r.Code = uint16(resp.StatusCode)
	r.BytesIn = uint64(n)
	if w.KeepFields {
		r.Fields = appendFields(r.Fields[:0], resp.Header)
	}
	r.Body = kept
	if err != nil {
		r.Error = errorText(err, t)
	} else if resp.StatusCode < 200 || resp.StatusCode >= 400 {
		r.Error = resp.Status
	}
}

// readBody reads b to the end through the worker's buffer, counting every
// byte and keeping up to MaxBody of them in a new slice.
func (w *Session) readBody(b io.Reader) (int64, []byte, error) {
	if w.read == nil {
		w.read = make([]byte, readBufSize)
	}
	limit := w.keepLimit()
	var kept []byte
	var n int64
	for {
		m, err := b.Read(w.read)
		if m > 0 {
			if limit != 0 {
				k := int64(m)
				if limit > 0 {
					k = min(k, limit-int64(len(kept)))
				}
				if k > 0 {
					kept = append(kept, w.read[:k]...)
				}
			}
			n += int64(m)
		}
		if err == io.EOF {
			return n, kept, nil
		}
		if err != nil {
			return n, kept, err
		}
	}
}

// errorText is the error set entry for a failed request: net/http's text,
// with the target's URL as written (so templated URLs do not make every
// error distinct) and a plain explanation of local port exhaustion.
func errorText(err error, t *targets.Target) string {
	var ue *url.Error
	if errors.As(err, &ue) && !t.URL.Static() {
		c := *ue
		c.URL = t.Source()
		err = &c
	}
	return explain(err)
}

// follow sends, through net/http, the redirect from prev to next the
// lean client was given after hops redirects, as net/http would have sent
// it: the headers of the lean request req (but Host, Content-Length, the
// Accept-Encoding and Connection fields the lean client adds itself, which
// net/http adds as it sees fit, and the credentials net/http drops on the
// way to another domain), a Referer, its body when keepBody, and the
// remaining redirects, within the request's Timeout.
func (s *stdClient) follow(w *Session, t *targets.Target, prev, next *url.URL, method string, req []byte, keepBody, autoGzip bool, r *Exchange, hops int) {
	head, body, _ := bytes.Cut(req, []byte("\r\n\r\n"))
	var rd io.Reader
	if keepBody && len(body) > 0 {
		rd = bytes.NewReader(body)
	}
	ctx := w.ctx
	if s.o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, r.Sent.Add(s.o.Timeout))
		defer cancel()
	}
	hr, err := http.NewRequestWithContext(ctx, method, next.String(), rd)
	if err != nil {
		r.Latency = time.Since(r.Sent)
		r.Error = errorText(err, t)
		return
	}
	strip := !sameDomain(prev.Hostname(), next.Hostname())
	lines := bytes.Split(head, []byte("\r\n"))
	for _, l := range lines[1:] {
		k, v, _ := bytes.Cut(l, []byte(":"))
		name := http.CanonicalHeaderKey(string(k))
		switch {
		case name == "Host" || name == "Content-Length",
			name == "Accept-Encoding" && autoGzip,
			name == "Connection" && !s.o.KeepAlive,
			strip && (name == "Authorization" || name == "Www-Authenticate" || name == "Cookie" || name == "Cookie2"):
			continue
		}
		hr.Header.Add(name, string(bytes.TrimSpace(v)))
	}
	c := *s.c
	if _, ok := hr.Header["Referer"]; !ok {
		// As net/http: the first request names the one that redirected
		// (http://, without its user); the later ones net/http names.
		ref := *prev
		ref.User, ref.Fragment = nil, ""
		c.Transport = &refererOnce{rt: s.tr, ref: ref.String()}
	}
	n := s.o.Redirects
	c.CheckRedirect = func(_ *http.Request, via []*http.Request) error {
		if n < hops+len(via) {
			return fmt.Errorf("stopped after %d redirects", n)
		}
		return nil
	}
	c.Timeout = 0 // the context's deadline counts from the first request
	s.send(w, &c, hr, t, r)
}

// sameDomain reports whether net/http keeps credentials on a redirect from
// host a to host b: b is a, or a subdomain of it.
func sameDomain(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	return a == b || strings.HasSuffix(b, "."+a)
}

// refererOnce adds a Referer to the first request it sends.
type refererOnce struct {
	rt   http.RoundTripper
	ref  string
	sent bool
}

func (t *refererOnce) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.sent {
		return t.rt.RoundTrip(req)
	}
	t.sent = true
	req = req.Clone(req.Context())
	req.Header.Set("Referer", t.ref)
	return t.rt.RoundTrip(req)
}

// appendFields appends h as "Name: value\n" lines (Exchange.Fields).
func appendFields(b []byte, h http.Header) []byte {
	for k, vs := range h {
		for _, v := range vs {
			b = append(append(append(append(b, k...), ':', ' '), v...), '\n')
		}
	}
	return b
}
