//go:build linux && !loadlab_portable

package harvest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/testwait"
)

// harvesting calls p.Harvest every millisecond until the test ends.
func harvesting(t *testing.T, p *Poller) {
	t.Helper()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tk := time.NewTicker(time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				p.Harvest()
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
}

func newPoller(t *testing.T) *Poller {
	t.Helper()
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// server answers each line it reads with "ok <line>\n" after delay.
func server(t *testing.T, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					time.Sleep(delay)
					if _, err := fmt.Fprintf(c, "ok %s", buf[:n]); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// serveOnce listens on loopback and runs handle on its first connection.
func serveOnce(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		handle(c)
	}()
	return ln.Addr().String()
}

// stampsOn waits until p's connections get receive timestamps: Linux
// turns timestamping on for the machine a moment after the first socket
// asks for it (New's). p must be harvested.
func stampsOn(t *testing.T, p *Poller) {
	t.Helper()
	c, err := p.Dial(context.Background(), server(t, 0), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	buf := make([]byte, 16)
	testwait.Eventually(t, 10*time.Second, "receive timestamps", func() bool {
		if _, err := c.Write([]byte("x\n")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAtLeast(c, buf, len("ok x\n")); err != nil {
			t.Fatal(err)
		}
		return !Received(c).IsZero()
	})
}

func TestRoundTripAndReceiveTime(t *testing.T) {
	tests := []struct {
		name  string
		delay time.Duration
	}{
		{"immediate", 0},
		{"20ms", 20 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPoller(t)
			harvesting(t, p)
			stampsOn(t, p)
			addr := server(t, tt.delay)
			c, err := p.Dial(context.Background(), addr, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			for i := range 5 {
				msg := fmt.Sprintf("req %d\n", i)
				sent := time.Now()
				if _, err := c.Write([]byte(msg)); err != nil {
					t.Fatal(err)
				}
				buf := make([]byte, 100)
				n, err := c.Read(buf)
				read := time.Now()
				if err != nil {
					t.Fatal(err)
				}
				if got := string(buf[:n]); got != "ok "+msg {
					t.Fatalf("got %q", got)
				}
				rx := Received(c)
				if rx.Before(sent.Add(tt.delay)) || rx.After(read) {
					t.Fatalf("received at %v after sending, read at %v: want within [%v, %v]",
						rx.Sub(sent), read.Sub(sent), tt.delay, read.Sub(sent))
				}
			}
		})
	}
}

func TestReadWaitsForHarvest(t *testing.T) {
	p := newPoller(t)
	addr := server(t, 0)
	c, err := p.Dial(context.Background(), addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 10)
		n, err := c.Read(buf)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(buf[:n])
	}()
	select {
	case s := <-got:
		t.Fatalf("Read returned %q before any Harvest", s)
	case <-time.After(50 * time.Millisecond):
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		p.Harvest()
		select {
		case s := <-got:
			if s != "ok x\n" {
				t.Fatalf("got %q", s)
			}
			return
		case <-time.After(time.Millisecond):
		}
	}
	t.Fatal("Read not resumed by Harvest")
}

func TestWaitsEnd(t *testing.T) {
	tests := []struct {
		name string
		end  func(p *Poller, c net.Conn) // called while Read waits; nil: deadline 30 ms
	}{
		{"deadline", nil},
		{"deadline moved into the past", func(p *Poller, c net.Conn) { c.SetDeadline(time.Unix(1, 0)) }},
		{"abort", func(p *Poller, c net.Conn) { p.Abort() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPoller(t)
			harvesting(t, p)
			addr := server(t, time.Hour) // never answers within the test
			c, err := p.Dial(context.Background(), addr, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			start := time.Now() // before the 30 ms start: the wait cannot end sooner
			if tt.end == nil {
				c.SetDeadline(time.Now().Add(30 * time.Millisecond))
			} else {
				c.SetDeadline(time.Now().Add(10 * time.Second))
				time.AfterFunc(30*time.Millisecond, func() { tt.end(p, c) })
			}
			_, err = c.Read(make([]byte, 10))
			took := time.Since(start)
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("err = %v, want a timeout", err)
			}
			if took < 30*time.Millisecond || took > 5*time.Second {
				t.Fatalf("Read ended after %v, want ~30ms", took)
			}
			if !strings.HasPrefix(err.Error(), "read tcp 127.0.0.1:") {
				t.Fatalf("error %q not worded as net.Conn's", err)
			}
		})
	}
}

func TestDialErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	p := newPoller(t)
	harvesting(t, p)
	tests := []struct {
		addr, want string
	}{
		{closed, "dial tcp " + closed + ": connect: connection refused"},
		{"127.0.0.1", "dial tcp: address 127.0.0.1: missing port in address"},
		{":" + strings.Split(closed, ":")[1], "dial tcp " + closed + ": connect: connection refused"}, // empty host: the local system
	}
	for _, tt := range tests {
		_, err := p.Dial(context.Background(), tt.addr, time.Second)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Dial(%q) = %v, want %q", tt.addr, err, tt.want)
		}
	}
}

func TestServerCloseIsEOF(t *testing.T) {
	addr := serveOnce(t, func(c net.Conn) { c.Write([]byte("bye")) })
	p := newPoller(t)
	harvesting(t, p)
	c, err := p.Dial(context.Background(), addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(c)
	if err != nil || string(b) != "bye" {
		t.Fatalf("ReadAll = %q, %v; want bye, nil", b, err)
	}
}

// A write larger than the socket buffers waits for Harvest and completes.
func TestLargeWrite(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c)
		got <- b
	}()
	p := newPoller(t)
	harvesting(t, p)
	c, err := p.Dial(context.Background(), ln.Addr().String(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
	if n, err := c.Write(big); err != nil || n != len(big) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	c.Close()
	if b := <-got; !bytes.Equal(b, big) {
		t.Fatalf("server got %d bytes, want %d", len(b), len(big))
	}
}

// Many connections in parallel, one harvester: every answer arrives.
func TestConcurrentConnections(t *testing.T) {
	p := newPoller(t)
	harvesting(t, p)
	addr := server(t, time.Millisecond)
	const conns, rounds = 16, 20
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := p.Dial(context.Background(), addr, time.Second)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			buf := make([]byte, 64)
			for j := range rounds {
				msg := fmt.Sprintf("%d.%d\n", i, j)
				if _, err := c.Write([]byte(msg)); err != nil {
					errs <- err
					return
				}
				n, err := io.ReadAtLeast(c, buf, len(msg)+3)
				if err != nil || string(buf[:n]) != "ok "+msg {
					errs <- fmt.Errorf("conn %d round %d: %q, %v", i, j, buf[:n], err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestReceivedOtherConn(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if rx := Received(a); !rx.IsZero() {
		t.Fatalf("Received(pipe) = %v, want zero", rx)
	}
}

// Dial and the rest of an answer do not wait for Harvest: a connection's
// set-up and a large answer's tail are part of a latency, and reading them
// a tick at a time would stretch it.
func TestOnlyFirstBytesWaitForHarvest(t *testing.T) {
	const size = 32 << 20
	addr := serveOnce(t, func(c net.Conn) {
		if _, err := c.Read(make([]byte, 10)); err == nil {
			c.Write(make([]byte, size))
		}
	})
	p := newPoller(t)
	start := time.Now()
	c, err := p.Dial(context.Background(), addr, time.Second) // nobody harvests yet
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Fatalf("Dial took %v without Harvest", took)
	}
	c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	// Harvests every 20 ms until the first bytes are read (one harvest
	// could come before them, and the first bytes rightly wait for the
	// next), then none: the rest of the answer must not wait for one.
	firstRead := make(chan struct{})
	harvested := make(chan struct{})
	go func() {
		defer close(harvested)
		for {
			select {
			case <-firstRead:
				return
			case <-time.After(20 * time.Millisecond):
				p.Harvest()
			}
		}
	}()
	buf := make([]byte, 64<<10)
	got := 0
	var first time.Time
	for got < size {
		n, err := c.Read(buf)
		if err != nil {
			t.Fatalf("after %d bytes: %v", got, err)
		}
		if got == 0 {
			first = time.Now()
			close(firstRead)
			<-harvested // no harvest from here on
		}
		got += n
	}
	// No harvest comes after the first bytes, so a rest that waited for one
	// would not arrive at all (the read fails at its 20 s deadline). The
	// bound is for a rest read a slow tick at a time; it is generous, as
	// the rest typically takes 50-500 ms under -race on a loaded machine
	// and a blocked read hands its processor back only at the runtime's
	// next look.
	if took := time.Since(first); took > 10*time.Second {
		t.Fatalf("the rest of a %d MiB answer took %v after its first bytes", size>>20, took)
	}
}

// A name with IPv4 and IPv6 addresses is dialled as net.Dial does: the
// next address when the first refuses ("localhost" served on ::1 only).
func TestDialFallsBackToIPv6(t *testing.T) {
	ln, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Skip("no IPv6 loopback:", err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Write([]byte("six"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	p := newPoller(t)
	addr := net.JoinHostPort("dual.test", fmt.Sprint(port))
	p.addrs[addr] = []*net.TCPAddr{{IP: net.IPv4(127, 0, 0, 1), Port: port}, {IP: net.IPv6loopback, Port: port}}
	c, err := p.Dial(context.Background(), addr, time.Second)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	harvesting(t, p)
	if b, err := io.ReadAll(c); string(b) != "six" {
		t.Fatalf("read %q, %v", b, err)
	}
}

// An answer larger than largeAnswer marks its connection: the next
// answer's first bytes are read as soon as they arrive, without waiting
// for a Harvest (which would stall its sender on the receive window and
// make its latency longer), while a connection with small answers keeps
// waiting for Harvest (TestReadWaitsForHarvest).
func TestLargeAnswersAreNotHeldForHarvest(t *testing.T) {
	const size = 256 << 10
	addr := serveOnce(t, func(c net.Conn) {
		buf := make([]byte, 10)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
			time.Sleep(5 * time.Millisecond) // the answer comes after the reader waits
			if _, err := c.Write(make([]byte, size)); err != nil {
				return
			}
		}
	})
	p := newPoller(t)
	c, err := p.Dial(context.Background(), addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	exchange := func() error {
		if _, err := c.Write([]byte("go\n")); err != nil {
			return err
		}
		_, err := io.ReadFull(c, make([]byte, size))
		return err
	}

	// The first answer's size is not known yet: it waits for a harvest.
	stop := make(chan struct{})
	harvested := make(chan struct{})
	go func() {
		defer close(harvested)
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				p.Harvest()
			}
		}
	}()
	if err := exchange(); err != nil {
		t.Fatal(err)
	}
	close(stop)
	<-harvested

	// No harvest from here on: a wait left to Harvest would run into the
	// 20 s deadline.
	for i := range 3 {
		if err := exchange(); err != nil {
			t.Fatalf("large answer %d without Harvest: %v", i+2, err)
		}
	}

	// A new connection on the same poller starts like the last answer: large.
	addr2 := serveOnce(t, func(c net.Conn) {
		if _, err := c.Read(make([]byte, 10)); err == nil {
			time.Sleep(5 * time.Millisecond)
			c.Write(make([]byte, size))
		}
	})
	c2, err := p.Dial(context.Background(), addr2, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	c2.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := c2.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c2, make([]byte, size)); err != nil {
		t.Fatalf("first large answer on a new connection without Harvest: %v", err)
	}
}
