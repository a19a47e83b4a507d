package sampler

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// TCP series, per process (prefixed with its name) and for the whole
// machine (prefixed "host"): connections established now, and closed
// connections waiting out TIME_WAIT. A run that leaks connections shows a
// climbing established count; one that churns through ports (a dial and a
// close per request) a climbing time-wait count, which exhausts the
// ephemeral ports when it reaches their range.
const (
	SeriesTCPEstablished = "tcp established"
	SeriesTCPTimeWait    = "tcp time-wait"
)

// TCP states as /proc/net/tcp writes them.
const (
	tcpEstablished = 0x01
	tcpTimeWait    = 0x06
	tcpListen      = 0x0A
)

// tcpRow is one socket of /proc/net/tcp or tcp6.
type tcpRow struct {
	localPort, remotePort int
	state                 int
	inode                 uint64
}

// parseTCPTable reads the rows of a /proc/net/tcp or tcp6 file.
func parseTCPTable(data []byte) []tcpRow {
	var rows []tcpRow
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 4096), 1<<20)
	first := true
	for sc.Scan() {
		if first { // the header line
			first = false
			continue
		}
		f := strings.Fields(sc.Text())
		if len(f) < 10 {
			continue
		}
		lp, ok1 := hexPort(f[1])
		rp, ok2 := hexPort(f[2])
		st, err := strconv.ParseUint(f[3], 16, 8)
		ino, err2 := strconv.ParseUint(f[9], 10, 64)
		if !ok1 || !ok2 || err != nil || err2 != nil {
			continue
		}
		rows = append(rows, tcpRow{localPort: lp, remotePort: rp, state: int(st), inode: ino})
	}
	return rows
}

// hexPort takes the port of an "ADDR:PORT" field, both in hex.
func hexPort(field string) (int, bool) {
	i := strings.LastIndexByte(field, ':')
	if i < 0 {
		return 0, false
	}
	p, err := strconv.ParseUint(field[i+1:], 16, 16)
	return int(p), err == nil
}

// socketInodes lists the socket inodes a process holds open.
func socketInodes(pid int) (map[uint64]bool, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[uint64]bool{}
	for _, e := range ents {
		link, err := os.Readlink(dir + "/" + e.Name())
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		if ino, err := strconv.ParseUint(strings.TrimSuffix(link[len("socket:["):], "]"), 10, 64); err == nil {
			out[ino] = true
		}
	}
	return out, nil
}

// tcpCounts is what one reading finds for one process.
type tcpCounts struct{ established, timeWait int }

// attributeTCP counts each process's established sockets, and gives each
// TIME_WAIT socket (which no process owns any more) to the process it
// belonged to: the server whose listening port is its local port (the
// server closed first), else the client whose connections go to its remote
// port. peers remembers, per process, the remote ports it was seen
// connected to, so a client whose connections are all closed still gets
// its time-waits; it is updated in place.
func attributeTCP(rows []tcpRow, owned map[string]map[uint64]bool, peers map[string]map[int]bool) (per map[string]tcpCounts, hostEstablished, hostTimeWait int) {
	per = map[string]tcpCounts{}
	listenBy := map[int]string{}
	for _, r := range rows {
		if r.state != tcpListen {
			continue
		}
		for name, inodes := range owned {
			if inodes[r.inode] {
				listenBy[r.localPort] = name
			}
		}
	}
	for _, r := range rows {
		if r.state != tcpEstablished {
			continue
		}
		hostEstablished++
		for name, inodes := range owned {
			if !inodes[r.inode] {
				continue
			}
			c := per[name]
			c.established++
			per[name] = c
			if _, isServerSide := listenBy[r.localPort]; !isServerSide {
				if peers[name] == nil {
					peers[name] = map[int]bool{}
				}
				peers[name][r.remotePort] = true
			}
		}
	}
	for _, r := range rows {
		if r.state != tcpTimeWait {
			continue
		}
		hostTimeWait++
		name, ok := listenBy[r.localPort]
		if !ok {
			for n, ports := range peers {
				if ports[r.remotePort] {
					name, ok = n, true
					break
				}
			}
		}
		if ok {
			c := per[name]
			c.timeWait++
			per[name] = c
		}
	}
	return per, hostEstablished, hostTimeWait
}

// sampleTCP adds the TCP series of procs and of the machine.
func (s *Sampler) sampleTCP(now time.Time, procs []Proc) {
	var rows []tcpRow
	for _, f := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		if data, err := os.ReadFile(f); err == nil {
			rows = append(rows, parseTCPTable(data)...)
		}
	}
	if len(rows) == 0 {
		return // not Linux, or no /proc
	}
	owned := map[string]map[uint64]bool{}
	for _, p := range procs {
		if inodes, err := socketInodes(p.PID); err == nil {
			owned[p.Name] = inodes
		}
	}
	s.mu.Lock()
	if s.tcpPeers == nil {
		s.tcpPeers = map[string]map[int]bool{}
	}
	per, est, tw := attributeTCP(rows, owned, s.tcpPeers)
	s.mu.Unlock()
	for _, p := range procs {
		if _, ok := owned[p.Name]; !ok {
			continue
		}
		c := per[p.Name]
		s.add(Sample{Time: now, Series: p.Name + " " + SeriesTCPEstablished, Unit: "connections", Value: float64(c.established)})
		s.add(Sample{Time: now, Series: p.Name + " " + SeriesTCPTimeWait, Unit: "connections", Value: float64(c.timeWait)})
	}
	s.add(Sample{Time: now, Series: "host " + SeriesTCPEstablished, Unit: "connections", Value: float64(est)})
	s.add(Sample{Time: now, Series: "host " + SeriesTCPTimeWait, Unit: "connections", Value: float64(tw)})
}
