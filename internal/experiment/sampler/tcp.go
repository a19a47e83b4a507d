package sampler

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"strconv"
	"syscall"
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

// yieldEvery is how many rows, descriptors or sockets the TCP sampling
// handles before it lets other goroutines run. It runs in the generator's
// process: with thousands of sockets, a pass without a pause kept a
// processor for 10-20 ms once a second, and the pacer or a worker queued
// behind it sent late by as much (bench/README.md, scale).
const yieldEvery = 256

// parseTCPTable reads the rows of a /proc/net/tcp or tcp6 file, without
// allocating per row.
func parseTCPTable(data []byte) []tcpRow {
	rows := make([]tcpRow, 0, bytes.Count(data, []byte{'\n'}))
	first := true
	for n := 0; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if first { // the header line
			first = false
			continue
		}
		if n%yieldEvery == 0 {
			runtime.Gosched()
		}
		var f [10][]byte
		k := 0
		for rest := line; k < len(f); k++ {
			rest = bytes.TrimLeft(rest, " ")
			if len(rest) == 0 {
				break
			}
			end := bytes.IndexByte(rest, ' ')
			if end < 0 {
				end = len(rest)
			}
			f[k], rest = rest[:end], rest[end:]
		}
		if k < len(f) {
			continue
		}
		lp, ok1 := hexPort(f[1])
		rp, ok2 := hexPort(f[2])
		st, ok3 := parseUint(f[3], 16)
		ino, ok4 := parseUint(f[9], 10)
		if !ok1 || !ok2 || !ok3 || !ok4 || st > 0xff {
			continue
		}
		rows = append(rows, tcpRow{localPort: lp, remotePort: rp, state: int(st), inode: ino})
	}
	return rows
}

// parseUint parses b in base 10 or 16, allocating nothing.
func parseUint(b []byte, base uint64) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case base == 16 && c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		case base == 16 && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		default:
			return 0, false
		}
		v = v*base + d
	}
	return v, true
}

// hexPort takes the port of an "ADDR:PORT" field, both in hex.
func hexPort(field []byte) (int, bool) {
	i := bytes.LastIndexByte(field, ':')
	if i < 0 {
		return 0, false
	}
	p, ok := parseUint(field[i+1:], 16)
	return int(p), ok && p <= 0xffff
}

// socketInodes lists the socket inodes a process holds open.
func socketInodes(pid int) (map[uint64]bool, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	out := make(map[uint64]bool, len(names))
	var buf [64]byte
	path := make([]byte, 0, len(dir)+12)
	const prefix = "socket:["
	for i, name := range names {
		if i%yieldEvery == 0 {
			runtime.Gosched()
		}
		path = append(append(path[:0], dir...), name...)
		n, err := syscall.Readlink(string(path), buf[:])
		if err != nil || n <= len(prefix) || string(buf[:len(prefix)]) != prefix || buf[n-1] != ']' {
			continue
		}
		if ino, ok := parseUint(buf[len(prefix):n-1], 10); ok {
			out[ino] = true
		}
	}
	return out, nil
}

// readYielding reads the file at path into buf, 16 kB per system call
// with a pause between them: the kernel formats /proc/net/tcp as it is
// read, about 1.3 µs a socket here, and one read of a table of 5,000
// sockets kept the processor 7 ms.
func readYielding(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	const chunk = 16 << 10
	for {
		if cap(buf)-len(buf) < chunk {
			buf = append(buf[:cap(buf)], make([]byte, chunk)...)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf) : len(buf)+chunk])
		buf = buf[:len(buf)+n]
		if err == io.EOF || (err == nil && n == 0) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		runtime.Gosched()
	}
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
	for i, r := range rows {
		if i%yieldEvery == 0 {
			runtime.Gosched()
		}
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
	for i, r := range rows {
		if i%yieldEvery == 0 {
			runtime.Gosched()
		}
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
	rows, buf, err := tcpRowsSockDiag(s.tcpBuf)
	s.tcpBuf = buf
	if err != nil { // no netlink here: the text tables
		for _, f := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
			if data, err := readYielding(f, s.tcpBuf[:0]); err == nil {
				s.tcpBuf = data
				rows = append(rows, parseTCPTable(data)...)
			}
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
