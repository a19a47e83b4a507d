package origin

import (
	"bytes"
	"net/http/httptest"
	"sync"
	"testing"
)

// Large bodies go out with sendfile (and TCP_CORK when ConnContext is
// installed); concurrent answers must each get the whole body, also while
// the recipe is being replaced.
func TestLargeBodiesFromFile(t *testing.T) {
	sim := New(Options{Seed: 3})
	var srv *httptest.Server
	if leanTests {
		srv = newLeanServer(t, sim)
	} else {
		srv = httptest.NewUnstartedServer(sim)
		srv.Config.ConnContext = ConnContext
		srv.Start()
		t.Cleanup(func() { _ = sim.Close(); srv.Close() })
	}
	if err := sim.LoadRecipe([]byte(`{"random_content": "100kb", "stages": [{"status": 200}]}`), "t"); err != nil {
		t.Fatal(err)
	}
	want := get(t, srv.URL+"/").body
	if len(want) != 100<<10 || sim.tab.Load().list[0].pay.files[0] == nil {
		t.Fatalf("body %d bytes, file %v", len(want), sim.tab.Load().list[0].pay.files)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				if i == 0 && j == 5 {
					// Same recipe again: same seed, same route, same body.
					_ = sim.LoadRecipe([]byte(`{"random_content": "100kb", "stages": [{"status": 200}]}`), "t")
				}
				r := get(t, srv.URL+"/")
				if r.err != nil || !bytes.Equal(r.body, want) {
					t.Errorf("answer %d/%d: %d bytes, err %v", i, j, len(r.body), r.err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
