package site

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/archive/ingest"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock"
)

// A run its machine disturbed is marked noisy on its page, on the index
// and on the trend; a quiet run is not, and its page says what the
// machine did. The first build of the regression hunt's folder (a real
// run, written before loadlab measured the machine) shows its lag only,
// and that lag is noisy: 34 ms of its 55 ms p99 were the generator's own
// delay.
func TestNoisyRunMarked(t *testing.T) {
	ctx := context.Background()
	store, err := archive.Open(ctx, filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	stolen := runblock.Health{GeneratorCPU: 0.25, GeneratorSaturated: 0, Busy: 0.6, Steal: 0.2}
	quiet := runblock.Health{GeneratorCPU: 0.25, GeneratorSaturated: 0, Busy: 0.3, Steal: 0}
	ids := map[string]string{}
	for _, f := range []struct {
		path    string
		machine runblock.Health
	}{{"testdata/basic.bin", stolen}, {"testdata/withbody.bin", quiet}} {
		bs, _, err := ingest.Bundles(ctx, []string{withTrailer(t, f.path, f.machine)}, ingest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if ids[f.path], _, err = store.Add(ctx, identified(t, bs[0])); err != nil {
			t.Fatal(err)
		}
	}
	bs, _, err := ingest.Bundles(ctx, []string{huntDir}, ingest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hunt, _, err := store.Add(ctx, identified(t, bs[0]))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(store, Options{}))
	defer srv.Close()

	page := mustGet(t, srv, runURL(ids["testdata/basic.bin"]))
	if !strings.Contains(page, "machine health: generator CPU 0.25 cores, busy 60%, steal 20%, lag p99") ||
		!strings.Contains(page, `<span class="noisy" title="noisy: the hypervisor stole 20% of the machine">noisy</span>`) {
		t.Errorf("the stolen run's page lacks its health or noisy marker:\n%s", grep(page, "health"))
	}
	page = mustGet(t, srv, runURL(ids["testdata/withbody.bin"]))
	if !strings.Contains(page, "machine health: generator CPU 0.25 cores, busy 30%, steal 0%") || strings.Contains(page, `class="noisy"`) {
		t.Errorf("the quiet run's page:\n%s", grep(page, "health"))
	}
	if page := mustGet(t, srv, runURL(hunt)); !strings.Contains(page, "machine health: lag p99 34.34ms (62% of p99); noisy: its own schedule lag p99 (34.3ms) is 62% of its latency p99") {
		t.Errorf("the hunt's run page:\n%s", grep(page, "health"))
	}

	index := mustGet(t, srv, "/")
	rows := regexp.MustCompile(`(?s)<tr><td><input.*?</tr>`).FindAllString(index, -1)
	if len(rows) != 3 {
		t.Fatalf("%d rows on the index", len(rows))
	}
	for _, row := range rows {
		if strings.Contains(row, ids["testdata/withbody.bin"]) == strings.Contains(row, `class="noisy"`) {
			t.Errorf("index row marked wrong:\n%s", row)
		}
	}

	cmp := mustGet(t, srv, "/compare?id="+ids["testdata/basic.bin"]+"&id="+ids["testdata/withbody.bin"])
	if !strings.Contains(cmp, `<tr><td>machine</td><td>noisy <span class="noisy" title="noisy: the hypervisor stole 20% of the machine">noisy</span></td><td>lag `) {
		t.Errorf("the compare page's machine row:\n%s", grep(cmp, "machine"))
	}

	trend := trendPage(t, srv, "/trend?metric=p99")
	if n := strings.Count(trend, `<span class="noisy"`); n != 2 || !strings.Contains(trend, `"noisy":[true,false,true]`) {
		t.Errorf("the trend marks %d runs noisy:\n%s", n, grep(trend, "noisy"))
	}
}

// withTrailer writes the results of file into a new stream ending in a
// trailer holding machine, as loadlab attack writes one.
func withTrailer(t *testing.T, file string, machine runblock.Health) string {
	t.Helper()
	src, err := results.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(file), ".bin")+".lll")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := results.NewWriter(f, results.Meta{Generator: "loadlab test"})
	if err != nil {
		t.Fatal(err)
	}
	for {
		var r results.Result
		if src.Decode(&r) != nil {
			break
		}
		if err := w.Encode(&r); err != nil {
			t.Fatal(err)
		}
	}
	js, _ := json.Marshal(machine)
	if err := w.WriteTrailer(results.Trailer{Health: js}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// grep is the lines of s containing word.
func grep(s, word string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
