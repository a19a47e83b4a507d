package sent

import (
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

// The two ways of keeping what a templated target really sent, per
// request (bench/README.md, "Templated targets"): storing the rendered
// request in every result, or storing the template once and rendering
// again from the seed and the sequence number. The target is the
// search-flood incident's, a URL of 50 random letters.

const searchURL = "http://127.0.0.1:8080/search?q={{rand.letters 50}}"

type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// writeResults writes b.N results through a loadlab results writer, with
// URL(i) as each one's URL, and reports the bytes per request.
func writeResults(b *testing.B, url func(i int) string) {
	var c counter
	w, err := results.NewWriter(&c, results.Meta{Generator: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Unix(1_795_296_174, 0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		due := start.Add(time.Duration(i) * time.Millisecond)
		r := results.Result{Attack: "search", Seq: uint64(i), Due: due, Sent: due.Add(40 * time.Microsecond),
			Latency: 5*time.Millisecond + time.Duration(i%20_000_000), Code: 200, BytesIn: 1024, Method: "GET", URL: url(i)}
		if err := w.Encode(&r); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(c.n)/float64(b.N), "B/req")
}

// Stored: every result carries the URL really requested.
func BenchmarkStoreRendered(b *testing.B) {
	tmpl := targets.MustCompile(searchURL)
	rng := targets.NewRand(1)
	var buf []byte
	writeResults(b, func(i int) string {
		buf = tmpl.AppendSeeded(buf[:0], rng, 42, uint64(i), targets.PartURL)
		return string(buf)
	})
}

// Rendered again: results carry the template (the seed and the template
// are in the file's header, once).
func BenchmarkStoreTemplate(b *testing.B) {
	writeResults(b, func(int) string { return searchURL })
}

// What the attack pays per request for reproducible rendering: the
// reseeding of the random source before each templated part, against
// rendering from one continuing random source.
func BenchmarkAttackRenderSeeded(b *testing.B) {
	tmpl := targets.MustCompile(searchURL)
	rng := targets.NewRand(1)
	buf := make([]byte, 0, 128)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = tmpl.AppendSeeded(buf[:0], rng, 42, uint64(i), targets.PartURL)
	}
}

func BenchmarkAttackRenderUnseeded(b *testing.B) {
	tmpl := targets.MustCompile(searchURL)
	rng := targets.NewRand(1)
	buf := make([]byte, 0, 128)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = tmpl.Append(buf[:0], rng, uint64(i))
	}
}

// What encode pays per result to render the request again.
func BenchmarkRenderAgain(b *testing.B) {
	r, err := New(&results.Meta{Seed: 42, Templates: []results.TemplatedTarget{{Index: 0, Method: "GET", URL: searchURL}}})
	if err != nil {
		b.Fatal(err)
	}
	var res results.Result
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res = results.Result{Seq: uint64(i), URL: searchURL}
		r.Render(&res)
	}
}
