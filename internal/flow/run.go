package flow

import (
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/http1"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

// ErrRowsRanOut is the error of a session that found no data row left
// (pick: unique, exhausted: stop): recorded as dropped, and the attack
// stops.
const ErrRowsRanOut = results.DroppedPrefix + "the data file's rows ran out"

// maxKeptBody is how much of an answer's body a step that reads it (a
// json or regex capture, a json or body check) keeps.
const maxKeptBody = 4 << 20

// Runner runs a flow's sessions in one attack: it is the attack's
// attack.Journey. Make one per attack with NewRunner.
type Runner struct {
	f      *Flow
	seed   uint64
	reqSeq atomic.Uint64 // the requests' sequence numbers, across sessions
	used   atomic.Uint64 // rows handed out (pick: unique)
	ranOut atomic.Bool   // a session found no row left (exhausted: stop)
	pool   sync.Pool
	first  *Step // the first request step, for dropped sessions' results
}

// NewRunner prepares f to run in an attack; seed seeds think times and
// random picks (0: random).
func (f *Flow) NewRunner(seed uint64) *Runner {
	for seed == 0 {
		seed = rand.Uint64()
	}
	r := &Runner{f: f, seed: seed}
	r.first = firstRequest(f.Steps)
	return r
}

func firstRequest(steps []*Step) *Step {
	for _, s := range steps {
		if s.Kind == KindRequest {
			return s
		}
		if f := firstRequest(s.Steps); f != nil {
			return f
		}
	}
	return nil
}

// RanOut reports whether the data file's rows ran out (pick: unique,
// exhausted: stop), which stopped the attack, and how many rows it has.
func (r *Runner) RanOut() (bool, int) {
	if r.f.Data == nil {
		return false, 0
	}
	return r.ranOut.Load(), len(r.f.Data.Rows)
}

// session is one session's state, reused across sessions.
type session struct {
	seq     uint64
	step    uint32
	vars    []string
	lists   [][]string
	jar     []cookie
	rng     *rand.Rand
	pcg     *rand.PCG
	x       http1.Exchange
	pending results.Result // the last result, held until the next one (or the end) says whether it is the last
	held    bool
	start   time.Time
	next    time.Time // when the next request is due
	outcome string
	doc     any // the answer's body decoded as JSON (docOK)
	docOK   int // 0 not decoded, 1 JSON, -1 not JSON
}

type cookie struct{ name, value string }

func (r *Runner) get() *session {
	if ss, ok := r.pool.Get().(*session); ok {
		return ss
	}
	pcg := rand.NewPCG(0, 0)
	return &session{vars: make([]string, len(r.f.vars)), lists: make([][]string, len(r.f.vars)), pcg: pcg, rng: rand.New(pcg)}
}

// Session runs session seq of the flow (attack.Journey).
func (r *Runner) Session(s *attack.Sender, seq uint64, due time.Time, step uint32) {
	ss := r.get()
	defer r.pool.Put(ss)
	clear(ss.vars)
	clear(ss.lists)
	ss.jar, ss.held, ss.outcome = ss.jar[:0], false, ""
	ss.seq, ss.step = seq, step
	ss.pcg.Seed(r.seed, seq)
	if d := r.f.Data; d != nil {
		row, ok := r.pick(seq, ss)
		if !ok {
			// recorded as dropped, so that every session due is in the results
			r.ranOut.Store(true)
			s.StopAttack()
			if due.IsZero() {
				due = time.Now()
			}
			res := results.Result{Attack: s.Attack(), Seq: seq, Due: due, Sent: time.Now(), Step: step, Error: ErrRowsRanOut}
			r.Dropped(&res)
			s.Put(&res)
			return
		}
		copy(ss.vars, d.Rows[row])
	}
	if due.IsZero() {
		due = time.Now()
	}
	ss.start, ss.next = due, due
	r.steps(s, ss, r.f.Steps)
	if ss.outcome == "" {
		ss.outcome = results.Completed
	}
	if ss.held {
		ss.pending.Ended = results.SessionEnd{Outcome: ss.outcome, Duration: ss.pending.End().Sub(ss.start)}
		s.Put(&ss.pending)
		ss.pending = results.Result{}
	}
}

// Dropped completes the result of a session that could not start
// (attack.Journey).
func (r *Runner) Dropped(res *results.Result) {
	if res.Error == attack.ErrDropped {
		res.Error = results.DroppedPrefix + "max-sessions reached"
	}
	res.Session = res.Seq
	res.Seq = r.reqSeq.Add(1) - 1
	if st := r.first; st != nil {
		res.FlowStep, res.Method, res.URL, res.Target = st.Recorded, st.Target.Method, st.Target.Source(), st.Target.Index
	}
	res.Ended = results.SessionEnd{Outcome: results.Dropped}
}

// pick is the data row of session seq; false when the rows ran out.
func (r *Runner) pick(seq uint64, ss *session) (int, bool) {
	n := uint64(len(r.f.Data.Rows))
	switch r.f.Pick {
	case "random":
		return int(ss.rng.Uint64N(n)), true
	case "unique":
		i := r.used.Add(1) - 1
		if i >= n && r.f.Exhausted == "stop" {
			return 0, false
		}
		return int(i % n), true
	}
	return int(seq % n), true
}

// steps runs steps; false when the session must stop.
func (r *Runner) steps(s *attack.Sender, ss *session, steps []*Step) bool {
	for _, st := range steps {
		var ok bool
		switch st.Kind {
		case KindRequest:
			ok = r.request(s, ss, st)
		case KindThink:
			ss.next = ss.next.Add(st.Think.draw(ss.rng))
			ok = true
		case KindGroup:
			ok = r.steps(s, ss, st.Steps)
		case KindLoop:
			ok = r.loop(s, ss, st)
		}
		if !ok {
			return false
		}
	}
	return true
}

func (r *Runner) loop(s *attack.Sender, ss *session, st *Step) bool {
	n := st.Count
	var list []string
	if st.Over >= 0 {
		list = ss.lists[st.Over]
		n = min(len(list), maxLoopCount)
	}
	for i := range n {
		ss.vars[st.Index] = strconv.Itoa(i)
		if list != nil {
			ss.vars[st.Item], ss.vars[st.As] = list[i], list[i]
		}
		if !r.steps(s, ss, st.Steps) {
			return false
		}
	}
	return true
}

// draw is one think time.
func (t Think) draw(rng *rand.Rand) time.Duration {
	switch t.Kind {
	case "uniform":
		return t.Min + time.Duration(rng.Int64N(int64(t.Max-t.Min)+1))
	case "exponential":
		// cut at 10 means: a think time stays bounded
		return time.Duration(math.Min(rng.ExpFloat64(), 10) * float64(t.Mean))
	}
	return t.Min
}

// request sends a request step and judges its answer; false when the
// session must stop.
func (r *Runner) request(s *attack.Sender, ss *session, st *Step) bool {
	if !s.Wait(ss.next) {
		ss.outcome = results.Interrupted
		return false
	}
	// The values go where the templates put them only if they cannot
	// break the request apart (captures are checked when captured; this
	// guards loop items and anything else).
	for _, u := range st.varUse {
		if ok, _ := targets.SafeFor(u.where, ss.vars[u.slot]); !ok {
			ss.outcome = results.FailedPrefix + "capture " + st.Name + ": " + r.f.vars[u.slot] + " (a value that cannot go in the request)"
			return false
		}
	}
	t := st.Target
	if st.WithJar != nil && len(ss.jar) > 0 {
		t = st.WithJar
		ss.vars[r.f.cookie] = ss.cookieHeader()
	}
	w := s.Wire()
	w.Vars, w.KeepFields, w.KeepBody = ss.vars, st.needHead, 0
	if st.needBody {
		w.KeepBody = maxKeptBody
	}
	seq := r.reqSeq.Add(1) - 1
	x := &ss.x
	s.Do(t, seq, ss.next, x)
	w.Vars = nil
	if x.Sent.IsZero() {
		x.Sent = time.Now()
	}
	res := results.Result{
		Attack: s.Attack(), Seq: seq, Due: ss.next, Step: ss.step,
		Method: t.Method, URL: t.Source(), Target: t.Index,
		Sent: x.Sent, Latency: x.Latency, Code: x.Code, BytesOut: x.BytesOut, BytesIn: x.BytesIn, Error: x.Error,
		FlowStep: st.Recorded, Session: ss.seq,
	}
	ss.next = res.End()
	if r.f.Cookies && x.Code != 0 {
		ss.takeCookies(x.Fields)
	}
	ss.docOK = 0
	failed := ""
	for i, c := range st.Checks {
		if !c.pass(ss, x) {
			res.Failed |= 1 << i
			if failed == "" {
				failed = "check " + st.Name + ": " + c.Name
			}
		}
	}
	for _, c := range st.Captures {
		if ok := r.capture(c, ss, x); !ok && failed == "" {
			failed = "capture " + st.Name + ": " + c.Name
		}
	}
	x.Body, ss.doc = nil, nil
	if ss.held {
		s.Put(&ss.pending)
	}
	ss.pending, ss.held = res, true
	if failed != "" && st.OnFailure == "stop" {
		ss.outcome = results.FailedPrefix + failed
		return false
	}
	return true
}
