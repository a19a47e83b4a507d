package attack

import (
	"golang.org/x/net/http/httpguts"
	"net/http"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/attack/segment"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/http1"
)

// Options configure an Attacker. Start from DefaultOptions: a few zero
// values mean something else than the defaults (Redirects 0 means "follow
// none and fail", as in vegeta).
type Options struct {
	Name     string             // attack name recorded in every result (-name)
	Schedule *schedule.Schedule // when requests are due (required)
	Timeout  time.Duration      // per request, 0 = none (-timeout)
	// MaxWorkers bounds requests in flight (-max-workers). A request due
	// while all are busy is dropped and recorded (see ErrDropped). Required
	// (> 0) when the schedule is unpaced: it is then the concurrency.
	MaxWorkers     int
	Connections    int           // idle connections kept per host (-connections)
	MaxConnections int           // connections per host, 0 = unlimited (-max-connections)
	KeepAlive      bool          // reuse connections (-keepalive)
	HTTP2          bool          // HTTP/2 over TLS when the server offers it (-http2)
	H2C            bool          // HTTP/2 without TLS, prior knowledge (-h2c)
	Insecure       bool          // skip TLS certificate checks (-insecure)
	Redirects      int           // redirects to follow; -1 = return the 3xx as is (-redirects)
	MaxBody        int64         // response body bytes kept in results: 0 none, -1 all (-max-body)
	CatchUp        time.Duration // how late a request may still be sent after a stall; later ones are dropped
	// Pacer is how the pacer waits for due times: PacerPrecise (the
	// default, also when empty) or PacerBatched; see pacer_fallback.go.
	//
	// The precise pacer wakes up at each request's due time (a Linux
	// timerfd): it sets the timer a wake-up's latency early (the lower
	// quartile of what it measured so far, at most 100 µs and at most a
	// quarter of the gap to the next request) and spins to the due time,
	// never past it, so each request goes out within microseconds of its
	// due time at any rate. Requests due within 25 µs of each other share
	// one wake-up, at the last one's due time (pacer_precise.go). The cost
	// is a wake-up of the generator per request (and of an idle target).
	// When the generator cannot keep that up (its CPU saturated, or taken by other processes: the median
	// lag of its requests stays above FallbackLag for FallbackAfter), it
	// falls back to batching on its own, and says so (Stats.Fallback).
	//
	// The batched pacer also uses the timerfd for waits of a millisecond
	// or more, but Go's timers for shorter ones, which wake a process
	// about a millisecond apart: requests due within that millisecond
	// then leave together, up to a millisecond late (recorded, so the lag
	// is in the due-based latencies), for about half the precise pacer's
	// CPU. bench/README.md (attack) has both measured. Where there is no
	// timerfd (other systems, the loadlab_portable build) every attack is
	// batched.
	Pacer string
	// Harvest lets a paced attack's lean client read answers when the
	// pacer wakes up anyway, not when each answer arrives (see package
	// harvest): about one wake-up per millisecond instead of one per
	// answer. Latencies stay exact: they end at the kernel's receive
	// timestamp of the answer's last bytes. On by default (DefaultOptions)
	// on Linux; unpaced attacks and net/http requests never harvest.
	Harvest bool
	Seed    uint64 // template random seed, 0 = random
	// Client selects the HTTP/1.1 client for plain http:// targets: "lean"
	// (default, loadlab's own keep-alive client) or "std" (net/http).
	// https, -http2 and -h2c always use net/http.
	Client string
	// Header is added to requests whose target has no such header; normally
	// headers are given to the targets decoder instead.
	Header http.Header
	// Transport holds vegeta's connection flags (-cert, -key,
	// -root-certs, -chunked, -connect-to, -dns-ttl, -laddr,
	// -proxy-header, -session-tickets, -unix-socket); any of them makes
	// the attack use the net/http client.
	Transport Transport
	// Segment, when set, makes this attack one shard of the schedule: it
	// sends only the requests of its segment, each with its global
	// sequence number and due time (see package segment). An unpaced
	// attack gets its share of MaxWorkers.
	Segment *segment.Segment
	// StartAt anchors the schedule on a wall-clock instant (shards started
	// on several machines share it): the attack waits for it, and when it
	// is already past, the requests due before now count as late (or
	// dropped beyond CatchUp), never shifted. Zero: now.
	StartAt time.Time
	// Journey, when set, makes each due request a session of several
	// (package flow; see journey.go): MaxWorkers then bounds the sessions
	// in flight, and New takes no targets.
	Journey Journey
}

// DefaultOptions are vegeta's defaults where vegeta has one, with bodies
// discarded (MaxBody 0) and a generous worker bound.
func DefaultOptions() Options {
	return Options{
		Timeout:     30 * time.Second,
		MaxWorkers:  DefaultMaxWorkers,
		Connections: 10000,
		KeepAlive:   true,
		HTTP2:       true,
		Redirects:   10,
		CatchUp:     time.Second,
		Client:      "lean",
		Harvest:     true,
		Pacer:       PacerPrecise,
	}
}

// DefaultMaxWorkers is the default bound on requests in flight for paced
// attacks: enough for 10,000 requests/s against a 1 s target.
const DefaultMaxWorkers = 10000

// validate checks o and fills in what New needs.
func (o *Options) validate() error {
	if o.Schedule == nil {
		return badinput.Field("-rate", "no schedule: give a rate, ramp or steps")
	}
	if o.MaxWorkers <= 0 {
		if o.Schedule.Unpaced() {
			return badinput.Field("-max-workers", "an unpaced attack (-rate 0) needs -max-workers, the number of concurrent requests")
		}
		o.MaxWorkers = DefaultMaxWorkers
	}
	if o.Timeout < 0 {
		return badinput.Field("-timeout", "must not be negative")
	}
	if o.Redirects < -1 {
		return badinput.Field("-redirects", "want -1 (do not follow) or a number of redirects to follow, got %d", o.Redirects)
	}
	if o.MaxBody < -1 {
		return badinput.Field("-max-body", "want -1 (keep all), 0 (keep none) or a byte count, got %d", o.MaxBody)
	}
	if o.Connections < 0 {
		return badinput.Field("-connections", "must not be negative, got %d", o.Connections)
	}
	if o.MaxConnections < 0 {
		return badinput.Field("-max-connections", "must not be negative, got %d", o.MaxConnections)
	}
	for k, vs := range o.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return badinput.Field("-header", "header name %q is not a valid HTTP token", k)
		}
		for _, v := range vs {
			if !httpguts.ValidHeaderFieldValue(v) {
				return badinput.Field("-header", "header %s: the value holds a control character (CR, LF, NUL...), which would break the request apart: %q", k, v)
			}
		}
	}
	if o.CatchUp <= 0 {
		o.CatchUp = time.Second
	}
	switch o.Client {
	case "", "lean", "std":
	default:
		return badinput.Field("-client", "want lean or std, got %q", o.Client)
	}
	switch o.Pacer {
	case "":
		o.Pacer = PacerPrecise
	case PacerPrecise, PacerBatched:
	default:
		return badinput.Field("-pacer", "want precise or batched, got %q", o.Pacer)
	}
	return nil
}

// wire is the client options for o: the attack's seed, onSent called as
// each request goes out, and vegeta's connection flags turned into a
// dialer and a TLS configuration (errors name the flag).
func (o *Options) wire(seed uint64, onSent func(due, sent time.Time)) (http1.Options, error) {
	w := http1.Options{
		Timeout: o.Timeout, Connections: o.Connections, MaxConnections: o.MaxConnections,
		KeepAlive: o.KeepAlive, HTTP2: o.HTTP2, H2C: o.H2C, Insecure: o.Insecure,
		Redirects: o.Redirects, MaxBody: o.MaxBody, Seed: seed, Std: o.Client == "std",
		Harvest: o.Harvest && !o.Schedule.Unpaced(),
		Header:  o.Header, Chunked: o.Transport.Chunked, OnSent: onSent,
	}
	if t := &o.Transport; t.set() {
		cfg, err := t.tlsConfig(o.Insecure)
		if err != nil {
			return w, err
		}
		w.TLS, w.Dial, w.ProxyConnectHeader = cfg, t.dialer(o.Timeout), t.ProxyHeader
	}
	return w, nil
}
