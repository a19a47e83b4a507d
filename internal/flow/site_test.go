package flow

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/results"
)

// site is a real HTTP server on loopback with a login: POST /login with
// the right password answers a token (JSON) and a session cookie; /home
// and /item answer 401 without both; /evil answers a token holding CR LF
// and a header; /slow waits for its gate. It records what it received.
type site struct {
	*httptest.Server
	mu       sync.Mutex
	got      []seen
	gate     chan struct{}
	inFlight int
	maxIn    int
}

// seen is one request the site received.
type seen struct {
	Method, Path, Query string
	Header              http.Header
}

func newSite(t *testing.T) *site {
	s := &site{gate: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ User, Password string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Password != "secret" {
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"ok":false}`)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s-" + in.User})
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"ok":true,"token":"tok-%s","items":[{"id":1},{"id":2},{"id":3}]}`, in.User)
	})
	authed := func(r *http.Request) (string, bool) {
		user, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer tok-")
		c, err := r.Cookie("sid")
		return user, ok && err == nil && c.Value == "s-"+user
	}
	mux.HandleFunc("GET /home", func(w http.ResponseWriter, r *http.Request) {
		user, ok := authed(r)
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, "welcome %s", user)
	})
	mux.HandleFunc("GET /item", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := authed(r); !ok {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, `{"id":%s}`, r.URL.Query().Get("id"))
	})
	mux.HandleFunc("GET /evil", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"token":"abc\r\nX-Injected: yes"}`)
	})
	mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		<-s.gate
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.got = append(s.got, seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone()})
		s.inFlight++
		s.maxIn = max(s.maxIn, s.inFlight)
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}))
	t.Cleanup(func() {
		select {
		case <-s.gate:
		default:
			close(s.gate)
		}
		s.Close()
	})
	return s
}

// received is what the site received so far.
func (s *site) received() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.got...)
}

// writeFlow writes files (name → contents, "URL" replaced by the site's)
// into a new directory and loads the flow in flow.yaml.
func writeFlow(t *testing.T, url string, files map[string]string) *Flow {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.ReplaceAll(body, "URL", url)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Load(filepath.Join(dir, "flow.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// run is an attack running f's sessions on a schedule (rate "0": a
// closed loop of bound users), its results and its runner.
type run struct {
	res    []results.Result
	runner *Runner
	stats  attack.Stats
	start  time.Time
}

func runFlow(t *testing.T, f *Flow, rate string, d time.Duration, bound int, during func(a *attack.Attacker)) run {
	t.Helper()
	return runFlowWith(t, f, rate, d, bound, during, nil)
}

// runFlowWith is runFlow with the attack's options changed by opt.
func runFlowWith(t *testing.T, f *Flow, rate string, d time.Duration, bound int, during func(a *attack.Attacker), opt func(*attack.Options)) run {
	t.Helper()
	sched, err := schedule.Parse(rate, d)
	if err != nil {
		t.Fatal(err)
	}
	o := attack.DefaultOptions()
	o.Schedule, o.MaxWorkers, o.Name, o.Seed = sched, bound, "journey", 7
	rn := f.NewRunner(7)
	o.Journey, o.Harvest = rn, false
	if opt != nil {
		opt(&o)
	}
	a, err := attack.New(nil, o)
	if err != nil {
		t.Fatal(err)
	}
	var out run
	out.runner = rn
	done := make(chan struct{})
	if during != nil {
		go func() {
			defer close(done)
			during(a)
		}()
	} else {
		close(done)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := a.Run(ctx, func(r *results.Result) { out.res = append(out.res, *r) }); err != nil {
		t.Fatal(err)
	}
	<-done
	out.stats = a.Stats()
	out.start = out.stats.Started
	return out
}

// outcomes counts the sessions' outcomes in rs.
func outcomes(rs []results.Result) map[string]int {
	m := map[string]int{}
	for _, r := range rs {
		if r.Ended.Outcome != "" {
			m[r.Ended.Outcome]++
		}
	}
	return m
}
