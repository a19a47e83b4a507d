package attack

import (
	"context"
	"crypto/tls"
	"crypto/x509"

	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
)

// Transport holds vegeta's connection flags. Any of them set makes the
// attack use the net/http client, which implements them all.
type Transport struct {
	Cert, Key string   // client certificate and key, PEM files (-cert, -key)
	RootCerts []string // CA certificates, PEM files, instead of the system's (-root-certs)
	Chunked   bool     // send bodies with chunked transfer encoding (-chunked)
	// ConnectTo maps a target's host:port to the addresses to connect to
	// instead, used in turn (-connect-to src:port:dst:port).
	ConnectTo map[string][]string
	// DNSTTL caches name lookups this long; 0 caches forever and -1 not
	// at all (-dns-ttl, vegeta's meanings). Only with DNSTTLSet.
	DNSTTL    time.Duration
	DNSTTLSet bool
	// LocalAddrs are local addresses to dial from, in turn (-laddr): more
	// addresses, more source ports.
	LocalAddrs []net.IP
	// ProxyHeader is sent to an HTTP proxy (HTTPS_PROXY, HTTP_PROXY) with
	// each CONNECT (-proxy-header).
	ProxyHeader    http.Header
	SessionTickets bool   // resume TLS sessions with tickets (-session-tickets)
	UnixSocket     string // connect to this Unix socket instead (-unix-socket)
	// Resolvers are DNS servers (ip:port) asked in turn instead of the
	// system's resolver (-resolvers); see ParseResolvers.
	Resolvers []string
}

// set reports whether any flag asks for something.
func (t *Transport) set() bool {
	return t.Cert != "" || t.Key != "" || len(t.RootCerts) > 0 || t.Chunked || len(t.ConnectTo) > 0 || t.DNSTTLSet ||
		len(t.LocalAddrs) > 0 || len(t.ProxyHeader) > 0 || t.SessionTickets || t.UnixSocket != "" ||
		len(t.Resolvers) > 0
}

// tlsConfig loads the certificates; errors name the flag.
func (t *Transport) tlsConfig(insecure bool) (*tls.Config, error) {
	cfg := &tls.Config{InsecureSkipVerify: insecure} //nolint:gosec // -insecure asks for it
	if (t.Cert == "") != (t.Key == "") {
		return nil, badinput.Field("-cert", "-cert and -key go together (a client certificate and its private key)")
	}
	if t.Cert != "" {
		pair, err := tls.LoadX509KeyPair(t.Cert, t.Key)
		if err != nil {
			return nil, badinput.Field("-cert", "%s with -key %s: %v", t.Cert, t.Key, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	if len(t.RootCerts) > 0 {
		pool := x509.NewCertPool()
		for _, f := range t.RootCerts {
			pem, err := os.ReadFile(f)
			if err != nil {
				return nil, badinput.Field("-root-certs", "%v", err)
			}
			if !pool.AppendCertsFromPEM(pem) {
				return nil, badinput.Field("-root-certs", "%s holds no PEM certificate", f)
			}
		}
		cfg.RootCAs = pool
	}
	if t.SessionTickets {
		cfg.ClientSessionCache = tls.NewLRUClientSessionCache(0)
	} else {
		cfg.SessionTicketsDisabled = true
	}
	return cfg, nil
}

// dialer wraps base with -unix-socket, -connect-to, -laddr and -dns-ttl.
func (t *Transport) dialer(timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if t.UnixSocket != "" {
		d := &net.Dialer{Timeout: timeout}
		return func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "unix", t.UnixSocket)
		}
	}
	var next atomic.Uint64
	var laddrNext atomic.Uint64
	res := t.resolver()
	cache := newDNSCache(t.DNSTTL, t.DNSTTLSet, res)
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if to := t.ConnectTo[addr]; len(to) > 0 {
			addr = to[next.Add(1)%uint64(len(to))]
		}
		d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Resolver: res}
		if n := len(t.LocalAddrs); n > 0 {
			d.LocalAddr = &net.TCPAddr{IP: t.LocalAddrs[laddrNext.Add(1)%uint64(n)]}
		}
		host, port, err := net.SplitHostPort(addr)
		if err != nil || cache == nil || net.ParseIP(host) != nil {
			return d.DialContext(ctx, network, addr)
		}
		ips, err := cache.lookup(ctx, host)
		if err != nil {
			return nil, err
		}
		var last error
		for _, ip := range ips {
			c, err := d.DialContext(ctx, network, net.JoinHostPort(ip, port))
			if err == nil {
				return c, nil
			}
			last = err
		}
		return nil, last
	}
}

// dnsCache caches name lookups for ttl (0: forever); nil when not asked
// for or disabled (-1).
type dnsCache struct {
	ttl    time.Duration
	lookup func(ctx context.Context, host string) ([]string, error)
}

type dnsEntry struct {
	ips []string
	at  time.Time
}

func newDNSCache(ttl time.Duration, set bool, res *net.Resolver) *dnsCache {
	if !set || ttl < 0 {
		return nil
	}
	return newDNSCacheWith(ttl, res.LookupHost, time.Now)
}

// resolver is the name resolver dials use: the -resolvers servers, asked
// in turn with Go's own DNS client, or the system's (net.DefaultResolver).
func (t *Transport) resolver() *net.Resolver {
	if len(t.Resolvers) == 0 {
		return net.DefaultResolver
	}
	var next atomic.Uint64
	servers := t.Resolvers
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, servers[next.Add(1)%uint64(len(servers))])
		},
	}
}

// ParseResolvers reads -resolvers, vegeta's comma separated list of DNS
// server addresses: IP addresses, each with an optional port (53 when
// none; IPv6 with a port in brackets, [::1]:53).
func ParseResolvers(v string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(v, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		host, port, err := net.SplitHostPort(a)
		if err != nil {
			host, port = strings.Trim(a, "[]"), "53"
		}
		if net.ParseIP(host) == nil {
			return nil, badinput.Field("-resolvers", "%q is not an IP address (with an optional :port)", a)
		}
		if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
			return nil, badinput.Field("-resolvers", "bad port in %q", a)
		}
		out = append(out, net.JoinHostPort(host, port))
	}
	if len(out) == 0 {
		return nil, badinput.Field("-resolvers", "no DNS server address in %q", v)
	}
	return out, nil
}

// newDNSCacheWith is the cache with its resolver and clock.
func newDNSCacheWith(ttl time.Duration, resolve func(ctx context.Context, host string) ([]string, error), now func() time.Time) *dnsCache {
	var mu sync.Mutex
	entries := map[string]dnsEntry{}
	c := &dnsCache{ttl: ttl}
	c.lookup = func(ctx context.Context, host string) ([]string, error) {
		mu.Lock()
		e, ok := entries[host]
		mu.Unlock()
		if ok && (ttl == 0 || now().Sub(e.at) < ttl) {
			return e.ips, nil
		}
		ips, err := resolve(ctx, host)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		entries[host] = dnsEntry{ips: ips, at: now()}
		mu.Unlock()
		return ips, nil
	}
	return c
}

// ParseConnectTo reads -connect-to values in vegeta's syntax,
// "src:port:dst:port" (google.com:80:localhost:6060), or loadlab's older
// "host:port=addr:port", which still works: it has an "=" and vegeta's
// cannot, so the two never overlap. Bracketed IPv6 addresses are allowed
// in both ("[::1]:80:[::1]:8080"). A source given several times is served
// in turn.
func ParseConnectTo(vals []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, v := range vals {
		src, dst, ok := strings.Cut(v, "=")
		if !ok {
			src, dst, ok = splitConnectTo(v)
		}
		if !ok {
			return nil, badinput.Field("-connect-to", "want src:port:dst:port (e.g. example.com:80:127.0.0.1:8080), got %q", v)
		}
		for _, a := range []string{src, dst} {
			if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
				return nil, badinput.Field("-connect-to", "%q in %q is not host:port", a, v)
			}
		}
		out[src] = append(out[src], dst)
	}
	return out, nil
}

// splitConnectTo splits vegeta's "src:port:dst:port" into its two
// host:port halves, reading bracketed IPv6 hosts as one field.
func splitConnectTo(v string) (src, dst string, ok bool) {
	var parts []string
	for rest := v; ; {
		var field string
		if strings.HasPrefix(rest, "[") {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return "", "", false
			}
			field, rest = rest[:end+1], rest[end+1:]
			if rest != "" && rest[0] != ':' {
				return "", "", false
			}
			rest = strings.TrimPrefix(rest, ":")
			parts = append(parts, field)
			if rest == "" {
				break
			}
			continue
		}
		field, rest, ok = strings.Cut(rest, ":")
		parts = append(parts, field)
		if !ok {
			break
		}
	}
	if len(parts) != 4 || parts[0] == "" || parts[2] == "" {
		return "", "", false
	}
	return parts[0] + ":" + parts[1], parts[2] + ":" + parts[3], true
}

// ParseLocalAddrs reads -laddr values (IP addresses; commas allowed).
func ParseLocalAddrs(vals []string) ([]net.IP, error) {
	var out []net.IP
	for _, v := range vals {
		for _, s := range strings.Split(v, ",") {
			ip := net.ParseIP(strings.TrimSpace(s))
			if ip == nil {
				return nil, badinput.Field("-laddr", "want an IP address, got %q", s)
			}
			if !ip.IsUnspecified() {
				out = append(out, ip)
			}
		}
	}
	return out, nil
}
