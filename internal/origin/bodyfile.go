package origin

import (
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
)

// sendfileMin is the body size from which HTTP/1 answers are sent from a
// file with sendfile(2), as nginx does, instead of being copied from
// memory: it saves copying the body through user space on every answer.
const sendfileMin = 32 << 10

// maxIdleHandles caps the open handles a body file keeps for reuse.
const maxIdleHandles = 512

// bodyFile is a body kept in an unlinked temporary file. The lean server
// sends it from offset 0 of the one handle f. For net/http's server each
// answer uses a handle of its own (its own file offset, so concurrent
// answers do not race), opened through /proc/self/fd and kept for reuse,
// and lets net/http sendfile it.
type bodyFile struct {
	f    *os.File
	path string
	size int64

	mu     sync.Mutex
	idle   []*os.File
	closed bool
}

// newBodyFile stores b, or returns nil when that is not possible or not
// worth it; the caller then serves b from memory.
func newBodyFile(b []byte) *bodyFile {
	if len(b) < sendfileMin || runtime.GOOS != "linux" {
		return nil
	}
	dir := "/dev/shm"
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = ""
	}
	f, err := os.CreateTemp(dir, "loadlab-origin-body-")
	if err != nil {
		return nil
	}
	_ = os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil
	}
	bf := &bodyFile{f: f, path: "/proc/self/fd/" + strconv.Itoa(int(f.Fd())), size: int64(len(b))}
	g, err := bf.get()
	if err != nil {
		f.Close()
		return nil
	}
	bf.put(g)
	return bf
}

func (bf *bodyFile) get() (*os.File, error) {
	bf.mu.Lock()
	if bf.closed {
		bf.mu.Unlock()
		return nil, os.ErrClosed
	}
	if n := len(bf.idle); n > 0 {
		g := bf.idle[n-1]
		bf.idle = bf.idle[:n-1]
		bf.mu.Unlock()
		return g, nil
	}
	bf.mu.Unlock()
	return os.Open(bf.path)
}

func (bf *bodyFile) put(g *os.File) {
	if _, err := g.Seek(0, io.SeekStart); err == nil {
		bf.mu.Lock()
		if !bf.closed && len(bf.idle) < maxIdleHandles {
			bf.idle = append(bf.idle, g)
			bf.mu.Unlock()
			return
		}
		bf.mu.Unlock()
	}
	_ = g.Close()
}

// fileAtSender is a ResponseWriter that sends a body from a file at an
// offset without using the file's own offset (the lean server's; see
// http1's leanWriter.SendFileAt): all its answers share bf.f, with no
// handle to take and no seek to rewind it.
type fileAtSender interface {
	SendFileAt(f *os.File, off, n int64) (sent int64, ok bool, err error)
}

// send writes the body to w from the file; ok is false when no handle
// could be had (e.g. the recipe was just replaced) and nothing was written.
func (bf *bodyFile) send(w http.ResponseWriter) (n int, ok bool) {
	if fs, isFS := w.(fileAtSender); isFS {
		if m, ok, _ := fs.SendFileAt(bf.f, 0, bf.size); ok {
			return int(m), true
		}
	}
	g, err := bf.get()
	if err != nil {
		return 0, false
	}
	// The limit tells sendfile the size: no last call to find the end.
	m, err := io.Copy(w, &io.LimitedReader{R: g, N: bf.size})
	if err != nil {
		_ = g.Close() // offset unknown: do not reuse
	} else {
		bf.put(g)
	}
	return int(m), true
}

// close releases the file and the idle handles; handles in use are closed
// when their answers end.
func (bf *bodyFile) close() {
	if bf == nil {
		return
	}
	bf.mu.Lock()
	bf.closed = true
	idle := bf.idle
	bf.idle = nil
	bf.mu.Unlock()
	for _, g := range idle {
		_ = g.Close()
	}
	_ = bf.f.Close()
}
