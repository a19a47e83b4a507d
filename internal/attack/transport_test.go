package attack

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/http1"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/testdns"
)

// pki is a throwaway CA with a server certificate for 127.0.0.1 and a
// client certificate, written as PEM files.
type pki struct {
	caFile, certFile, keyFile string
	server                    tls.Certificate
	pool                      *x509.CertPool
}

func newPKI(t *testing.T) *pki {
	t.Helper()
	dir := t.TempDir()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	caKey := key()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "loadlab test CA"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	issue := func(cn string, usage x509.ExtKeyUsage, ip net.IP) ([]byte, *ecdsa.PrivateKey) {
		k := key()
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn}, NotBefore: time.Now().Add(-time.Hour),
			NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature}
		if ip != nil {
			tmpl.IPAddresses = []net.IP{ip}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return der, k
	}
	write := func(name, typ string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := &pki{pool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	p.caFile = write("ca.pem", "CERTIFICATE", caDER)
	sDER, sKey := issue("server", x509.ExtKeyUsageServerAuth, net.IPv4(127, 0, 0, 1))
	sk, _ := x509.MarshalECPrivateKey(sKey)
	p.server, err = tls.X509KeyPair(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: sDER}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sk}))
	if err != nil {
		t.Fatal(err)
	}
	cDER, cKey := issue("client", x509.ExtKeyUsageClientAuth, nil)
	ck, _ := x509.MarshalECPrivateKey(cKey)
	p.certFile = write("client.pem", "CERTIFICATE", cDER)
	p.keyFile = write("client-key.pem", "EC PRIVATE KEY", ck)
	return p
}

// attackN runs n requests at 50/s with opts and returns the results.
func attackN(t *testing.T, target string, n int, opts Options) []results.Result {
	t.Helper()
	opts.Schedule = sched(t, "50/s", time.Duration(n)*20*time.Millisecond)
	rs, _ := run(t, context.Background(), parse(t, target), opts)
	if len(rs) != n {
		t.Fatalf("%d results, want %d", len(rs), n)
	}
	return rs
}

func TestMutualTLS(t *testing.T) {
	p := newPKI(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.TLS.PeerCertificates) == 0 || r.TLS.PeerCertificates[0].Subject.CommonName != "client" {
			http.Error(w, "who are you", http.StatusForbidden)
		}
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{p.server}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: p.pool}
	srv.StartTLS()
	defer srv.Close()
	o := DefaultOptions()
	o.Transport = Transport{Cert: p.certFile, Key: p.keyFile, RootCerts: []string{p.caFile}}
	for _, r := range attackN(t, "GET "+srv.URL+"/", 5, o) {
		if r.Code != 200 {
			t.Fatalf("with the client certificate: %d %s", r.Code, r.Error)
		}
	}
	// Without the client certificate the server refuses the handshake.
	o.Transport = Transport{RootCerts: []string{p.caFile}}
	for _, r := range attackN(t, "GET "+srv.URL+"/", 3, o) {
		if r.Code != 0 || r.Error == "" {
			t.Fatalf("without a client certificate: %d %q", r.Code, r.Error)
		}
	}
	// A key that does not match, or a missing file: bad input naming the flag.
	for _, tr := range []Transport{{Cert: p.certFile, Key: p.caFile}, {Cert: p.certFile}, {RootCerts: []string{"/nope.pem"}}, {RootCerts: []string{p.keyFile}}} {
		o := DefaultOptions()
		o.Schedule, o.Transport = sched(t, "1/s", time.Second), tr
		_, err := New(parse(t, "GET "+srv.URL+"/"), o)
		var be *badinput.Error
		if !errors.As(err, &be) || !strings.HasPrefix(be.Field, "-") {
			t.Errorf("%+v: %v, want a bad-input error naming the flag", tr, err)
		}
	}
}

func TestSessionTickets(t *testing.T) {
	p := newPKI(t)
	var mu sync.Mutex
	resumed := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.TLS.DidResume {
			resumed++
		}
		mu.Unlock()
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{p.server}}
	srv.StartTLS()
	defer srv.Close()
	for _, tickets := range []bool{false, true} {
		resumed = 0
		o := DefaultOptions()
		o.KeepAlive = false // a handshake per request
		o.Transport = Transport{RootCerts: []string{p.caFile}, SessionTickets: tickets}
		attackN(t, "GET "+srv.URL+"/", 6, o)
		mu.Lock()
		got := resumed
		mu.Unlock()
		if tickets && got < 4 || !tickets && got != 0 {
			t.Errorf("session tickets %v: %d of 6 handshakes resumed", tickets, got)
		}
	}
}

func TestChunkedConnectToLaddrUnixSocket(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		ip, _, _ := net.SplitHostPort(r.RemoteAddr)
		seen["host "+r.Host]++
		seen["from "+ip]++
		if len(r.TransferEncoding) > 0 {
			seen["te "+r.TransferEncoding[0]]++
		}
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	check := func(what string, want int) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if seen[what] < want {
			t.Errorf("%s: seen %d times, want at least %d (all: %v)", what, seen[what], want, seen)
		}
	}

	o := DefaultOptions()
	o.Transport = Transport{Chunked: true}
	attackN(t, "POST "+srv.URL+"/\n@"+writeBody(t), 3, o)
	check("te chunked", 3)

	o = DefaultOptions()
	ct, err := ParseConnectTo([]string{"example.test:80:" + addr}) // vegeta's syntax
	if err != nil {
		t.Fatal(err)
	}
	o.Transport = Transport{ConnectTo: ct}
	for _, r := range attackN(t, "GET http://example.test/", 3, o) {
		if r.Code != 200 {
			t.Fatalf("-connect-to: %d %s", r.Code, r.Error)
		}
	}
	check("host example.test", 3)

	o = DefaultOptions()
	o.KeepAlive = false // a connection, and a source address, per request
	ips, err := ParseLocalAddrs([]string{"127.0.0.1,127.0.0.2"})
	if err != nil {
		t.Fatal(err)
	}
	o.Transport = Transport{LocalAddrs: ips}
	attackN(t, "GET "+srv.URL+"/", 6, o)
	check("from 127.0.0.1", 2)
	check("from 127.0.0.2", 2)

	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	us := &http.Server{Handler: h}
	go us.Serve(ln)
	defer us.Close()
	o = DefaultOptions()
	o.Transport = Transport{UnixSocket: sock}
	for _, r := range attackN(t, "GET http://over.the.socket/", 3, o) {
		if r.Code != 200 {
			t.Fatalf("-unix-socket: %d %s", r.Code, r.Error)
		}
	}
	check("host over.the.socket", 3)
}

func writeBody(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "body")
	if err := os.WriteFile(p, []byte(`{"q":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDNSCacheTTL(t *testing.T) {
	now := time.Unix(0, 0)
	lookups := 0
	resolve := func(context.Context, string) ([]string, error) { lookups++; return []string{"127.0.0.1"}, nil }
	clock := func() time.Time { return now }
	forever := newDNSCacheWith(0, resolve, clock)
	for i := 0; i < 3; i++ {
		forever.lookup(context.Background(), "a")
		now = now.Add(time.Hour)
	}
	if lookups != 1 {
		t.Errorf("ttl 0 (forever): %d lookups, want 1", lookups)
	}
	lookups = 0
	ttl := newDNSCacheWith(time.Second, resolve, clock)
	ttl.lookup(context.Background(), "a")
	now = now.Add(500 * time.Millisecond)
	ttl.lookup(context.Background(), "a")
	now = now.Add(time.Second)
	ttl.lookup(context.Background(), "a")
	if lookups != 2 {
		t.Errorf("ttl 1s: %d lookups, want 2", lookups)
	}
	if newDNSCache(-1, true, net.DefaultResolver) != nil || newDNSCache(time.Second, false, net.DefaultResolver) != nil {
		t.Error("-dns-ttl -1, or not given, must not cache")
	}
}

func TestProxyHeaderGoesToTheTransport(t *testing.T) {
	o := DefaultOptions()
	o.Schedule = sched(t, "1/s", time.Second)
	o.Transport = Transport{ProxyHeader: http.Header{"Proxy-Authorization": {"Basic eDp5"}}}
	co, err := o.wire(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if co.ProxyConnectHeader.Get("Proxy-Authorization") != "Basic eDp5" {
		t.Errorf("proxy header %v", co.ProxyConnectHeader)
	}
	if http1.Lean(&co) {
		t.Error("vegeta's connection flags must select the net/http client")
	}
}

func TestParseConnectToSyntaxes(t *testing.T) {
	got, err := ParseConnectTo([]string{
		"google.com:80:localhost:6060", // vegeta's help example
		"google.com:80:127.0.0.1:6061",
		"a.test:443=127.0.0.1:8443", // loadlab's older form
		"[::1]:80:[::1]:8080",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"google.com:80": {"localhost:6060", "127.0.0.1:6061"},
		"a.test:443":    {"127.0.0.1:8443"},
		"[::1]:80":      {"[::1]:8080"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ParseConnectTo = %v, want %v", got, want)
	}
}

func FuzzParseConnectTo(f *testing.F) {
	for _, s := range []string{"google.com:80:localhost:6060", "a:1=b:2", "[::1]:80:[::1]:8080", "[::1:80", "a:b:c:d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		m, err := ParseConnectTo([]string{v})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "-connect-to: ") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error not one line naming the flag: %q", err)
			}
			return
		}
		for src, dsts := range m {
			for _, a := range append([]string{src}, dsts...) {
				if _, _, err := net.SplitHostPort(a); err != nil {
					t.Fatalf("%q gave %q, not host:port", v, a)
				}
			}
		}
	})
}

func TestConnectToAndLaddrBadInput(t *testing.T) {
	for _, v := range []string{"example.test:80", "example.test=127.0.0.1:1", "a:1=b", "a:1:b", "a:1:b:2:3", ":1:b:2", "[::1:80:b:1", "[::1]x:80:b:1"} {
		if _, err := ParseConnectTo([]string{v}); err == nil || !strings.Contains(err.Error(), "-connect-to") {
			t.Errorf("ParseConnectTo(%q) = %v", v, err)
		}
	}
	if _, err := ParseLocalAddrs([]string{"127.0.0.1,nope"}); err == nil || !strings.Contains(err.Error(), "-laddr") {
		t.Errorf("ParseLocalAddrs: %v", err)
	}
}

// -resolvers: names are resolved by the given DNS servers only (a name
// the system cannot resolve reaches the server), with and without
// -dns-ttl's cache; a bad list is one line naming the flag.
func TestResolvers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	dns := testdns.Start(t, map[string]string{"app.loadlab.test": "127.0.0.1"})
	for _, cached := range []bool{false, true} {
		servers, err := ParseResolvers(dns.Addr)
		if err != nil {
			t.Fatal(err)
		}
		o := DefaultOptions()
		o.Transport = Transport{Resolvers: servers, DNSTTLSet: cached}
		for _, r := range attackN(t, "GET http://app.loadlab.test:"+port+"/", 3, o) {
			if r.Code != 200 {
				t.Fatalf("cached %v: %d %s", cached, r.Code, r.Error)
			}
		}
	}
	if dns.Queries("app.loadlab.test") == 0 {
		t.Error("the DNS server was never asked")
	}
	got, err := ParseResolvers("10.0.0.1, [::1]:5353,127.0.0.1:53")
	if err != nil || strings.Join(got, " ") != "10.0.0.1:53 [::1]:5353 127.0.0.1:53" {
		t.Errorf("ParseResolvers = %v, %v", got, err)
	}
	for _, v := range []string{"", "dns.example:53", "127.0.0.1:99999", "127.0.0.1:x"} {
		if _, err := ParseResolvers(v); err == nil || !strings.HasPrefix(err.Error(), "-resolvers: ") {
			t.Errorf("ParseResolvers(%q) = %v", v, err)
		}
	}
}

func FuzzParseResolvers(f *testing.F) {
	for _, s := range []string{"10.0.0.1", "[::1]:5353,127.0.0.1:53", "dns.example:53", "127.0.0.1:x", ","} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		got, err := ParseResolvers(v)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "-resolvers: ") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error not one line naming the flag: %q", err)
			}
			return
		}
		for _, a := range got {
			host, _, err := net.SplitHostPort(a)
			if err != nil || net.ParseIP(host) == nil {
				t.Fatalf("%q gave %q, not ip:port", v, a)
			}
		}
	})
}
