package origin

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/loadlab/loadlab/internal/badinput"
)

// offline is a client that never leaves the process: fuzzed origins fail.
var offline = &http.Client{Transport: &http.Transport{
	DialContext: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("no network while fuzzing")
	},
}}

var bigSize = regexp.MustCompile(`(?i)\d{5,}|mb`)

// FuzzLoadRecipe checks that no recipe crashes the simulator: a load either
// works and the recipe serves, or fails with bad input and the previous
// recipe stays.
func FuzzLoadRecipe(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, fn := range files {
		if b, err := os.ReadFile(fn); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"route": "/a*", "body": "x<<2kb>>", "headers": {"content-encoding": "gzip"}, "stages": [{"status": {"200": 1, "404": 1}, "latency": 0, "faults": {"truncate": 0.5}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 8192 || bigSize.Match(data) {
			t.Skip("large bodies make slow fuzzing, not new paths")
		}
		sim := New(Options{Seed: 1, Client: offline})
		defer sim.Close()
		err := sim.LoadRecipe(data, "fuzz")
		if err != nil {
			if !badinput.Is(err) {
				t.Fatalf("error is not bad input: %v", err)
			}
			if tab := sim.tab.Load(); !tab.isDefault {
				t.Fatalf("a failed load changed the recipe")
			}
			return
		}
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/_admin/current_recipe", nil)
		w := httptest.NewRecorder()
		sim.ServeHTTP(w, req)
		if w.Code != 200 || !bytes.HasPrefix(w.Body.Bytes(), []byte("[")) {
			t.Fatalf("current_recipe: %d %s", w.Code, w.Body)
		}
	})
}
