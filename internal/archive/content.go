package archive

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/load"
	"github.com/loadlab/loadlab/internal/slug"
)

// ContentHash is the hash that makes two adds of the same content one run:
// SHA-256 over the files sorted by name, each as its name, its size and its
// bytes, plus extra (what tells runs made from the same files apart, e.g.
// the matrix cell of a run folder). It reads every file once.
func ContentHash(files []BundleFile, extra string) (string, error) {
	fs := append([]BundleFile(nil), files...)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Name < fs[j].Name })
	h := sha256.New()
	io.WriteString(h, extra)
	h.Write([]byte{0})
	var n [8]byte
	for _, f := range fs {
		rc, err := f.Open()
		if err != nil {
			return "", err
		}
		io.WriteString(h, f.Name)
		h.Write([]byte{0})
		cw := &countWriter{w: h}
		_, err = io.Copy(cw, rc)
		rc.Close()
		if err != nil {
			return "", fmt.Errorf("%s: %w", f.Name, err)
		}
		binary.LittleEndian.PutUint64(n[:], uint64(cw.n))
		h.Write(n[:])
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// idEncoding is lower-case base32 without padding: URL-safe and readable.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// IDLen is the length of a run ID (60 bits of the content hash).
const IDLen = 12

// NewID derives a run's permanent ID from its content hash: the same
// content always has the same ID.
func NewID(content string) string {
	raw, err := hex.DecodeString(content)
	if err != nil || len(raw) < 8 {
		sum := sha256.Sum256([]byte(content))
		raw = sum[:]
	}
	return idEncoding.EncodeToString(raw[:8])[:IDLen]
}

// Slug is a run's readable permanent name, as vegeta's results sites name
// a run (vegeta-60s-350rps-<id>): the name, the attack's length in whole
// seconds, its load, and the ID. The load is the rate in requests per
// second, or a closed loop's users (users, when not empty: the users of
// each of its steps, every scenario of the run being a closed loop, whose
// rate is what they achieved rather than what was asked): "32users",
// "4-32users" for a sweep.
func Slug(name string, d time.Duration, rate float64, users []int, id string) string {
	parts := []string{slug.Make(name, "run")}
	if s := int64(math.Round(d.Seconds())); s > 0 {
		parts = append(parts, fmt.Sprintf("%ds", s))
	}
	if u := load.Closed(users...).Count(); u != "" {
		parts = append(parts, u+"users")
	} else if r := int64(math.Round(rate)); r > 0 {
		parts = append(parts, fmt.Sprintf("%drps", r))
	}
	parts = append(parts, id)
	return strings.Join(parts, "-")
}
