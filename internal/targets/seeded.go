package targets

import "fmt"

// Rendering is reproducible: each templated part of a request (its URL,
// each header value, its body) is rendered from a random source seeded
// with PartSeed(attack seed, sequence number, part), whichever client and
// worker sends it and in whatever order the parts are rendered. So the
// request really sent for a result can be rendered again from the
// template, the result's sequence number and the attack's seed (package
// sent does).

// Parts of a request, for PartSeed: the URL, header i (PartHeader(i)) and
// the body.
const (
	PartURL  = 0
	PartBody = 1 << 20
)

// PartHeader is the part number of the target's i-th header.
func PartHeader(i int) int { return 1 + i }

// PartSeed is the seed of one part of request seq in an attack seeded
// with seed.
func PartSeed(seed, seq uint64, part int) uint64 {
	return seed ^ seq*0x9e3779b97f4a7c15 ^ uint64(part)*0xc2b2ae3d27d4eb4f
}

// AppendSeeded renders t for part of request seq of an attack seeded with
// seed, appending to dst; rng is reseeded first unless t is static.
func (t *Template) AppendSeeded(dst []byte, rng *Rand, seed, seq uint64, part int) []byte {
	if t.static {
		return append(dst, t.Text()...)
	}
	rng.Seed(PartSeed(seed, seq, part))
	return t.Append(dst, rng, seq)
}

// Rebuild compiles a target from the sources of its parts, as Source and
// Template.Source give them (package sent rebuilds the templated targets
// recorded in a results file). header holds name and value pairs, in
// order; body is nil when the target has none.
func Rebuild(index uint32, method, url string, header [][2]string, body *string) (*Target, error) {
	u, err := Compile(url)
	if err != nil {
		return nil, fmt.Errorf("URL: %v", err)
	}
	t := &Target{Index: index, Method: method, URL: u}
	for _, h := range header {
		hd, err := compileHeader(h[0], h[1])
		if err != nil {
			return nil, err
		}
		t.Header = append(t.Header, hd)
	}
	if body != nil {
		if t.Body, err = Compile(*body); err != nil {
			return nil, fmt.Errorf("body: %v", err)
		}
	}
	t.finalize()
	return t, nil
}

// Templated reports whether any part of t is templated.
func (t *Target) Templated() bool {
	if !t.URL.Static() || (t.Body != nil && !t.Body.Static()) {
		return true
	}
	for _, h := range t.Header {
		if !h.Value.Static() {
			return true
		}
	}
	return false
}
