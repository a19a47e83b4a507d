package testdns

import (
	"context"
	"errors"
	"net"
	"testing"
)

// Go's own resolver, pointed at the server over UDP and over TCP, gets
// the address of a known name and "no such host" for another.
func TestResolves(t *testing.T) {
	s := Start(t, map[string]string{"app.loadlab.test": "127.0.0.7"})
	for _, network := range []string{"udp", "tcp"} {
		r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, s.Addr)
		}}
		ips, err := r.LookupHost(context.Background(), "app.loadlab.test")
		if err != nil || len(ips) != 1 || ips[0] != "127.0.0.7" {
			t.Fatalf("%s: LookupHost = %v, %v", network, ips, err)
		}
		_, err = r.LookupHost(context.Background(), "other.loadlab.test")
		var de *net.DNSError
		if !errors.As(err, &de) || !de.IsNotFound {
			t.Fatalf("%s: unknown name gave %v", network, err)
		}
	}
	if s.Queries("app.loadlab.test") < 2 {
		t.Errorf("queries counted: %d", s.Queries("app.loadlab.test"))
	}
}
