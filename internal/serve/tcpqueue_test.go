package serve

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/testwait"
)

// serverHasRead waits until the server has read every byte written on c,
// a loopback connection to it: the client's send queue is empty (the
// bytes reached the server's socket) and so is the server socket's receive
// queue (the server read them), as the kernel's table of TCP sockets says.
// Where there is no such table it returns at once.
func serverHasRead(t *testing.T, c net.Conn) {
	t.Helper()
	client, server := c.LocalAddr().(*net.TCPAddr), c.RemoteAddr().(*net.TCPAddr)
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Logf("no /proc/net/tcp (%v): cannot wait for the server's read", err)
		return
	}
	testwait.Eventually(t, 10*time.Second, "the server to read what was sent", func() bool {
		sent, okC := tcpQueues(t, client, server)
		recv, okS := tcpQueues(t, server, client)
		return okC && okS && sent[0] == 0 && recv[1] == 0
	})
}

// tcpQueues finds the IPv4 socket local→remote in /proc/net/tcp and returns
// its send and receive queues (bytes not yet acknowledged by the peer, and
// bytes not yet read by the application).
func tcpQueues(t *testing.T, local, remote *net.TCPAddr) (q [2]uint64, ok bool) {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := procAddr(local) + " " + procAddr(remote)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 5 || fs[1]+" "+fs[2] != want {
			continue
		}
		tx, rx, _ := strings.Cut(fs[4], ":")
		a, err1 := strconv.ParseUint(tx, 16, 64)
		b, err2 := strconv.ParseUint(rx, 16, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad queues in /proc/net/tcp: %q", sc.Text())
		}
		return [2]uint64{a, b}, true
	}
	return q, false
}

// procAddr writes an IPv4 address as /proc/net/tcp does: the address's
// four bytes (network order) read as a word of this machine, in hex, then
// the port.
func procAddr(a *net.TCPAddr) string {
	ip := a.IP.To4()
	if ip == nil {
		return "?"
	}
	return fmt.Sprintf("%08X:%04X", binary.NativeEndian.Uint32(ip), a.Port)
}
