package proxy

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"testing"

	"github.com/loadlab/loadlab/internal/http1/leanserver"
	"github.com/loadlab/loadlab/internal/httpsyntax"
)

// FuzzOutHead checks the byte path's upstream head against the object
// path's: for a request (read by the lean server from "GET or HEAD
// target" and fields, its path plain), appendOutHead writes, when it can,
// a head that reads (through net/http) the same as what
// httpsyntax.AppendRequest writes for outRequest(r, rte), r the same head as an
// http.Request: method, target, Host and every field; and it can exactly
// when AppendRequest can.
func FuzzOutHead(f *testing.F) {
	for _, fields := range bytePathRequests {
		f.Add("/a/b?q=x%20y", fields, "10.0.0.1:5555", false, true)
		f.Add("/a/b?q=x%20y", fields, "[::1]:5555", true, false)
	}
	f.Add("/%zz", "", "1.2.3.4:5", true, true)
	f.Add("/a/b:c@d;e=f,g+h$i&j~k?", "user-agent: \r\nUSER-AGENT: x\r\n", "1.2.3.4:5", false, true)
	f.Add("/x", "Connection: ,,  x-a ,\r\nX-A: 1\r\n", "127.0.0.1:1", false, true)
	f.Fuzz(func(t *testing.T, target, fields, remote string, head, upPath bool) {
		method := "GET"
		if head {
			method = "HEAD"
		}
		if host, _, err := net.SplitHostPort(remote); err != nil || net.ParseIP(host) == nil {
			return // a RemoteAddr is an address and a port
		}
		raw, err := leanserver.ReadRawRequest([]byte(method+" "+target+" HTTP/1.1\r\nHost: client.example\r\n"+fields+"\r\n"), remote)
		if err != nil || raw.ContentLength() != 0 {
			return
		}
		path, plain := raw.Path()
		if !plain {
			return
		}
		if r := raw.Request(); r.URL.Path != path || r.URL.RequestURI() != raw.Target() {
			t.Fatalf("%q: raw path %q target %q, request's URL %q %q", target, path, raw.Target(), r.URL.Path, r.URL.RequestURI())
		}
		up, _ := url.Parse("http://up.example:8080")
		if upPath {
			up, _ = url.Parse("http://up.example:8080/base")
		}
		rte := &route{upstream: up}
		got, ok := appendOutHead(nil, inbound{raw: raw, path: path}, rte)
		want, wok := httpsyntax.AppendRequest(nil, outRequest(raw.Request(), rte))
		if ok != wok {
			t.Fatalf("%s %q %q: byte path %v, AppendRequest %v", method, target, fields, ok, wok)
		}
		if !ok {
			return
		}
		g, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(got)))
		if err != nil {
			t.Fatalf("byte path head %q does not read: %v", got, err)
		}
		w, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(want)))
		if err != nil {
			t.Fatalf("object path head %q does not read: %v", want, err)
		}
		if g.Method != w.Method || g.RequestURI != w.RequestURI || g.Host != w.Host || !reflect.DeepEqual(g.Header, w.Header) {
			t.Fatalf("%s %q %q:\nbyte path   %q\nobject path %q", method, target, fields, got, want)
		}
	})
}
