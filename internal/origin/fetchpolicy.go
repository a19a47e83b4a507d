package origin

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// The fetch policy: a recipe's origin URL is fetched from the outside
// world only. Addresses on this machine (loopback, unspecified) and
// link-local ones (cloud metadata services live there) are refused unless
// Options.AllowLocalOrigins is set, so that a recipe posted to the admin
// API cannot make the simulator read and replay its own /_admin pages, a
// neighbour's local services, or probe which local ports are open. The
// check is made on the address actually dialled, after name resolution,
// so a name that resolves to loopback is refused too.

// errLocalOrigin is why a fetch of a local address was refused.
type errLocalOrigin struct{ addr netip.Addr }

func (e errLocalOrigin) Error() string {
	return fmt.Sprintf("%s is a loopback, link-local or unspecified address: origins on this machine are not fetched unless the simulator runs with -allow-local-origins", e.addr)
}

// refuseLocal is a net.Dialer Control function enforcing the policy.
func refuseLocal(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("unexpected dial address %q: %w", address, err)
	}
	a := ap.Addr().Unmap()
	if a.IsLoopback() || a.IsUnspecified() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() {
		return errLocalOrigin{a}
	}
	return nil
}

// fetchClient is the client recipes' origins are fetched with when
// Options gives none.
func fetchClient(allowLocal bool) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if !allowLocal {
		d.Control = refuseLocal
	}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         d.DialContext,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConns:        4,
		IdleConnTimeout:     30 * time.Second,
	}
	return &http.Client{Timeout: 30 * time.Second, Transport: tr}
}
