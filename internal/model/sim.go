package model

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/origin/recipe"
	"github.com/loadlab/loadlab/internal/prediction"
	"github.com/loadlab/loadlab/internal/proxy/breaker"
	"github.com/loadlab/loadlab/internal/proxy/cache"
	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/targets"
)

// The proxy's answer origins, as in its X-Loadlab-Origin header, plus the
// client's own give-up.
const (
	byUpstream      = "upstream"
	byUpstreamError = "upstream_error"
	byPoolTimeout   = "pool_timeout"
	byBreaker       = "breaker"
	byFallback      = "fallback"
	byCache         = "cache"
	byNoRoute       = "no_route"
	byOrigin        = "origin" // a scenario aimed at the origin directly
	byClientTimeout = "client_timeout"
	byConnError     = "connection_error"
)

// request is one simulated request from due time to answer.
type request struct {
	sc        *scenarioRun
	seq       uint64
	due       time.Duration
	arrived   time.Duration // reached the system (due + the generator's and network's jitter)
	path, uri string
	toProxy   bool
	get       bool // a GET: the proxy caches and falls back for GETs only

	route            *route
	key              string // cache key, "" when the route neither caches nor falls back
	ticket           *ticket
	worker           *worker
	checkoutDeadline time.Duration
	clientDeadline   time.Duration
	answer           answer

	answered   bool          // the client has its answer (or gave up)
	upstreamOn bool          // a worker is on the upstream exchange
	endAt      time.Duration // when the upstream exchange ends
}

// route is a proxy route in the simulation.
type route struct {
	cfg *config.RouteConfig
	// base is the upstream URL's path, which the proxy puts before the
	// request's path (upstream: http://origin/go sends /v3/info to /go/v3/info).
	base    string
	pool    *simPool
	breaker *breaker.Breaker
	series  *prediction.Breaker
	tieName string // "request timeout 5s of route search"
}

// clientTie names the scenario's client timeout as a tie's bound.
func (run *scenarioRun) clientTie() string {
	return fmt.Sprintf("client timeout %s of scenario %s", run.in.Timeout, run.in.Name)
}

type scenarioRun struct {
	in     *Scenario
	pred   *ScenarioPrediction
	next   uint64 // next sequence number to schedule
	buf    []byte
	start  time.Duration // when its schedule begins
	record bool          // a scenario of the step, not of an earlier one
}

// sim is one step's simulation.
type sim struct {
	clock
	in       *Input
	origin   *origin
	routes   []*route
	pools    []*simPool
	cache    *cache.Cache
	scens    []*scenarioRun
	trng     *targets.Rand
	jrng     *rand.Rand // arrival jitter
	rrng     *rand.Rand // sides of the request timeout's races
	race     *Race
	notes    map[string]bool
	byConfig map[*config.RouteConfig]*route
	noteSeq  []string
}

// ErrNothingToModel is returned for an input with no scenario.
var ErrNothingToModel = errors.New("model: no scenario to simulate")

// Predict simulates the input's step and returns what it expects to be
// measured.
func Predict(in Input) (*Prediction, error) {
	if len(in.Scenarios) == 0 {
		return nil, ErrNothingToModel
	}
	if in.Interval <= 0 {
		in.Interval = time.Second
	}
	switch {
	case in.Jitter == 0:
		in.Jitter = time.Millisecond
	case in.Jitter < 0:
		in.Jitter = 0
	}
	if in.Costs == (Costs{}) {
		in.Costs = DefaultCosts
	}
	began := time.Now()
	s := &sim{in: &in, notes: map[string]bool{}, trng: targets.NewRand(in.Seed ^ 0x9e3779b97f4a7c15),
		jrng: rand.New(rand.NewPCG(in.Seed, 0x6a6974746572)), rrng: rand.New(rand.NewPCG(in.Seed, 0x72616365)), race: in.Race}
	if s.race == nil {
		s.race = &DefaultRace
	}
	s.origin = newOrigin(in.Origin, in.originSeed())
	if len(in.Origin) == 0 {
		s.note("no origin recipe: every request is answered 406 as by an origin with nothing loaded")
	}
	for _, rc := range in.Origin {
		s.checkRecipe(rc)
	}
	if in.Proxy != nil {
		s.buildProxy(in.Proxy)
	}
	var end time.Duration
	add := func(sc *Scenario, start time.Duration, record bool) error {
		if sc.Schedule == nil || len(sc.Targets) == 0 {
			return fmt.Errorf("model: scenario %q has no schedule or no targets", sc.Name)
		}
		if sc.Schedule.Unpaced() && sc.Workers <= 0 {
			return fmt.Errorf("model: scenario %q: an unpaced attack (-rate=0) needs its number of workers (-max-workers), or a rate", sc.Name)
		}
		if sc.Schedule.Duration <= 0 {
			return fmt.Errorf("model: scenario %q: the schedule needs a duration", sc.Name)
		}
		run := &scenarioRun{in: sc, pred: newScenarioPrediction(sc.Name), start: start + sc.StartAfter, record: record}
		run.pred.Duration = sc.Schedule.Duration
		if record {
			s.scens = append(s.scens, run)
		}
		if sc.closed() {
			for range sc.Workers {
				s.send(run, run.start, true)
			}
		} else {
			s.scheduleNext(run)
		}
		end = max(end, run.start+sc.Schedule.Duration)
		return nil
	}
	for i := range in.Before {
		if err := add(&in.Before[i], 0, false); err != nil {
			return nil, err
		}
	}
	for i := range in.Scenarios {
		if err := add(&in.Scenarios[i], in.Start, true); err != nil {
			return nil, err
		}
	}
	if in.Start > 0 {
		s.at(in.Start, evStepStart, nil, nil)
	}
	for t := in.Start; t <= end; t += in.Interval {
		s.at(t, evSample, nil, nil)
	}
	for {
		e, ok := s.pop()
		if !ok {
			break
		}
		s.handle(e)
	}
	p := &Prediction{Unsupported: s.noteSeq}
	for _, run := range s.scens {
		run.pred.finish()
		run.pred.finishTies()
		p.Scenarios = append(p.Scenarios, run.pred)
	}
	for _, sp := range s.pools {
		sr := sp.series
		sr.Checkouts, sr.Timeouts, sr.Opened, sr.Dismissed, sr.MailboxPeak = sp.checkouts, sp.timeouts, sp.opened, sp.dismissed, sp.mailboxPeak
		sr.SetPeaks()
		if span := end - in.Start; span > 0 {
			sr.ManagerUtilization = sp.busy.Seconds() / span.Seconds()
		}
		p.Pools = append(p.Pools, sr)
	}
	for _, r := range s.routes {
		if r.series != nil {
			p.Breakers = append(p.Breakers, *r.series)
		}
	}
	p.Elapsed = time.Since(began)
	return p, nil
}

// note records something the model does not represent, once.
func (s *sim) note(msg string) {
	if !s.notes[msg] {
		s.notes[msg] = true
		s.noteSeq = append(s.noteSeq, msg)
	}
}

// checkRecipe names the parts of a recipe the model cannot represent.
func (s *sim) checkRecipe(rc recipe.Recipe) {
	if rc.Origin != "" {
		s.note(fmt.Sprintf("recipe route %s fetches its body from %s: the model predicts latencies and statuses, not body sizes", rc.Route, rc.Origin))
	}
	for _, st := range rc.Stages {
		if st.Faults.Prob[recipe.SlowBody] > 0 || st.Faults.Prob[recipe.Truncate] > 0 {
			s.note(fmt.Sprintf("recipe route %s: slow_body and truncate faults are modelled as upstream errors at the stage's latency", rc.Route))
		}
	}
}

func (s *sim) buildProxy(cfg *config.Config) {
	s.cache = cache.New(cfg.Cache.MaxEntries, cfg.Cache.StaleFor.D(), s.wall)
	byName := map[string]*simPool{}
	s.byConfig = map[*config.RouteConfig]*route{}
	for _, rc := range cfg.Routes {
		name, pc := cfg.PoolFor(rc)
		sp := byName[name]
		if sp == nil {
			sp = newSimPool(s, name, pc)
			byName[name] = sp
			s.pools = append(s.pools, sp)
		}
		r := &route{cfg: rc, pool: sp, base: upstreamBase(rc.Upstream),
			tieName: fmt.Sprintf("request timeout %s of route %s", rc.RequestTimeout.D(), rc.Name)}
		if bc := rc.Breaker; bc != nil {
			mode := breaker.Ramp
			if bc.Recovery == "half_open" {
				mode = breaker.HalfOpen
			}
			r.breaker = breaker.New(breaker.Config{Window: bc.Window.D(), Threshold: bc.Threshold, Mode: mode,
				Ramp: bc.Ramp, OpenFor: bc.OpenFor.D(), Probes: bc.Probes, Now: s.wall})
			r.series = &prediction.Breaker{Route: rc.Name}
		}
		s.routes = append(s.routes, r)
		s.byConfig[rc] = r
	}
}

// scheduleNext puts the scenario's next request on the agenda.
func (s *sim) scheduleNext(run *scenarioRun) {
	due, _, ok := run.in.Schedule.At(run.next)
	if !ok {
		return
	}
	s.send(run, run.start+due, true)
}

// send puts the scenario's next request, due at due, on the agenda.
// A user's next request in a closed loop goes at once (jitter false): the
// arrival jitter would be a think time, and where the answers are
// refusals in a fraction of a millisecond it would set the pace.
func (s *sim) send(run *scenarioRun, due time.Duration, jitter bool) {
	r := &request{sc: run, seq: run.next, due: due}
	run.next++
	at := r.due
	if jitter && s.in.Jitter > 0 {
		at += time.Duration(s.jrng.Int64N(int64(s.in.Jitter)))
	}
	s.at(at, evArrive, r, nil)
}

func (s *sim) handle(e event) {
	switch e.kind {
	case evArrive:
		if !e.r.sc.in.closed() {
			s.scheduleNext(e.r.sc)
		}
		s.arrive(e.r)
	case evDelivered:
		s.delivered(e.r)
	case evGiveUp:
		s.giveUp(e.r)
	case evUpstreamEnd:
		s.upstreamEnd(e.r)
	case evManager:
		e.p.manage()
	case evSample:
		s.sample()
	case evStepStart:
		s.stepStart()
	}
}

// render fills in the request's target: path and request URI.
func (s *sim) render(r *request) {
	sc := r.sc.in
	i := int(r.seq % uint64(len(sc.Targets)))
	t := sc.Targets[i]
	r.toProxy = i < len(sc.ToProxy) && sc.ToProxy[i]
	r.get = t.Method == http.MethodGet
	var raw string
	if u := t.StaticURL(); u != nil {
		r.path, r.uri = u.Path, u.RequestURI()
		return
	}
	r.sc.buf = t.URL.Append(r.sc.buf[:0], s.trng, r.seq)
	raw = string(r.sc.buf)
	if k := strings.Index(raw, "://"); k >= 0 {
		raw = raw[k+3:]
		if j := strings.IndexByte(raw, '/'); j >= 0 {
			raw = raw[j:]
		} else {
			raw = "/"
		}
	}
	r.uri = raw
	r.path, _, _ = strings.Cut(raw, "?")
}

// arrive is the request reaching the proxy (or the origin).
func (s *sim) arrive(r *request) {
	r.arrived = s.now
	s.render(r)
	r.clientDeadline = time.Duration(math.MaxInt64)
	if to := r.sc.in.Timeout; to > 0 {
		r.clientDeadline = r.due + to
		s.at(r.clientDeadline, evGiveUp, r, nil)
	}
	if !r.toProxy || s.routes == nil {
		r.answer = s.origin.answer(r.path, s.now)
		s.exchange(r)
		return
	}
	if rc := s.in.Proxy.RouteFor(r.path); rc != nil {
		r.route = s.byConfig[rc]
	}
	if r.route == nil {
		s.respond(r, http.StatusNotFound, byNoRoute)
		return
	}
	rc := r.route.cfg
	if r.get && (rc.Cache || rc.Fallback) {
		r.key = rc.Name + " " + r.uri
	}
	if r.key != "" && rc.Cache {
		if e, ok := s.cache.Get(r.key); ok && e.Fresh(s.wall()) {
			s.respond(r, e.Status, byCache)
			return
		}
	}
	if br := r.route.breaker; br != nil && !br.Allow() {
		r.route.series.Rejected++
		s.fail(r, rc.Breaker.Status, byBreaker)
		return
	}
	p := r.route.pool
	r.checkoutDeadline = s.now + p.cfg.CheckoutTimeout.D()
	r.ticket = &ticket{Payload: r}
	s.at(r.checkoutDeadline, evGiveUp, r, nil)
	p.send(message{kind: msgCheckout, t: r.ticket})
}

// delivered is a request getting its worker: the upstream exchange starts.
func (s *sim) delivered(r *request) {
	p := r.route.pool
	p.checkouts++
	p.maxWait = max(p.maxWait, s.now-r.arrived)
	if r.sc.record {
		r.sc.pred.MaxCheckoutWait = max(r.sc.pred.MaxCheckoutWait, s.now-r.arrived)
	}
	r.answer = s.origin.answer(r.route.base+r.path, s.now)
	s.exchange(r)
}

// upstreamBase is the path of an upstream URL without its trailing slash,
// as the proxy joins it to request paths ("" when it has none).
func upstreamBase(upstream string) string {
	u, err := url.Parse(upstream)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(u.Path, "/")
}

// exchange schedules the end of the exchange with the origin: after the
// origin's latency, or at the proxy's request timeout, or never for a hang
// the client gives up on.
func (s *sim) exchange(r *request) {
	a := r.answer
	r.upstreamOn = true
	if r.route == nil { // the client talks to the origin itself
		if a.fault == recipe.Hang {
			r.endAt = math.MaxInt64
			return // the client's timeout ends it
		}
		r.endAt = s.now + a.latency + s.in.Costs.Exchange
		s.at(r.endAt, evUpstreamEnd, r, nil)
		return
	}
	rt := r.route.cfg.RequestTimeout.D()
	won := a.fault != recipe.Hang
	if won {
		// An answer due about when the timeout fires races its timer:
		// the side is drawn as the real proxy's race was measured.
		w, tied := s.race.win(a.latency - rt)
		if won = w == 1 || tied && s.rrng.Float64() < w; tied && r.sc.record {
			r.sc.pred.tie(tieRequest, r.route.tieName, a.latency, won)
		}
	}
	if !won {
		r.answer.fault = recipe.Hang
		r.endAt = s.now + rt
		s.at(r.endAt, evUpstreamEnd, r, nil)
		return
	}
	r.endAt = s.now + a.latency + s.in.Costs.Exchange
	s.at(r.endAt, evUpstreamEnd, r, nil)
}

// endExchange ends the request's upstream exchange: the origin no longer
// counts it in service.
func (s *sim) endExchange(r *request) {
	r.upstreamOn = false
	s.origin.release(&r.answer)
}

// upstreamEnd is the origin's answer (or the request timeout) reaching the
// proxy, or the client when it asked the origin directly.
func (s *sim) upstreamEnd(r *request) {
	if !r.upstreamOn {
		return // the client left first and the exchange was cut
	}
	s.endExchange(r)
	a := r.answer
	if r.route == nil {
		if a.fault != recipe.None {
			s.respond(r, 0, byConnError)
			return
		}
		s.respond(r, a.status, byOrigin)
		return
	}
	rc := r.route.cfg
	r.route.pool.send(message{kind: msgCheckin, w: r.worker})
	if a.fault != recipe.None {
		status := http.StatusBadGateway
		if a.fault == recipe.Hang {
			status = http.StatusGatewayTimeout
		}
		if rc.ErrorStatus != 0 {
			status = rc.ErrorStatus
		}
		s.recordBreaker(r, true)
		s.fail(r, status, byUpstreamError)
		return
	}
	failed := breaker.IsError(a.status)
	if failed && rc.Fallback && r.key != "" {
		if e, ok := s.cache.Get(r.key); ok {
			s.recordBreaker(r, true)
			s.respond(r, e.Status, byFallback)
			return
		}
	}
	s.recordBreaker(r, failed)
	if r.key != "" {
		if maxAge, ok := cache.MaxAge(http.MethodGet, a.status, a.header); ok {
			s.cache.Put(r.key, &cache.Entry{Status: a.status, Header: a.header, Stored: s.wall(), MaxAge: maxAge})
		}
	}
	s.respond(r, a.status, byUpstream)
}

// giveUp is a checkout timeout or the client's timeout.
func (s *sim) giveUp(r *request) {
	if r.answered {
		return
	}
	clientGone := s.now >= r.clientDeadline
	if r.ticket != nil && r.ticket.Abandon() { // still waiting for a worker
		p := r.route.pool
		if p.serial {
			p.send(message{kind: msgCancel, t: r.ticket})
		} else {
			p.m.Cancel(r.ticket)
		}
		if clientGone {
			s.forgetBreaker(r)
			s.clientTimeout(r)
			return
		}
		p.timeouts++
		if r.sc.record {
			p.timedOut(r)
		}
		if p.timeouts == 1 {
			p.series.FirstTimeout = s.now - s.in.Start
		}
		s.recordBreaker(r, true)
		s.fail(r, p.cfg.TimeoutStatus, byPoolTimeout)
		return
	}
	if !clientGone {
		return // a checkout deadline passed after the worker came
	}
	if r.upstreamOn && r.endAt-s.now <= TieMargin && r.answer.fault == recipe.None && r.answer.status < 400 && r.sc.record {
		r.sc.pred.tie(tieClient, r.sc.clientTie(), s.now-r.due, false)
	}
	if r.upstreamOn && r.route != nil {
		// The client left: the proxy cuts the upstream exchange and takes
		// the worker back at once.
		s.endExchange(r)
		r.route.pool.send(message{kind: msgCheckin, w: r.worker})
		s.forgetBreaker(r)
	}
	s.endExchange(r)
	s.clientTimeout(r)
}

func (s *sim) clientTimeout(r *request) {
	r.answered = true
	s.nextOfUser(r)
	if !r.sc.record {
		return
	}
	r.sc.pred.record(0, byClientTimeout, r.sc.in.Timeout)
	if s.in.observe != nil {
		s.in.observe(r.sc.in.Name, r.seq, r.due, r.sc.in.Timeout, 0)
	}
}

// nextOfUser sends, in a closed loop, the answered user's next request
// now, while the scenario's duration lasts.
func (s *sim) nextOfUser(r *request) {
	if run := r.sc; run.in.closed() && s.now < run.start+run.in.Schedule.Duration {
		s.send(run, s.now, false)
	}
}

// fail serves a cached copy when the route falls back, else the error.
func (s *sim) fail(r *request, status int, by string) {
	if r.route.cfg.Fallback && r.key != "" {
		if e, ok := s.cache.Get(r.key); ok {
			s.respond(r, e.Status, byFallback)
			return
		}
	}
	s.respond(r, status, by)
}

// respond is the client receiving its answer now.
func (s *sim) respond(r *request, status int, by string) {
	if r.answered {
		return
	}
	r.answered = true
	s.nextOfUser(r)
	if !r.sc.record {
		return
	}
	if status >= 200 && status < 400 && r.clientDeadline-s.now <= TieMargin {
		r.sc.pred.tie(tieClient, r.sc.clientTie(), s.now-r.due, true)
	}
	r.sc.pred.record(status, by, s.now-r.due)
	if s.in.observe != nil {
		s.in.observe(r.sc.in.Name, r.seq, r.due, s.now-r.due, status)
	}
}

func (s *sim) recordBreaker(r *request, failed bool) {
	if br := r.route.breaker; br != nil {
		br.Record(failed)
	}
}

func (s *sim) forgetBreaker(r *request) {
	if br := r.route.breaker; br != nil {
		br.Forget()
	}
}

// stepStart forgets the counts of the earlier steps' attacks: the state
// they left (cache, breakers, workers) stays.
func (s *sim) stepStart() {
	for _, p := range s.pools {
		p.checkouts, p.timeouts, p.opened, p.dismissed, p.busy = 0, 0, 0, 0, 0
		p.mailboxPeak = len(p.mailbox) - p.head
		p.series.FirstTimeout = 0
	}
	for _, r := range s.routes {
		if r.series != nil {
			r.series.Rejected = 0
		}
	}
}

// sample records the gauges.
func (s *sim) sample() {
	for _, p := range s.pools {
		p.sample(s.now - s.in.Start)
	}
	for _, r := range s.routes {
		if r.series == nil {
			continue
		}
		snap := r.breaker.Snapshot()
		r.series.T = append(r.series.T, (s.now - s.in.Start).Seconds())
		r.series.State = append(r.series.State, snap.State)
		r.series.Throughput = append(r.series.Throughput, snap.Throughput)
	}
}
