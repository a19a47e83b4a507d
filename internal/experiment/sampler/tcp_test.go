package sampler

import (
	"io"
	"net"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/testwait"
)

func TestParseTCPTable(t *testing.T) {
	table := []byte(`  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 1002 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:C350 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 2001 1 0000000000000000 20 4 30 10 -1
   3: 0100007F:C351 0100007F:1F90 06 00000000:00000000 03:00000296 00000000     0        0 0 3 0000000000000000
   4: 0100007F:1F90 0100007F:C352 06 00000000:00000000 03:00000296 00000000     0        0 0 3 0000000000000000
   5: garbage
`)
	rows := parseTCPTable(table)
	if len(rows) != 5 {
		t.Fatalf("%d rows: %+v", len(rows), rows)
	}
	if r := rows[1]; r.localPort != 8080 || r.remotePort != 50000 || r.state != tcpEstablished || r.inode != 1002 {
		t.Errorf("row 1: %+v", r)
	}
	// The server (8080) owns 1001 and 1002; the client owns 2001.
	owned := map[string]map[uint64]bool{"proxy": {1001: true, 1002: true}, "gen": {2001: true}}
	peers := map[string]map[int]bool{}
	per, est, tw := attributeTCP(rows, owned, peers)
	if est != 2 || tw != 2 {
		t.Errorf("host: %d established, %d time-wait", est, tw)
	}
	// Row 3 is the client's (its remote port is the server's), row 4 the
	// server's (its local port is the listening one).
	if per["proxy"] != (tcpCounts{established: 1, timeWait: 1}) || per["gen"] != (tcpCounts{established: 1, timeWait: 1}) {
		t.Errorf("per process: %+v", per)
	}
	// Once the client's connections are all closed, its time-waits are
	// still its own.
	per, _, _ = attributeTCP(rows[3:4], map[string]map[uint64]bool{"gen": {}}, peers)
	if per["gen"].timeWait != 1 {
		t.Errorf("remembered peer: %+v", per)
	}
}

// On a real loopback: connections this process holds are counted as
// established, and those it closed first as time-wait.
func TestSampleTCPOnLoopback(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const n = 5
	served := make(chan net.Conn, n)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			served <- c
		}
	}()
	var clients, servers []net.Conn
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
		servers = append(servers, <-served)
	}
	s := New(Config{Generator: "gen"})
	procs := []Proc{{Name: "gen", PID: os.Getpid()}}
	s.sampleTCP(time.Now(), procs)
	if v := last(s, "gen "+SeriesTCPEstablished); v < 2*n {
		t.Errorf("established = %v, want >= %d", v, 2*n)
	}
	for i := range clients { // the client closes first: it holds the time-wait
		clients[i].Close()
		_, _ = io.Copy(io.Discard, servers[i])
		servers[i].Close()
	}
	// The kernel's table shows the closed sockets a moment later.
	if !testwait.Until(10*time.Second, func() bool {
		s.sampleTCP(time.Now(), procs)
		return last(s, "gen "+SeriesTCPTimeWait) >= n && last(s, "host "+SeriesTCPTimeWait) >= n
	}) {
		t.Fatalf("time-wait: gen %v, host %v; want >= %d", last(s, "gen "+SeriesTCPTimeWait), last(s, "host "+SeriesTCPTimeWait), n)
	}
}

func last(s *Sampler, series string) float64 {
	v := -1.0
	for _, smp := range s.Samples() {
		if smp.Series == series {
			v = smp.Value
		}
	}
	return v
}

// FuzzParseTCPTable: any text parses without panicking, and every row
// kept has ports and a state in range.
func FuzzParseTCPTable(f *testing.F) {
	f.Add([]byte("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0000000000000000 100 0 0 10 0\n"))
	f.Add([]byte("h\n 1: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 0:0 0:0 0 0 0 77\n x"))
	f.Add([]byte("h\n 1: :FFFFF :1 FF 0 0 0 0 0 0 18446744073709551615\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, r := range parseTCPTable(data) {
			if r.localPort < 0 || r.localPort > 0xffff || r.remotePort < 0 || r.remotePort > 0xffff || r.state < 0 || r.state > 0xff {
				t.Fatalf("row out of range: %+v", r)
			}
		}
	})
}

// BenchmarkSampleTCPStall measures how long one TCP reading keeps a
// goroutine that shares its processor from running, with 2,000 loopback
// sockets open (the generator's process holds thousands during a run):
// go test -run - -bench SampleTCPStall ./internal/experiment/sampler
func BenchmarkSampleTCPStall(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	const n = 1000
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Skipf("dial: %v", err)
		}
		s, err := ln.Accept()
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, c, s)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	s := New(Config{Generator: "gen"})
	procs := []Proc{{Name: "gen", PID: os.Getpid()}}
	var worst time.Duration
	for b.Loop() {
		done := make(chan struct{})
		stalls := make(chan time.Duration, 1)
		go func() { // a goroutine that wants to run every 100 µs
			var w time.Duration
			last := time.Now()
			for {
				select {
				case <-done:
					stalls <- w
					return
				default:
				}
				runtime.Gosched()
				now := time.Now()
				w = max(w, now.Sub(last))
				last = now
			}
		}()
		runtime.Gosched()
		s.sampleTCP(time.Now(), procs)
		close(done)
		worst = max(worst, <-stalls)
	}
	b.ReportMetric(float64(worst.Microseconds()), "worst-stall-µs")
}

// The netlink dump and the text table describe the same sockets.
func TestSockDiagMatchesProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("netlink and /proc are Linux's")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ln6, err6 := net.Listen("tcp", "[::1]:0")
	if err6 == nil {
		defer ln6.Close()
	}
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for _, l := range []net.Listener{ln, ln6} {
		if l == nil {
			continue
		}
		for range 3 {
			c, err := net.Dial("tcp", l.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			s, err := l.Accept()
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c, s)
		}
	}
	mine, err := socketInodes(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	pick := func(rows []tcpRow) map[tcpRow]bool {
		out := map[tcpRow]bool{}
		for _, r := range rows {
			if mine[r.inode] {
				out[r] = true
			}
		}
		return out
	}
	diag, _, err := tcpRowsSockDiag(nil)
	if err != nil {
		t.Skipf("no sock_diag here: %v", err)
	}
	var text []tcpRow
	for _, f := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		data, err := readYielding(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		text = append(text, parseTCPTable(data)...)
	}
	d, p := pick(diag), pick(text)
	want := 1 + 2*3 // the IPv4 listener and three connections, both ends
	if err6 == nil {
		want *= 2
	}
	if len(p) != want || len(d) != len(p) {
		t.Fatalf("netlink %d sockets, /proc %d, want %d", len(d), len(p), want)
	}
	for r := range p {
		if !d[r] {
			t.Errorf("/proc has %+v, netlink does not", r)
		}
	}
}
