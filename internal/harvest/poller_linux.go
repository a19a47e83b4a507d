//go:build !loadlab_portable

package harvest

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/loadlab/loadlab/internal/rawconn"
)

// ErrUnsupported is returned by New where there is no harvesting poller.
var ErrUnsupported = errors.New("harvest: not supported on this system")

// Poller owns an epoll set that nothing waits on: Harvest looks at it
// without blocking. Dial, Abort and Close are safe from any goroutine;
// Harvest must be called from one goroutine at a time.
type Poller struct {
	epfd   int
	events []unix.EpollEvent // Harvest's buffer

	mu    sync.Mutex
	byFD  []*Conn                   // open connections by descriptor
	addrs map[string][]*net.TCPAddr // resolved dial addresses, IPv4 first

	aborted atomic.Bool // set by Abort

	urgent    *urgent     // waits for large answers, resumed at once
	largeSeen atomic.Bool // the last finished answer was large: new connections start urgent

	// stamp is a socket that asks for receive timestamps for the poller's
	// whole life: Linux switches timestamping on for the machine a moment
	// after the first socket asks (and off after the last one closes), so
	// connections dialled later get timestamps from their first byte.
	stamp int
}

// maxResolved bounds the cache of resolved addresses (templated hosts
// could produce new names without end).
const maxResolved = 4096

// New returns a Poller; close it when its connections are done.
func New() (*Poller, error) {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	stamp, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		err = rawconn.EnableStamps(stamp)
	}
	var u *urgent
	if err == nil {
		u, err = newUrgent()
	}
	if err != nil {
		unix.Close(fd)
		if stamp >= 0 {
			unix.Close(stamp)
		}
		return nil, err
	}
	return &Poller{
		epfd:   fd,
		urgent: u,
		stamp:  stamp,
		events: make([]unix.EpollEvent, 256),
		addrs:  map[string][]*net.TCPAddr{},
	}, nil
}

// Harvest collects, without waiting, which sockets became readable or
// writable (or failed) since the last call and resumes the reads, writes
// and dials waiting on them. It returns how many it resumed; a caller
// sharing their goroutine's processor may yield so they run at once.
func (p *Poller) Harvest() int {
	resumed := 0
	for {
		// epoll_pwait raw, not unix.EpollWait: Harvest runs at every due
		// time of the pacer (thousands a second) and never waits, and
		// unix.EpollWait would add the scheduler's entry and exit to
		// every call.
		n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(p.epfd),
			uintptr(unsafe.Pointer(&p.events[0])), uintptr(len(p.events)), 0, 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 || n == 0 {
			return resumed
		}
		p.mu.Lock()
		for _, ev := range p.events[:n] {
			if fd := int(ev.Fd); fd < len(p.byFD) {
				if c := p.byFD[fd]; c != nil && c.notify() {
					resumed++
				}
			}
		}
		p.mu.Unlock()
		if int(n) < len(p.events) {
			return resumed
		}
	}
}

// Abort makes every wait, now and later, fail at once (a hard stop).
func (p *Poller) Abort() {
	p.aborted.Store(true)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.byFD {
		if c != nil {
			c.notify()
		}
	}
}

// Close closes the epoll set; connections still open keep working only
// until their next wait.
func (p *Poller) Close() error {
	p.Abort()
	p.urgent.close()
	unix.Close(p.stamp)
	return unix.Close(p.epfd)
}

// register adds c to the epoll set: edge-triggered, so a socket is
// reported once per change, and idle keep-alive connections cost nothing.
func (p *Poller) register(c *Conn) error {
	p.mu.Lock()
	if c.fd >= len(p.byFD) {
		grown := make([]*Conn, max(c.fd+1, 2*len(p.byFD), 64))
		copy(grown, p.byFD)
		p.byFD = grown
	}
	p.byFD[c.fd] = c
	p.mu.Unlock()
	ev := unix.EpollEvent{
		Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET,
		Fd:     int32(c.fd),
	}
	if err := unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, c.fd, &ev); err != nil {
		p.forget(c)
		return err
	}
	return nil
}

// forget removes c before its descriptor is closed (and maybe reused).
func (p *Poller) forget(c *Conn) {
	p.mu.Lock()
	if c.fd < len(p.byFD) && p.byFD[c.fd] == c {
		p.byFD[c.fd] = nil
	}
	p.mu.Unlock()
}

// resolve returns the TCP addresses of addr ("host:port"), cached: IPv4
// ones first, in the resolver's order, as net.Dial tries them.
func (p *Poller) resolve(ctx context.Context, addr string) ([]*net.TCPAddr, error) {
	p.mu.Lock()
	tas := p.addrs[addr]
	p.mu.Unlock()
	if tas != nil {
		return tas, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	portNum, err := net.DefaultResolver.LookupPort(ctx, "tcp", port)
	if err != nil {
		return nil, err
	}
	var ips []net.IPAddr
	if host == "" { // the local system, as net.Dial assumes
		ips = []net.IPAddr{{IP: net.IPv4(127, 0, 0, 1)}, {IP: net.IPv6loopback}}
	} else if parsed := net.ParseIP(host); parsed != nil {
		ips = []net.IPAddr{{IP: parsed}}
	} else if ips, err = net.DefaultResolver.LookupIPAddr(ctx, host); err != nil {
		return nil, err
	}
	for _, v4 := range []bool{true, false} {
		for _, ip := range ips {
			if (ip.IP.To4() != nil) == v4 {
				tas = append(tas, &net.TCPAddr{IP: ip.IP, Port: portNum, Zone: ip.Zone})
			}
		}
	}
	p.mu.Lock()
	if len(p.addrs) >= maxResolved {
		clear(p.addrs)
	}
	p.addrs[addr] = tas
	p.mu.Unlock()
	return tas, nil
}
