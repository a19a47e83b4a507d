package origin

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
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

// LoadRecipe parses and loads a recipe (one object or an array), as POST
// /_admin/add_recipe does. Routes it names replace the same routes loaded
// before, whose pending stages are cancelled; other routes stay, except
// the default welcome recipe, which the first load replaces. source names
// the recipe in errors (a file name). Errors are *badinput.Error values
// naming the field and value; on error the recipe in force is unchanged.
func (s *Simulator) LoadRecipe(data []byte, source string) error {
	return s.loadRecipe(context.Background(), data, source)
}

func (s *Simulator) loadRecipe(ctx context.Context, data []byte, source string) error {
	if int64(len(data)) > s.opts.MaxRecipeBytes {
		return &badinput.Error{File: source, Msg: fmt.Sprintf("recipe is %d bytes, more than the %d-byte limit", len(data), s.opts.MaxRecipeBytes)}
	}
	recs, err := recipe.Parse(data)
	if err != nil {
		return badinput.Wrap(source, err)
	}
	field := func(i int, name string) string {
		if len(recs) > 1 || (len(data) > 0 && firstByte(data) == '[') {
			return fmt.Sprintf("[%d].%s", i, name)
		}
		return name
	}
	// Bodies are sized before any is built: an oversized recipe is refused
	// without allocating it. The routes it replaces are not counted.
	planned := make([]int64, len(recs))
	replaced := map[string]bool{}
	var total int64
	for i := range recs {
		planned[i] = plannedBytes(&recs[i], nil)
		total += planned[i]
		replaced[recs[i].Route] = true
	}
	// The check and the reservation are one step: loads running at once
	// (parallel add_recipe calls) cannot all pass a check made before any
	// of them holds its bodies.
	kept, ok := s.reserve(replaced, total)
	if !ok {
		return &badinput.Error{File: source, Msg: budgetError(total+kept, s.opts.MaxRecipeMemory).Error()}
	}
	reserved := total
	defer func() { s.release(reserved) }()
	routes := make([]*route, 0, len(recs))
	for i := range recs {
		rec := &recs[i]
		var f *fetched
		if rec.Origin != "" {
			if f, err = s.record(ctx, rec.Origin); err != nil {
				return &badinput.Error{File: source, Field: field(i, "origin"), Msg: "cannot fetch " + rec.Origin + " (without a network, -origin-offline or -origin-file serve stand-ins)", Err: err}
			}
			more := plannedBytes(rec, f)
			total += more
			if kept, ok := s.reserve(replaced, more); !ok {
				return &badinput.Error{File: source, Field: field(i, "origin"), Msg: budgetError(total+kept, s.opts.MaxRecipeMemory).Error()}
			}
			reserved += more
		}
		rng := rand.New(rand.NewPCG(s.seed, hashString(rec.Route)))
		rt := newRoute(rec, buildPayload(rec, rng, f), s.seed)
		rt.bytes = plannedBytes(rec, f)
		routes = append(routes, rt)
	}
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	select {
	case <-s.done:
		return errors.New("origin simulator is closed")
	default:
	}
	old := s.tab.Load()
	keep := map[string]*route{}
	if !old.isDefault {
		for _, r := range old.list {
			keep[r.name] = r
		}
	} else {
		for _, r := range old.list {
			r.stop()
		}
	}
	for _, r := range routes {
		if prev, ok := keep[r.name]; ok {
			prev.stop()
		}
		keep[r.name] = r
		r.start(s.onSwitch)
	}
	all := make([]*route, 0, len(keep))
	for _, r := range keep {
		all = append(all, r)
	}
	s.tab.Store(newTable(all, false))
	names := make([]string, len(routes))
	for i, r := range routes {
		names[i] = r.name
	}
	s.opts.Logf("origin: loaded recipe %s: routes %s", source, strings.Join(names, " "))
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

// reserve counts n more bytes against Options.MaxRecipeMemory for a load
// replacing the routes in replaced, if they fit beside what the loaded
// routes it keeps hold and what the loads in progress reserved. It
// returns those bytes (kept and reserved, n aside) and whether n fit. The
// reservation lasts until release, called once the load's routes are in
// the table (or the load failed).
func (s *Simulator) reserve(replaced map[string]bool, n int64) (int64, bool) {
	s.budgetMu.Lock()
	defer s.budgetMu.Unlock()
	held := s.keptBytes(replaced) + s.reserved
	if held+n > s.opts.MaxRecipeMemory {
		return held, false
	}
	s.reserved += n
	return held, true
}

// release ends a reservation of n bytes.
func (s *Simulator) release(n int64) {
	s.budgetMu.Lock()
	s.reserved -= n
	s.budgetMu.Unlock()
}

// keptBytes is what the loaded routes a new load keeps (all but those it
// replaces, and none of the welcome recipe's) hold.
func (s *Simulator) keptBytes(replaced map[string]bool) int64 {
	old := s.tab.Load()
	if old.isDefault {
		return 0
	}
	var n int64
	for _, r := range old.list {
		if !replaced[r.name] {
			n += r.bytes
		}
	}
	return n
}

// record is what a recipe's origin URL is served as: a stand-in when the
// simulator is offline or maps the URL to a file, else the URL's answer,
// fetched once.
func (s *Simulator) record(ctx context.Context, url string) (*fetched, error) {
	if f, ok, err := s.standIn(url); ok {
		return f, err
	}
	return s.fetch(ctx, url)
}

func firstByte(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}
