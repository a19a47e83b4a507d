package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/testdns"
)

// recorder keeps what reached a server, one description per request:
// field name to value.
type recorder struct {
	mu   sync.Mutex
	reqs []map[string]string
}

func (rc *recorder) reset() []map[string]string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := rc.reqs
	rc.reqs = nil
	return out
}

func (rc *recorder) add(m map[string]string) {
	rc.mu.Lock()
	rc.reqs = append(rc.reqs, m)
	rc.mu.Unlock()
}

// ignoredHeaders differ by design and are not compared: each tool names
// itself, and vegeta numbers its requests.
var ignoredHeaders = map[string]bool{"User-Agent": true, "X-Vegeta-Seq": true}

// handler records each request as the server read it.
func (rc *recorder) handler() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m := map[string]string{
			"method": r.Method, "target": r.RequestURI, "proto": r.Proto, "host": r.Host,
			"body": fmt.Sprintf("%q", body), "close": fmt.Sprint(r.Close),
		}
		switch {
		case len(r.TransferEncoding) > 0:
			m["framing"] = strings.Join(r.TransferEncoding, ",")
		case r.ContentLength > 0:
			m["framing"] = fmt.Sprintf("length %d", r.ContentLength)
		default:
			m["framing"] = "none"
		}
		var hs []string
		for k, vs := range r.Header {
			if !ignoredHeaders[k] {
				hs = append(hs, k+": "+strings.Join(vs, ", "))
			}
		}
		sort.Strings(hs)
		m["headers"] = strings.Join(hs, " | ")
		if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
			m["source"] = host
		} else {
			m["source"] = "unix socket"
		}
		if r.TLS != nil {
			m["tls.sni"] = r.TLS.ServerName
			m["tls.alpn"] = r.TLS.NegotiatedProtocol
			cn := ""
			if len(r.TLS.PeerCertificates) > 0 {
				cn = r.TLS.PeerCertificates[0].Subject.CommonName
			}
			m["tls.client-cert"] = cn
			m["tls.resumed"] = fmt.Sprint(r.TLS.DidResume)
		}
		rc.add(m)
	}
}

// pki is a CA, a server certificate for app.loadlab.test and 127.0.0.1,
// and a client certificate, as PEM files in a folder.
type pki struct {
	pool                      *x509.CertPool
	server                    tls.Certificate
	caFile, certFile, keyFile string // the CA, and the client's certificate and key
}

func newTestPKI(t *testing.T, dir string) *pki {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "loadlab test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	p := &pki{pool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	write := func(name, typ string, der []byte) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	p.caFile = write("ca.pem", "CERTIFICATE", caDER)
	leaf := func(serial int64, cn string, usage x509.ExtKeyUsage) ([]byte, *ecdsa.PrivateKey) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			DNSNames: []string{"app.loadlab.test"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return der, key
	}
	sDER, sKey := leaf(2, "app.loadlab.test", x509.ExtKeyUsageServerAuth)
	p.server = tls.Certificate{Certificate: [][]byte{sDER}, PrivateKey: sKey}
	cDER, cKey := leaf(3, "vegeta-user", x509.ExtKeyUsageClientAuth)
	p.certFile = write("client.pem", "CERTIFICATE", cDER)
	kDER, _ := x509.MarshalECPrivateKey(cKey)
	p.keyFile = write("client.key", "EC PRIVATE KEY", kDER)
	return p
}

// connectProxy is an HTTP forward proxy that records each CONNECT (its
// target and headers) and tunnels it to dial; a plain http:// request it
// records and answers itself.
func connectProxy(t *testing.T, rc *recorder, dial string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				var hs []string
				for k, vs := range req.Header {
					if !ignoredHeaders[k] {
						hs = append(hs, k+": "+strings.Join(vs, ", "))
					}
				}
				sort.Strings(hs)
				if req.Method != "CONNECT" { // an http:// request through the proxy: answered here
					rc.add(map[string]string{"proxy.request": req.Method + " " + req.RequestURI, "proxy.headers": strings.Join(hs, " | ")})
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
					return
				}
				rc.add(map[string]string{"proxy.connect": req.RequestURI, "proxy.headers": strings.Join(hs, " | ")})
				up, err := net.DialTimeout("tcp", dial, 5*time.Second)
				if err != nil {
					return
				}
				defer up.Close()
				io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
				go io.Copy(up, br)
				io.Copy(c, up)
			}()
		}
	}()
	return ln.Addr().String()
}

// wireCase is one command line run through both tools.
type wireCase struct {
	name    string
	targets string   // stdin, after {placeholders} are filled in
	args    []string // attack flags after the common ones, placeholders filled in
	env     []string // extra environment, placeholders filled in
}

// TestVegetaWire runs vegeta's attack flags and target formats through
// vegeta and loadlab against recording servers on loopback and compares
// what reached them, request by request, field by field: method, target,
// protocol, Host, headers (all but User-Agent and X-Vegeta-Seq), body,
// framing, Connection: close, source address, TLS SNI, ALPN, client
// certificate and session resumption, the CONNECT a proxy saw. Every field that differs must be a
// known difference (vegetadiffs_test.go), documented in docs/attack.md.
func TestVegetaWire(t *testing.T) {
	t.Parallel() // its own servers and child processes; judges no timing closely
	tools := compareTools(t)
	dir := t.TempDir()
	p := newTestPKI(t, dir)
	rc := &recorder{}

	plain := httptest.NewUnstartedServer(rc.handler())
	plain.Config.Protocols = new(http.Protocols)
	plain.Config.Protocols.SetHTTP1(true)
	plain.Config.Protocols.SetUnencryptedHTTP2(true) // for -h2c
	plain.Start()
	defer plain.Close()
	secure := httptest.NewUnstartedServer(rc.handler())
	secure.EnableHTTP2 = true
	secure.TLS = &tls.Config{Certificates: []tls.Certificate{p.server}, ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: p.pool}
	secure.StartTLS()
	defer secure.Close()
	sock := filepath.Join(dir, "s.sock")
	uln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	usrv := &http.Server{Handler: rc.handler()}
	go usrv.Serve(uln)
	defer usrv.Close()
	dns := testdns.Start(t, map[string]string{"app.loadlab.test": "127.0.0.1"})
	_, plainPort, _ := net.SplitHostPort(plain.Listener.Addr().String())
	_, tlsPort, _ := net.SplitHostPort(secure.Listener.Addr().String())
	proxy := connectProxy(t, rc, secure.Listener.Addr().String())

	files := map[string]string{
		"body.json":   `{"q":"vegeta"}`,
		"flag-body":   "from -body\n",
		"targets.txt": "POST {plain}/from-file\nX-From: file\n@body.json\n",
	}
	fill := strings.NewReplacer(
		"{plain}", plain.URL, "{tls}", secure.URL, "{plainport}", plainPort, "{tlsport}", tlsPort,
		"{ca}", p.caFile, "{cert}", p.certFile, "{key}", p.keyFile, "{sock}", sock,
		"{dns}", dns.Addr, "{proxy}", proxy, "{dir}", dir,
	)
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(fill.Replace(content)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A JSON target's body is base64: {"q":"json"}.
	jsonTarget := `{"method":"PUT","url":"{plain}/json?x=1","header":{"X-Json":["a","b"],"Content-Type":["application/json"]},"body":"eyJxIjoianNvbiJ9"}`
	cases := []wireCase{
		{name: "http format, headers, @body", targets: "POST {plain}/api?q=1\nContent-Type: application/json\nX-Trace: abc\n@body.json\n"},
		{name: "two targets, round robin", targets: "GET {plain}/a\n\nHEAD {plain}/b\nX-B: 1\n"},
		{name: "-targets file", args: []string{"-targets", "targets.txt"}},
		{name: "-format json", targets: jsonTarget + "\n", args: []string{"-format", "json"}},
		{name: "-header", targets: "GET {plain}/h\nX-Target: t\n", args: []string{"-header", "X-Flag: one", "-header", "X-Flag: two", "-header", "X-Target: from-flag"}},
		{name: "-header Host", targets: "GET {plain}/host\n", args: []string{"-header", "Host: virtual.example"}},
		{name: "Host in target", targets: "GET {plain}/host\nHost: target.example\n"},
		{name: "-body", targets: "POST {plain}/b\n", args: []string{"-body", "flag-body"}},
		{name: "-body with @body", targets: "POST {plain}/b\n@body.json\n", args: []string{"-body", "flag-body"}},
		{name: "-chunked", targets: "POST {plain}/c\n@body.json\n", args: []string{"-chunked"}},
		{name: "-chunked no body", targets: "GET {plain}/c\n", args: []string{"-chunked"}},
		{name: "-keepalive=false", targets: "GET {plain}/k\n", args: []string{"-keepalive=false"}},
		{name: "-name", targets: "GET {plain}/n\n", args: []string{"-name", "search-flood"}},
		{name: "own Accept-Encoding", targets: "GET {plain}/ae\nAccept-Encoding: br\n"},
		{name: "Range", targets: "GET {plain}/r\nRange: bytes=0-9\n"},
		{name: "-connect-to", targets: "GET http://app.loadlab.test:80/ct\n", args: []string{"-connect-to", "app.loadlab.test:80:127.0.0.1:{plainport}"}},
		{name: "-laddr", targets: "GET {plain}/l\n", args: []string{"-laddr", "127.0.0.2"}},
		{name: "-resolvers", targets: "GET http://app.loadlab.test:{plainport}/dns\n", args: []string{"-resolvers", "{dns}"}},
		{name: "-resolvers -dns-ttl", targets: "GET http://app.loadlab.test:{plainport}/dns\n", args: []string{"-resolvers", "{dns}", "-dns-ttl", "1m"}},
		// vegeta looks the target's host up even with -unix-socket (its DNS
		// cache dials through the socket dialer only once the name resolves).
		{name: "-unix-socket", targets: "GET http://127.0.0.1/unix\n", args: []string{"-unix-socket", "{sock}"}},
		{name: "-h2c", targets: "POST {plain}/h2c\n@body.json\n", args: []string{"-h2c"}},
		{name: "-redirects -1", targets: "GET {plain}/r\n", args: []string{"-redirects", "-1"}},
		{name: "concurrency flags", targets: "GET {plain}/w\n", args: []string{"-workers", "2", "-max-workers", "8", "-connections", "4", "-max-connections", "2", "-lazy", "-timeout", "5s", "-max-body", "0", "-prometheus-addr", "127.0.0.1:0"}},
		{name: "https -root-certs", targets: "GET {tls}/tls\n", args: []string{"-root-certs", "{ca}"}},
		{name: "https -insecure", targets: "GET {tls}/tls\n", args: []string{"-insecure"}},
		{name: "https SNI via -connect-to", targets: "GET https://app.loadlab.test:{tlsport}/sni\n", args: []string{"-root-certs", "{ca}", "-connect-to", "app.loadlab.test:{tlsport}:127.0.0.1:{tlsport}"}},
		{name: "https -http2=false", targets: "GET {tls}/h1\n", args: []string{"-root-certs", "{ca}", "-http2=false"}},
		{name: "https client certificate", targets: "GET {tls}/mtls\n", args: []string{"-root-certs", "{ca}", "-cert", "{cert}", "-key", "{key}"}},
		{name: "https -session-tickets", targets: "GET {tls}/resume\n", args: []string{"-root-certs", "{ca}", "-session-tickets", "-keepalive=false"}},
		{name: "https -chunked", targets: "POST {tls}/c\n@body.json\n", args: []string{"-root-certs", "{ca}", "-chunked"}},
		{name: "-proxy-header", targets: "GET https://app.loadlab.test:{tlsport}/p\n", args: []string{"-root-certs", "{ca}", "-proxy-header", "Proxy-Authorization: Basic dXNlcjpwdw=="},
			env: []string{"HTTPS_PROXY=http://{proxy}"}},
		{name: "HTTPS_PROXY without -proxy-header", targets: "GET https://app.loadlab.test:{tlsport}/p\n", args: []string{"-root-certs", "{ca}"},
			env: []string{"HTTPS_PROXY=http://{proxy}"}},
		{name: "HTTP_PROXY", targets: "GET http://app.loadlab.test:{plainport}/via-proxy\n", env: []string{"HTTP_PROXY=http://{proxy}"}},
		{name: "HTTP_PROXY, loopback target", targets: "GET {plain}/direct\n", env: []string{"HTTP_PROXY=http://{proxy}"}},
	}
	var diffs []wireDiff
	covered := map[string]bool{}
	ran := 0 // cases run: with -run selecting some, flags and differences are not all seen
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ran++
			args := append([]string{"attack", "-rate", "20/s", "-duration", "150ms", "-output", "out"}, c.args...)
			for i := range args {
				args[i] = fill.Replace(args[i])
			}
			var env []string
			for _, e := range c.env {
				env = append(env, fill.Replace(e))
			}
			for _, a := range args {
				if strings.HasPrefix(a, "-") {
					covered[strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-")] = true
				}
			}
			seen := map[string][]map[string]string{}
			rc.reset()
			for _, tl := range tools {
				// A run that sent nothing (vegeta stops when its first
				// request would be due after -duration, as after a stall
				// of the loaded machine) judges nothing: try again.
				for try := 0; try < 3; try++ {
					tl.run(t, dir, env, []byte(fill.Replace(c.targets)), args...)
					if seen[tl.name] = rc.reset(); len(seen[tl.name]) > 0 {
						break
					}
				}
				reached := "yes"
				if len(seen[tl.name]) == 0 { // compared as a field: it may be a known difference
					reached = "no request reached the servers"
				}
				seen[tl.name] = append(seen[tl.name], map[string]string{"reached": reached})
			}
			got := compareWire(c.name, seen["vegeta"], seen["loadlab"])
			for _, d := range got {
				t.Logf("differs: %s", d)
			}
			diffs = append(diffs, got...)
		})
	}
	if t.Failed() {
		return
	}
	checkKnownDiffs(t, "wire", diffs, ran == len(cases))
	if ran == len(cases) {
		checkFlagsCovered(t, tools[0], covered)
	}
}

// wireDiff is one field that reached a server differently.
type wireDiff struct {
	Case, Field, Vegeta, Loadlab string
}

func (d wireDiff) String() string {
	return fmt.Sprintf("%s: %s: vegeta %q, loadlab %q", d.Case, d.Field, d.Vegeta, d.Loadlab)
}

// compareWire compares two tools' requests: grouped by method and target
// (a run sends the same few requests several times), each distinct value
// of a field must be the same set in both.
func compareWire(name string, vegeta, loadlab []map[string]string) []wireDiff {
	values := func(reqs []map[string]string) map[string]map[string]string {
		out := map[string]map[string]string{} // field -> sorted distinct values joined
		sets := map[string]map[string]bool{}
		for _, r := range reqs {
			for k, v := range r {
				if sets[k] == nil {
					sets[k] = map[string]bool{}
				}
				sets[k][r["method"]+" "+r["target"]+" => "+v] = true
			}
		}
		for k, s := range sets {
			var vs []string
			for v := range s {
				vs = append(vs, v)
			}
			sort.Strings(vs)
			out[k] = map[string]string{"": strings.Join(vs, " ; ")}
		}
		return out
	}
	// The last record of each says whether any request arrived at all.
	if rv, rl := vegeta[len(vegeta)-1]["reached"], loadlab[len(loadlab)-1]["reached"]; rv != rl {
		return []wireDiff{{name, "reached", rv, rl}}
	}
	v, l := values(vegeta), values(loadlab)
	fields := map[string]bool{}
	for k := range v {
		fields[k] = true
	}
	for k := range l {
		fields[k] = true
	}
	var out []wireDiff
	for f := range fields {
		if v[f][""] != l[f][""] {
			out = append(out, wireDiff{name, f, v[f][""], l[f][""]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}
