// Command floor is a bench reference, not a product: the least a reverse
// proxy written in Go can do for bench/proxy/run.sh's overhead traffic
// (HTTP/1.1 keep-alive GETs without a body, answers with a Content-Length,
// a fixed pool of upstream keep-alive connections, one Go processor as
// `loadlab proxy -procs 1`), so that its CPU per request, beside nginx's
// with one worker and the real proxy's in the same run, says where the
// floor is (issue 23; bench/README.md, proxy, "The floor").
//
// Modes, each doing by default the same work and nothing else (no header
// rewriting, no timeouts, no metrics, no allocation per request):
//
//	relay      a goroutine per client connection on net.Conn; the pool is a
//	           buffered channel of idle upstream connections
//	relay-raw  the same on internal/rawconn: the request is written from
//	           inside the upstream answer's first read and the answer from
//	           inside the client's next read, so neither read starts with
//	           an EAGAIN (only safe for clients that do not pipeline)
//	epoll      nginx's design: one locked OS thread, one epoll_wait loop
//	           over non-blocking client and upstream sockets
//
// Options add one piece of the real proxy's work each, to measure its cost
// on the floor: -rewrite (every mode: the request head passed on with Host
// set to the upstream's, hop-by-hop fields dropped and X-Forwarded-For
// added, as loadlab proxy does), and for the relay modes -manager
// (checkout and checkin through a manager goroutine, as the serial pool),
// -deadlines (the client's read deadlines and the upstream request
// deadline, set per request as the real proxy sets them), -stamps
// (relay-raw: requests read with the kernel's receive time, recvmsg
// instead of read, as loadlab's lean server reads them),
// -defer-answer=false (relay-raw writes the answer at once, and the next
// read starts with an EAGAIN), -watch (a client that leaves during its
// request breaks the upstream exchange off, noticed as loadlab's lean
// server notices it: package hangup's epoll set, each client joined once).
//
// Anything else (a request with a body, a method other than GET, an
// answer without a Content-Length, a head larger than the buffer) closes
// the connection: a reference for the bench, not a proxy. An upstream
// connection that fails is replaced by a fresh dial; if that dial fails
// too, the pool is one connection smaller. It only dials loopback
// upstreams and exits by itself after -max-life.
//
// Usage: go build -o floor ./bench/proxy/floor && floor -mode relay
// -upstream 127.0.0.1:PORT -listen 127.0.0.1:0; it prints "listening on
// http://ADDR" like loadlab's servers.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"
	"time"
)

// bufSize is each buffer's size: a request head, an answer's head and
// whatever part of its body one read brings.
const bufSize = 16 << 10

func main() {
	mode := flag.String("mode", "relay", "relay, relay-raw or epoll")
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (loopback)")
	upstream := flag.String("upstream", "", "origin's host:port (loopback only)")
	size := flag.Int("pool", 64, "upstream keep-alive connections, all dialed at start")
	maxLife := flag.Duration("max-life", 30*time.Minute, "exit after this long")
	var opts options
	flag.BoolVar(&opts.deferAnswer, "defer-answer", true, "relay-raw: write the answer from inside the client's next read")
	flag.BoolVar(&opts.manager, "manager", false, "relay modes: check connections out and in through a manager goroutine")
	flag.BoolVar(&opts.rewrite, "rewrite", false, "rewrite each request head as loadlab proxy does (Host, hop-by-hop fields, X-Forwarded-For)")
	flag.BoolVar(&opts.stamps, "stamps", false, "relay-raw: read requests with the kernel's receive time (SO_TIMESTAMPNS, recvmsg), as loadlab's lean server does")
	flag.BoolVar(&opts.deadlines, "deadlines", false, "relay modes: set the client's read deadlines and the upstream deadline per request")
	flag.BoolVar(&opts.watch, "watch", false, "relay modes: watch each client's end (an epoll set, as loadlab's lean server) and break the upstream exchange off when it leaves")
	flag.Parse()
	if err := checkArgs(*mode, *listen, *upstream, *size, *maxLife); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(2)
	}
	runtime.GOMAXPROCS(1) // as loadlab proxy's default -procs 1
	time.AfterFunc(*maxLife, func() { os.Exit(0) })
	var err error
	switch *mode {
	case "relay", "relay-raw":
		opts.raw = *mode == "relay-raw"
		err = runRelay(*listen, *upstream, *size, opts)
	case "epoll":
		err = runEpoll(*listen, *upstream, *size, opts.rewrite)
	}
	fmt.Fprintln(os.Stderr, "floor:", err)
	os.Exit(1)
}

// checkArgs rejects what the reference does not do: other modes, other
// hosts than loopback, an empty pool, no time bound.
func checkArgs(mode, listen, upstream string, size int, maxLife time.Duration) error {
	switch mode {
	case "relay", "relay-raw", "epoll":
	default:
		return fmt.Errorf("-mode: want relay, relay-raw or epoll, got %q", mode)
	}
	for _, a := range [][2]string{{"-listen", listen}, {"-upstream", upstream}} {
		host, _, err := net.SplitHostPort(a[1])
		if err != nil {
			return fmt.Errorf("%s: want host:port, got %q", a[0], a[1])
		}
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return fmt.Errorf("%s: want a loopback address, got %q", a[0], a[1])
		}
	}
	if size < 1 {
		return fmt.Errorf("-pool: want 1 or more, got %d", size)
	}
	if maxLife <= 0 {
		return fmt.Errorf("-max-life: want a positive duration, got %v", maxLife)
	}
	return nil
}

// onListen is called with the address once a mode listens (tests catch
// it; the program prints it).
var onListen = announce

// announce prints the listening line the bench scripts wait for.
func announce(addr net.Addr) {
	fmt.Printf("floor: listening on http://%s\n", addr)
}
