package origin

import (
	"bytes"
	"compress/gzip"
	"math/rand/v2"
	"net/http"
	"strconv"

	"github.com/loadlab/loadlab/internal/origin/recipe"
)

// randomVariants is how many bodies a random_content range precomputes;
// each request picks one of them.
const randomVariants = 8

// defaultCacheControl is what origin_simulator (Plug) sends unless the
// recipe sets cache-control.
const defaultCacheControl = "max-age=0, private, must-revalidate"

// payload holds everything a route answers with, built at load time.
type payload struct {
	variants [][]byte    // bodies of 2xx answers, gzip-compressed if gzip
	lengths  [][]string  // Content-Length of each variant (shared, read-only)
	files    []*bodyFile // each variant in a file for sendfile, or nil entries
	okHeader http.Header // headers of 2xx answers (shared, read-only)
	erHeader http.Header // headers of other answers (shared, read-only)
	gzip     bool
	errBody  map[int][]byte // bodies of the non-2xx statuses the stages use
	// recorded is the status line of a fetched origin; a stage's 200
	// replays it (with the recorded body) when it is not 200.
	recorded int
}

// fetched is an origin's answer recorded at load time.
type fetched struct {
	status int
	header http.Header
	body   []byte
}

// buildPayload makes the bodies and headers of rec. f is the recorded
// origin answer when rec has an origin.
func buildPayload(rec *recipe.Recipe, rng *rand.Rand, f *fetched) *payload {
	p := &payload{gzip: rec.Gzip, errBody: map[int][]byte{}}
	if f != nil && f.status != http.StatusOK {
		p.recorded = f.status
	}
	var plain [][]byte
	contentType := ""
	switch {
	case f != nil:
		plain = [][]byte{f.body}
		contentType = f.header.Get("Content-Type")
	case rec.HasBody:
		var b bytes.Buffer
		for _, part := range rec.BodyParts {
			if part.Random > 0 {
				b.Write(randomText(rng, part.Random))
			} else {
				b.WriteString(part.Text)
			}
		}
		plain = [][]byte{b.Bytes()}
	case rec.HasRandom:
		n := 1
		if rec.RandomMax > rec.RandomMin {
			n = randomVariants
		}
		for i := 0; i < n; i++ {
			size := rec.RandomMin
			if rec.RandomMax > rec.RandomMin {
				size += rng.Int64N(rec.RandomMax - rec.RandomMin + 1)
			}
			plain = append(plain, randomText(rng, size))
		}
	default:
		plain = [][]byte{nil}
	}
	if contentType == "" {
		contentType = sniffType(plain[0])
	}
	for _, b := range plain {
		if p.gzip {
			b = gzipBytes(b)
		}
		p.variants = append(p.variants, b)
		p.lengths = append(p.lengths, []string{strconv.Itoa(len(b))})
		p.files = append(p.files, newBodyFile(b))
	}
	base := http.Header{"Cache-Control": {defaultCacheControl}}
	p.okHeader = base.Clone()
	if f != nil {
		for k, v := range f.header {
			if !skipRecorded[k] {
				p.okHeader[k] = v
			}
		}
	}
	p.okHeader.Set("Content-Type", contentType)
	p.erHeader = base.Clone()
	p.erHeader.Set("Content-Type", "text/html; charset=utf-8")
	for k, v := range rec.Headers {
		p.okHeader.Set(k, v)
		p.erHeader.Set(k, v)
	}
	for _, st := range rec.Stages {
		for _, c := range st.Status.Codes {
			if !isSuccess(c) {
				p.errBody[c] = p.encode(errorText(c, ""))
			}
		}
	}
	return p
}

// skipRecorded lists origin headers not replayed: they describe the
// recorded connection or encoding, not the content.
var skipRecorded = map[string]bool{
	"Content-Length": true, "Content-Encoding": true, "Transfer-Encoding": true,
	"Connection": true, "Keep-Alive": true, "Date": true, "Upgrade": true,
	"Proxy-Connection": true, "Trailer": true, "Te": true, "Alt-Svc": true,
}

// isSuccess reports whether status answers with the route's content.
// origin_simulator serves content for 200 only; loadlab for every 2xx but
// 204 and 205.
func isSuccess(status int) bool {
	return status >= 200 && status < 300 && status != 204 && status != 205
}

// errorText is origin_simulator's body for a non-content status.
func errorText(status int, path string) []byte {
	switch status {
	case 204, 205, 304:
		return nil
	case 404:
		return []byte("Not found")
	case 406:
		return []byte(recipeNotSet(path))
	}
	return []byte("Error " + strconv.Itoa(status))
}

// recipeNotSet is origin_simulator's message for a path no recipe covers.
func recipeNotSet(path string) string {
	if path == "" {
		return "Recipe not set, please POST a recipe to /_admin/add_recipe"
	}
	return "Recipe not set at " + path + ", please POST a recipe for this route to /_admin/add_recipe"
}

// encode compresses b when the recipe asks for gzip.
func (p *payload) encode(b []byte) []byte {
	if p.gzip && b != nil {
		return gzipBytes(b)
	}
	return b
}

// body returns the body for status, its headers and, when precomputed,
// its Content-Length; variant picks a random_content body.
func (p *payload) body(status, variant int, path string) ([]byte, http.Header, []string) {
	if isSuccess(status) || (p.recorded != 0 && status == p.recorded) {
		v := variant % len(p.variants)
		return p.variants[v], p.okHeader, p.lengths[v]
	}
	if b, ok := p.errBody[status]; ok && status != 406 {
		return b, p.erHeader, nil
	}
	return p.encode(errorText(status, path)), p.erHeader, nil
}

// sniffType is origin_simulator's content-type rule: JSON when the body
// starts with "{", HTML otherwise.
func sniffType(b []byte) string {
	if len(b) > 0 && b[0] == '{' {
		return "application/json; charset=utf-8"
	}
	return "text/html; charset=utf-8"
}

const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// randomText returns n random base64 characters, as origin_simulator's
// random content, drawn from rng so a seed reproduces it.
func randomText(rng *rand.Rand, n int64) []byte {
	b := make([]byte, n)
	for i := int64(0); i < n; i += 8 {
		x := rng.Uint64()
		for j := i; j < i+8 && j < n; j++ {
			b[j] = base64Alphabet[x&63]
			x >>= 8
		}
	}
	return b
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// release closes the body files; answers still using them finish.
func (p *payload) release() {
	for _, f := range p.files {
		f.close()
	}
}
