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
