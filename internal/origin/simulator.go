package origin

import (
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loadlab/loadlab/internal/origin/recipe"
)

// DefaultMaxRecipeBytes is the largest recipe accepted unless Options says
// otherwise: 10 MB.
const DefaultMaxRecipeBytes = 10 << 20

// Options configures a Simulator. The zero value is ready to use.
type Options struct {
	// Seed makes random bodies and per-request draws (status, latency,
	// fault) repeatable: the n-th request of a route's stage gets the same
	// draws in every run. 0 picks a seed from the clock (see Seed()).
	Seed int64
	// NoOverrides turns off per-request overrides (?delay=, ?status=,
	// ?fault= and the X-Origin-* headers).
	NoOverrides bool
	// AdminToken, when set, is required as "Authorization: Bearer TOKEN"
	// on every /_admin request.
	AdminToken string
	// MaxRecipeBytes caps a recipe file or add_recipe body; 0 means
	// DefaultMaxRecipeBytes.
	MaxRecipeBytes int64
	// Logf, when set, receives one line per recipe load and stage switch.
	Logf func(format string, args ...any)
	// Client fetches recipe origins; nil means a client with a 30 s timeout
	// that follows the fetch policy (see AllowLocalOrigins). A Client given
	// here is used as it is.
	Client *http.Client
	// AllowLocalOrigins lets recipes fetch origins on loopback, link-local
	// or unspecified addresses, which are refused otherwise.
	AllowLocalOrigins bool
	// Offline serves every recipe origin URL not in OriginFiles with
	// OfflineSize bytes of stand-in content instead of fetching it.
	Offline bool
	// OfflineSize is the stand-in body's size; 0 means DefaultOfflineSize.
	OfflineSize int64
	// OriginFiles maps origin URLs to local files served in their place
	// (read at each load), offline or not.
	OriginFiles map[string]string
	// MaxRecipeMemory bounds the bytes the loaded routes' bodies hold
	// together; 0 means DefaultMaxRecipeMemory. A load beyond it is refused.
	MaxRecipeMemory int64
	// AdminHosts are extra Host names accepted on /_admin requests when no
	// AdminToken is set (IP literals and localhost always are).
	AdminHosts []string
}

// Simulator is the origin simulator handler. It is safe for concurrent use.
type Simulator struct {
	opts   Options
	seed   uint64
	client *http.Client

	loadMu sync.Mutex // serialises loads and restarts
	// budgetMu guards reserved, the recipe memory claimed by loads in
	// progress (see reserve).
	budgetMu sync.Mutex
	reserved int64
	baseURL  string                // where it is served, for the welcome page (under loadMu)
	tab      atomic.Pointer[table] // the current route table
	counts   counter
	m        *metrics
	tokens   *tokens // of the recipes' auth routes (token.go)

	done      chan struct{}
	closeOnce sync.Once
}

// New returns a Simulator serving the default welcome recipe.
func New(opts Options) *Simulator {
	if opts.MaxRecipeBytes <= 0 {
		opts.MaxRecipeBytes = DefaultMaxRecipeBytes
	}
	if opts.MaxRecipeMemory <= 0 {
		opts.MaxRecipeMemory = DefaultMaxRecipeMemory
	}
	if opts.OfflineSize <= 0 {
		opts.OfflineSize = DefaultOfflineSize
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	seed := opts.Seed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	s := &Simulator{
		opts:   opts,
		seed:   uint64(seed),
		client: opts.Client,
		m:      newMetrics(),
		done:   make(chan struct{}),
		tokens: newTokens(uint64(seed)),
	}
	if s.client == nil {
		s.client = fetchClient(opts.AllowLocalOrigins)
	}
	s.tab.Store(s.defaultTable())
	return s
}

// SetBaseURL tells the simulator the address it is served on (e.g.
// http://127.0.0.1:8080), for the welcome page's examples.
func (s *Simulator) SetBaseURL(u string) {
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	s.baseURL = u
	if old := s.tab.Load(); old.isDefault {
		for _, r := range old.list {
			r.stop()
		}
		s.tab.Store(s.defaultTable())
	}
}

// Seed returns the seed in use (the one picked when Options.Seed was 0).
func (s *Simulator) Seed() int64 { return int64(s.seed) }

// Handler returns s as an http.Handler (it is one already).
func (s *Simulator) Handler() http.Handler { return s }

// ServeHTTP answers simulated requests and the /_admin API.
func (s *Simulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/_admin" || strings.HasPrefix(r.URL.Path, "/_admin/") {
		s.admin(w, r)
		return
	}
	s.simulate(w, r)
}

// Close cancels pending stages and releases requests waiting on latency,
// hang or slow-body faults (they are aborted). It is idempotent.
func (s *Simulator) Close() error {
	s.closeOnce.Do(func() {
		close(s.done)
		s.loadMu.Lock()
		defer s.loadMu.Unlock()
		for _, r := range s.tab.Load().list {
			r.stop()
		}
	})
	return nil
}

// Restart drops every recipe, goes back to the welcome recipe and clears
// the request counts, like origin_simulator's /_admin/restart.
func (s *Simulator) Restart() {
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	for _, r := range s.tab.Load().list {
		r.stop()
	}
	s.tab.Store(s.defaultTable())
	s.counts.clear()
	s.opts.Logf("origin: restarted with the default recipe")
}

func (s *Simulator) defaultTable() *table {
	recs, err := recipe.Parse([]byte(welcomeRecipe(s.baseURL)))
	if err != nil {
		panic("origin: bad built-in welcome recipe: " + err.Error())
	}
	rec := &recs[0]
	r := newRoute(rec, buildPayload(rec, rand.New(rand.NewPCG(s.seed, 0)), nil), s.seed)
	r.start(nil)
	return newTable([]*route{r}, true)
}

func (s *Simulator) onSwitch(r *route, idx int) {
	st := r.rec.Stages[idx]
	s.m.stage.WithLabelValues(r.name).Set(float64(idx))
	s.opts.Logf("origin: route %s: stage %d: status %s latency %s", r.name, idx, st.Status, st.Latency)
}
