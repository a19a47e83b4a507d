package attack

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

// stdClient sends requests with net/http: used for https, HTTP/2, h2c,
// -max-connections and -client std.
type stdClient struct {
	c  *http.Client
	tr *http.Transport
}

func newStdClient(o *Options) (*stdClient, error) {
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
	if t := &o.Transport; t.set() {
		cfg, err := t.tlsConfig(o.Insecure)
		if err != nil {
			return nil, err
		}
		tr.TLSClientConfig = cfg
		tr.DialContext = t.dialer(o.Timeout)
		tr.ProxyConnectHeader = t.ProxyHeader
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
	return &stdClient{c: c, tr: tr}, nil
}

func (s *stdClient) closeIdle() { s.tr.CloseIdleConnections() }

// do sends t for request seq through net/http and fills r.
func (s *stdClient) do(w *worker, t *targets.Target, seq uint64, r *results.Result) {
	a := w.a
	rawURL := w.urlString(t, seq)
	var body io.Reader
	if t.Body != nil {
		var b []byte
		if t.Body.Static() {
			b = []byte(t.Body.Text())
		} else {
			b = t.Body.AppendSeeded(nil, w.rng, w.a.seed, seq, targets.PartBody)
		}
		r.BytesOut = uint64(len(b))
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(a.reqCtx, t.Method, rawURL, body)
	if err != nil {
		w.sentNow(r)
		r.Error = fmt.Sprintf("%s %q: %v", t.Method, t.Source(), err)
		return
	}
	if body != nil && a.opts.Transport.Chunked {
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
			w.tmp = hd.Value.AppendSeeded(w.tmp[:0], w.rng, w.a.seed, seq, targets.PartHeader(i))
			if hd.Name == "Host" {
				req.Host = string(w.tmp)
				continue
			}
			req.Header.Add(hd.Name, string(w.tmp))
		}
	}
	for k, vs := range a.opts.Header {
		if _, ok := req.Header[k]; !ok {
			if t.StaticHeader() != nil {
				req.Header = req.Header.Clone()
			}
			req.Header[k] = vs
		}
	}
	w.sentNow(r)
	resp, err := s.c.Do(req)
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
	r.Body = kept
	if err != nil {
		r.Error = errorText(err, t)
	} else if resp.StatusCode < 200 || resp.StatusCode >= 400 {
		r.Error = resp.Status
	}
}

// readBody reads b to the end through the worker's buffer, counting every
// byte and keeping up to MaxBody of them in a new slice.
func (w *worker) readBody(b io.Reader) (int64, []byte, error) {
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
