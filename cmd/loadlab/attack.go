package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/attackrun"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/live"
	"github.com/loadlab/loadlab/internal/outfile"
	"github.com/loadlab/loadlab/internal/progress"
	"github.com/loadlab/loadlab/internal/redact"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

func init() {
	register(command{
		name:    "attack",
		summary: "send requests at a constant rate, ramp or steps; write a results stream",
		order:   10,
		run:     runAttack,
	})
}

const attackExamples = `  # vegeta's habits carry over: 1000 requests/s for 30 s, report afterwards
  echo "GET http://127.0.0.1:8080/" | loadlab attack -rate=1000 -duration=30s > results.lll
  loadlab report results.lll
  # (.lll is loadlab's compact stream; vegeta's tools want gob:
  #  loadlab encode -to gob results.lll > results.bin && vegeta report results.bin)

  # Unique query strings without a generator script (the search-flood incident)
  echo 'GET http://127.0.0.1:8080/search?q={{rand.letters 50}}' | \
    loadlab attack -rate=1000/s -duration=5m -name=search -output=search.lll

  # A slow poll beside it, 1 request per second, in another shell
  echo "GET http://127.0.0.1:8080/news" | loadlab attack -rate=1/s -duration=5m -name=news -output=news.lll

  # Targets file in vegeta's http format, headers and a JSON body
  #   POST http://127.0.0.1:8080/api
  #   Content-Type: application/json
  #   @body.json
  loadlab attack -targets=targets.txt -header="X-Run: {{uuid}}" -rate=200 -duration=1m -output=r.lll

  # A doubling sweep (the Go-vs-Ruby API comparison): 8, 16, ... 4096 requests/s, 50 s each; each result records its step
  loadlab attack -targets=t.txt -steps=8,16,32,64,128,256,512,1024,2048,4096 -step-duration=50s -output=steps.lll

  # A linear ramp from 100/s to 2000/s over 2 minutes
  loadlab attack -targets=t.txt -rate=100/s..2000/s -duration=2m -output=ramp.lll

  # As fast as possible with 64 concurrent requests (wrk's -c 64)
  loadlab attack -targets=t.txt -rate=0 -max-workers=64 -duration=10s -output=max.lll

  # Two builds at once (a duet): requests alternate between :8080 (A) and
  # :8081 (B), so a busy machine slows both alike; then B/A of every figure
  echo "GET http://127.0.0.1:8080/api" | loadlab attack -rate=200 -duration=30s -duet=http://127.0.0.1:8081 -output=duet.lll
  loadlab compare -duet duet.lll

  # A user journey (log in, keep the token, browse; docs/flows.md): 50 new
  # sessions a second, or 200 users looping it; a report per step
  loadlab attack -flow journey.yaml -rate 50/s -duration 5m -output journey.lll
  loadlab attack -flow journey.yaml -users 200 -duration 5m -output journey.lll
  loadlab report -by step journey.lll

  # JSON-lines targets streamed from a generator, never held in memory
  ./gen-targets | loadlab attack -format=json -lazy -rate=500 -output=r.lll

Templates in URLs, header values and bodies: {{seq}} {{rand.int 1 1000}}
{{rand.letters 50}} {{rand.digits N}} {{rand.hex N}} {{rand.alnum N}}
{{rand.choice a b "c d"}} {{uuid}}, and {{"{{"}} for a literal "{{".
See docs/attack.md.`

// headerFlag collects repeatable -header "Name: value" flags.
type headerFlag struct{ h http.Header }

func (f *headerFlag) String() string { return "" }

func (f *headerFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return fmt.Errorf("want \"Name: value\", got %q", s)
	}
	if f.h == nil {
		f.h = http.Header{}
	}
	f.h.Add(name, strings.TrimSpace(value))
	return nil
}

// secretHeaderFlag is -secret-header: a header sent as -header's are,
// whose value no results header, summary or archive records.
type secretHeaderFlag struct {
	h     *headerFlag
	names []string
}

func (f *secretHeaderFlag) String() string { return "" }

func (f *secretHeaderFlag) Set(s string) error {
	if err := f.h.Set(s); err != nil {
		return err
	}
	name, _, _ := strings.Cut(s, ":")
	f.names = append(f.names, strings.TrimSpace(name))
	return nil
}

// recordedAttackArgs are an attack's arguments as its results header
// records them: without -archive (the archive is where the run goes, not
// how it was made; run drops it too), credentials redacted.
func recordedAttackArgs(args []string) []string {
	var kept []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			kept = append(kept, args[i:]...)
			break
		}
		switch {
		case a == "-archive" || a == "--archive":
			i++ // its value
			continue
		case strings.HasPrefix(a, "-archive=") || strings.HasPrefix(a, "--archive="):
			continue
		}
		kept = append(kept, a)
	}
	return redact.Args(kept)
}

// attackFlags are the parsed flags of loadlab attack.
type attackFlags struct {
	targets, format, output, body, name, rate, steps, client string
	shard, segment, segments, startAt, ui, uiToken           string
	duet, pacer                                              string
	export                                                   exportFlags
	vegeta                                                   vegetaFlags
	shardIndex, shards                                       int
	shardHost                                                string
	lazy, http2, h2c, keepalive, insecure, quiet, precise    bool
	harvest                                                  bool
	duration, timeout, stepDuration, catchUp                 time.Duration
	maxWorkers, workers, connections, maxConnections         int
	redirects                                                int
	maxBody                                                  int64
	seed                                                     uint64
	headers                                                  headerFlag
	secretHeaders                                            secretHeaderFlag
	maxWorkersSet                                            bool
	archive                                                  archiveFlags
	flow                                                     flowFlags
}

func runAttack(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f, err := parseAttackFlags(args, stderr)
	if err != nil {
		return err
	}
	return attackMain(ctx, f, args, stdin, stdout, stderr)
}

// parseAttackFlags reads and checks the attack's flags.
func parseAttackFlags(args []string, stderr io.Writer) (*attackFlags, error) {
	fs := newFlagSet("attack", "[flags] [< targets]", attackExamples, stderr)
	var f attackFlags
	fs.StringVar(&f.targets, "targets", "stdin", "targets `file`, in -format; stdin when not given")
	fs.StringVar(&f.format, "format", "http", "targets `format`: http (vegeta's: \"METHOD URL\", headers, @bodyfile, blank line) or json (one {\"method\",\"url\",\"header\",\"body\"} per line, body base64)")
	fs.BoolVar(&f.lazy, "lazy", false, "read targets one per request instead of all at start (huge or endless streams; the attack ends when the stream does)")
	fs.StringVar(&f.rate, "rate", "50/1s", "request `rate`: N (per second), N/s, N/m, N/250ms; a ramp FROM..TO (e.g. 100/s..2000/s) over -duration; 0 = as fast as possible with -max-workers concurrent requests")
	fs.DurationVar(&f.duration, "duration", 0, "attack `duration`; 0 = until interrupted (with -steps: cut the steps short)")
	fs.StringVar(&f.steps, "steps", "", "step sweep: comma-separated `rates` (e.g. 8,16,32 or 100/m,200/m), each held for -step-duration; overrides -rate")
	fs.DurationVar(&f.stepDuration, "step-duration", 0, "`duration` of each -steps step, e.g. 50s")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "per-request `timeout` (0 = none); also how long an interrupted attack waits for requests in flight")
	fs.IntVar(&f.maxWorkers, "max-workers", attack.DefaultMaxWorkers, "bound on requests in flight; a request due while the bound is reached is recorded as dropped (error \"dropped: max-workers reached\"). With -rate=0 it is the concurrency (required)")
	fs.IntVar(&f.workers, "workers", 0, "accepted for vegeta compatibility and ignored: workers start on demand up to -max-workers")
	fs.IntVar(&f.connections, "connections", 10000, "idle keep-alive connections kept per host")
	fs.IntVar(&f.maxConnections, "max-connections", 0, "connections per host, 0 = unlimited (uses the net/http client)")
	fs.BoolVar(&f.keepalive, "keepalive", true, "reuse connections (-keepalive=false opens one per request)")
	fs.BoolVar(&f.http2, "http2", true, "use HTTP/2 for https:// targets when the server offers it")
	fs.BoolVar(&f.h2c, "h2c", false, "HTTP/2 without TLS (prior knowledge) for http:// targets")
	fs.BoolVar(&f.insecure, "insecure", false, "skip TLS certificate verification")
	fs.IntVar(&f.redirects, "redirects", 10, "redirects to follow; -1 = do not follow (the 3xx is the result)")
	fs.Int64Var(&f.maxBody, "max-body", 0, "response body `bytes` stored in the results: 0 = none (bodies are still read and counted in bytes in), -1 = all")
	fs.Var(&f.headers, "header", "request header \"Name: value\" added to every target (repeatable; values may be templated). The value of a header carrying a credential (Authorization, Cookie, X-Api-Key, ...) is recorded as REDACTED")
	f.secretHeaders.h = &f.headers
	fs.Var(&f.secretHeaders, "secret-header", "request header \"Name: value\" sent as -header's are, whose value is never recorded (results header, archive): REDACTED in their place (repeatable)")
	fs.StringVar(&f.body, "body", "", "request body `file` for targets without an @body (may be templated)")
	fs.StringVar(&f.name, "name", "", "attack `name` recorded in every result (reports break down by it) and sent as the X-Vegeta-Attack header, as vegeta does")
	fs.StringVar(&f.output, "output", "stdout", "results `file` (loadlab results stream, flushed every 250 ms so readers following the file see fresh data)")
	fs.StringVar(&f.pacer, "pacer", attack.PacerPrecise, "how the pacer waits for due times: precise (wakes at each request's due time, Linux timerfd: schedule lag of tens of µs, about twice batched's CPU; falls back to batching on its own, and says so in the report, when the generator's CPU cannot keep it) or batched (requests due within a millisecond share a wake-up: lag up to ~1 ms, which due-based latencies include)")
	fs.BoolVar(&f.precise, "precise", false, "the same as -pacer=precise (the default), kept for scripts that give it")
	fs.BoolVar(&f.harvest, "harvest", true, "paced http:// attacks read answers when the pacer wakes up (about every millisecond), not as each arrives: far fewer wake-ups, same latencies (taken from the kernel's receive timestamps). -harvest=false wakes up per answer (Linux; elsewhere always false)")
	fs.BoolVar(&f.quiet, "quiet", false, "no live progress line on stderr (it is only drawn when stderr is a terminal)")
	fs.DurationVar(&f.catchUp, "catch-up", time.Second, "after a generator stall, requests up to this late are still sent (and counted late); later ones are recorded as dropped")
	fs.Uint64Var(&f.seed, "seed", 0, "random `seed` for templates: request i renders the same in every run with the same seed (0 = random)")
	f.vegeta.register(fs)
	f.export.register(fs, "attack")
	f.archive.register(fs, "results file")
	fs.StringVar(&f.ui, "ui", "", "serve a live view of the attack at `host:port` (e.g. 127.0.0.1:8089): rate, latency, status codes, in flight and lag per second; a non-loopback address needs a token (generated unless -ui-token)")
	fs.StringVar(&f.uiToken, "ui-token", "", "the `token` the live view requires (?token=...); default none on loopback, generated elsewhere")
	fs.StringVar(&f.shard, "shard", "", "send shard `i/n` of the schedule (1-based): n generators started with 1/n .. n/n and the same -start-at send the single-machine attack together, each request once with its global sequence number")
	fs.IntVar(&f.shardIndex, "shard-index", -1, "0-based `index` of this shard, with -shards (Kubernetes' JOB_COMPLETION_INDEX); the same as -shard index+1/shards")
	fs.IntVar(&f.shards, "shards", 0, "`number` of shards, with -shard-index")
	fs.StringVar(&f.segment, "segment", "", "send the `from:to` segment of the schedule (k6's execution segments, e.g. 0:1/4), within -segments")
	fs.StringVar(&f.segments, "segments", "", "every shard's cut `points`, e.g. 0,1/4,1/2,1 (default: the segment's own cuts); all shards must give the same")
	fs.StringVar(&f.shardHost, "shard-host", "", "this generator's `name` in a split attack's per-shard reports (default: the machine's hostname; fleet ssh passes its -hosts entry)")
	fs.StringVar(&f.startAt, "start-at", "", "anchor the schedule at `time`: RFC 3339 (2026-11-24T15:00:00Z), or +30s from now rounded up to the next whole second (so shards started together by hand share one instant); requests due before the attack could start count as late, never shifted")
	fs.StringVar(&f.duet, "duet", "", "measure two builds at once: send every target alternately as written (side A) and with its scheme://host:port replaced by this base `URL` (side B), so the machine's noise falls on both; loadlab compare -duet FILE gives B/A of each figure")
	fs.StringVar(&f.client, "client", "lean", "HTTP/1.1 client for http:// targets: lean (loadlab's keep-alive client) or std (net/http); https, -h2c and -max-connections always use net/http")
	f.flow.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if err := f.flow.check(fs); err != nil {
		return nil, err
	}
	f.maxWorkersSet = flagSet(fs, "max-workers")
	if f.maxWorkersSet && f.maxWorkers < 1 {
		return nil, badinput.Field("-max-workers", "want 1 or more requests in flight, got %d", f.maxWorkers)
	}
	if f.catchUp <= 0 {
		return nil, badinput.Field("-catch-up", "want a positive duration, got %v", f.catchUp)
	}
	switch {
	case f.pacer != attack.PacerPrecise && f.pacer != attack.PacerBatched:
		return nil, badinput.Field("-pacer", "want precise or batched, got %q", f.pacer)
	case f.precise && f.pacer == attack.PacerBatched:
		return nil, badinput.Field("-precise", "is -pacer=precise: it cannot go with -pacer=batched")
	}
	if fs.NArg() > 0 {
		return nil, badinput.Errorf("unexpected argument %q (targets come from stdin or -targets)", fs.Arg(0))
	}
	if f.duet != "" {
		base, err := targets.CheckDuetBase(f.duet)
		if err != nil {
			return nil, badinput.Field("-duet", "%v", err)
		}
		if f.lazy {
			return nil, badinput.Field("-duet", "reads every target first: it cannot go with -lazy")
		}
		f.duet = base
	}
	if f.archive.db != "" && (f.output == "stdout" || f.output == "-" || f.output == "") {
		return nil, badinput.Field("-archive", "archives the -output file: give -output FILE")
	}
	return &f, nil
}

// checkAttackFlags checks an attack's flags and schedule without running
// it (loadlab fleet checks what its pods will run).
func checkAttackFlags(args []string) error {
	f, err := parseAttackFlags(args, io.Discard)
	if err != nil {
		return err
	}
	if f.archive.db != "" {
		return badinput.Field("-archive", "a fleet's generators do not archive: add the shard files they return with loadlab archive add (one run)")
	}
	if f.steps != "" {
		_, err = schedule.ParseSteps(f.steps, f.stepDuration, f.duration)
	} else {
		_, err = schedule.Parse(f.rate, f.duration)
	}
	if err != nil {
		return err
	}
	var o attack.Options
	var meta results.Meta
	return f.shardOptions(&o, &meta, time.Now())
}

func attackMain(ctx context.Context, f *attackFlags, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var sched *schedule.Schedule
	fl, err := f.flow.load(stdin)
	if err != nil {
		return err
	}
	if f.flow.users > 0 {
		f.rate = "0"
	}
	if f.steps != "" {
		sched, err = schedule.ParseSteps(f.steps, f.stepDuration, f.duration)
	} else {
		sched, err = schedule.Parse(f.rate, f.duration)
	}
	if err != nil {
		return err
	}
	format, err := targets.ParseFormat(f.format)
	if err != nil {
		return err
	}
	if f.workers < 0 {
		return badinput.Field("-workers", "must not be negative, got %d (it is accepted for vegeta's sake and otherwise ignored)", f.workers)
	}
	topts := targets.Options{Format: format, Header: f.headers.h}
	if f.output != "stdout" {
		if err := outfile.CheckNotInput("-output", f.output, f.targets, f.body, f.flow.file); err != nil {
			return err
		}
	}
	if f.body != "" {
		b, err := os.ReadFile(f.body)
		if err != nil {
			return badinput.Field("-body", "%v", err)
		}
		topts.Body = b
	}
	var in io.Reader = stdin
	if f.targets != "stdin" && f.targets != "-" && f.targets != "" && fl == nil {
		tf, err := os.Open(f.targets)
		if err != nil {
			return badinput.Field("-targets", "%v", err)
		}
		defer tf.Close()
		in, topts.File = tf, f.targets
	}
	opts := attack.DefaultOptions()
	opts.Name, opts.Schedule, opts.Timeout = f.name, sched, f.timeout
	opts.MaxWorkers, opts.Connections, opts.MaxConnections = f.maxWorkers, f.connections, f.maxConnections
	opts.KeepAlive, opts.HTTP2, opts.H2C, opts.Insecure = f.keepalive, f.http2, f.h2c, f.insecure
	opts.Pacer, opts.Harvest = f.pacer, f.harvest
	opts.Redirects, opts.MaxBody, opts.CatchUp, opts.Seed, opts.Client = f.redirects, f.maxBody, f.catchUp, f.seed, f.client
	if f.name != "" {
		// As vegeta: servers (and proxies' logs) can tell attacks apart.
		opts.Header = http.Header{"X-Vegeta-Attack": {f.name}}
	}
	if err := f.vegeta.apply(&opts); err != nil {
		return err
	}
	meta := results.Meta{Generator: "loadlab " + version(), Command: append([]string{"loadlab", "attack"}, recordedAttackArgs(args)...)}
	if err := f.shardOptions(&opts, &meta, time.Now()); err != nil {
		return err
	}
	if fl != nil {
		f.flow.apply(&opts)
	}
	if sched.Unpaced() && !f.maxWorkersSet && fl == nil {
		return badinput.Field("-max-workers", "-rate=0 (as fast as possible) needs -max-workers, the number of concurrent requests, e.g. -max-workers=64")
	}
	if err := f.archive.check(ctx); err != nil {
		return err
	}
	lv, err := startLive(f.ui, f.uiToken, stderr)
	if err != nil {
		return err
	}
	ex, err := f.export.start(ctx, stderr)
	if err != nil {
		if lv != nil {
			lv.Close(0)
		}
		return err
	}
	defer ex.close(stderr)
	var outFile *os.File
	output := func() (io.Writer, error) {
		if f.output == "stdout" || f.output == "-" || f.output == "" {
			return stdout, nil
		}
		of, err := os.Create(f.output)
		if err != nil {
			return nil, badinput.Field("-output", "%v", err)
		}
		outFile = of
		return of, nil
	}
	job := attackrun.Job{
		Attacks:  []attackrun.Attack{{Targets: in, TargetOptions: topts, Lazy: f.lazy, Duet: f.duet, Options: opts, Output: output, Meta: meta, SecretHeaders: f.secretHeaders.names, Flow: fl}},
		Watchers: ex.list(),
	}
	if lv != nil {
		// a closed loop shows its users, not a rate of 0
		lv.SetStep(live.Step{Name: cmp.Or(f.name, "attack"), Rate: attackrun.LoadOf(opts).String(), For: sched.Length()})
		job.Watchers = append([]attackrun.Watcher{lv}, job.Watchers...)
	}
	var bar *progress.Bar
	if !f.quiet && progress.IsTerminal(stderr) {
		bar = progress.New(stderr, sched.Length(), nil)
		bar.Start(attackrun.FlushEvery)
		job.Watchers = append(job.Watchers, bar)
	}
	res := attackrun.Run(ctx, job)
	if bar != nil {
		bar.Stop()
	}
	err = res.Err()
	switch st := res.Stats[0]; {
	case err != nil || f.quiet || st.Dropped == 0:
	case fl != nil:
		fmt.Fprintf(stderr, "loadlab attack: %d sessions dropped (max-sessions %d reached or generator behind schedule); they are in the results\n", st.Dropped, opts.MaxWorkers)
	default:
		fmt.Fprintf(stderr, "loadlab attack: %d requests dropped (max-workers %d reached or generator behind schedule); they are in the results\n", st.Dropped, opts.MaxWorkers)
	}
	if note := res.Notes[0]; note != "" && err == nil {
		fmt.Fprintf(stderr, "loadlab attack: %s\n", note)
	}
	if lv != nil {
		lv.Close(liveLinger) // the page shows the end before the process goes
	}
	if outFile != nil {
		if cerr := outFile.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("writing results: %w", cerr)
		}
	}
	if err != nil || outFile == nil {
		return err
	}
	f.archive.name = f.name
	return f.archive.add(ctx, f.output, stdout, stderr, nil)
}
