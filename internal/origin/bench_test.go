package origin

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkHandler measures the handler alone (no network): a 1 kB random
// body, no latency.
func BenchmarkHandler(b *testing.B) {
	sim := New(Options{Seed: 1})
	defer sim.Close()
	if err := sim.LoadRecipe([]byte(`{"random_content": "1kb", "stages": [{"status": 200}]}`), "bench"); err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/x", nil)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			w := httptest.NewRecorder()
			sim.ServeHTTP(w, req)
		}
	})
}
