package hostile

import (
	"strings"
	"testing"
)

// badCase is one bad input: the command line, stdin and files it meets.
type badCase struct {
	name  string
	args  []string
	stdin string
	files map[string]string
	want  string // in the one line on stderr, when set
}

// tgt is a good target on a port nothing listens on: a case that is not
// refused would attack it for at most a second and exit 0, failing.
const tgt = "GET http://127.0.0.1:1/\n"

func attackCase(name, want string, args ...string) badCase {
	return badCase{name: "attack/" + name, args: append([]string{"attack", "-duration=1s", "-rate=1/s", "-output=out.lll"}, args...), stdin: tgt, want: want}
}

func targetsCase(name, format, in, want string) badCase {
	return badCase{name: "targets/" + name, args: []string{"attack", "-format=" + format, "-duration=1s", "-rate=1/s", "-output=out.lll"}, stdin: in, want: want}
}

func cmdCase(name, want string, files map[string]string, args ...string) badCase {
	return badCase{name: name, args: args, files: files, want: want}
}

// plan is a valid plan of one scenario; extra is appended to it.
const planHead = "name: hostile\ntarget: http://127.0.0.1:1\n"

func battery() []badCase {
	crlf := `{{"v\r\nInjected: yes"}}`
	cs := []badCase{
		// attack flags
		attackCase("rate word", "-rate", "-rate=abc"),
		attackCase("rate negative", "", "-rate=-5/s"),
		attackCase("rate unit", "", "-rate=10/x"),
		attackCase("duration negative", "-duration", "-duration=-1s"),
		attackCase("duration word", "", "-duration=soon"),
		attackCase("timeout negative", "-timeout", "-timeout=-1s"),
		attackCase("workers negative", "", "-workers=-1"),
		attackCase("max-workers negative", "", "-max-workers=-3"),
		attackCase("connections negative", "-connections", "-connections=-1"),
		attackCase("max-connections negative", "-max-connections", "-max-connections=-1"),
		attackCase("redirects", "-redirects", "-redirects=-2"),
		attackCase("max-body", "-max-body", "-max-body=-5"),
		attackCase("format", "-format", "-format=xml"),
		attackCase("targets missing", "-targets", "-targets=missing.txt"),
		attackCase("body missing", "-body", "-body=missing.json"),
		attackCase("header no colon", "", "-header=NoColon"),
		attackCase("header empty name", "", "-header=: v"),
		attackCase("header name space", "", "-header=X A: v"),
		attackCase("header CRLF in quoted template", "control character", "-header=X-A: "+crlf),
		attackCase("header smuggled request", "control character", `-header=X-A: {{rand.choice ok "ok\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: evil"}}`),
		attackCase("header NUL", "control character", `-header=X-A: {{"\x00"}}`),
		attackCase("header bad template", "-header", "-header=X-A: {{seq"),
		attackCase("client", "-client", "-client=foo"),
		attackCase("steps", "", "-steps=10/s,abc", "-step-duration=1s"),
		attackCase("shard order", "", "-shard=3/2"),
		attackCase("shard word", "", "-shard=abc"),
		attackCase("start-at", "", "-start-at=yesterday"),
		attackCase("segment", "", "-segment=1:0"),
		attackCase("dns-ttl negative", "-dns-ttl", "-dns-ttl=-5s"),
		attackCase("connect-to", "", "-connect-to=bad"),
		attackCase("laddr", "", "-laddr=notanip"),
		attackCase("cert missing", "", "-cert=missing.pem", "-key=missing.pem"),
		attackCase("root-certs missing", "", "-root-certs=missing.pem"),
		attackCase("ui address", "", "-ui=notanaddr"),
		attackCase("prometheus-addr", "", "-prometheus-addr=bad"),
		attackCase("seed", "", "-seed=notanumber"),
		attackCase("unknown flag", "", "-nope"),
		attackCase("positional", "", "extra"),
		attackCase("unpaced without max-workers", "-max-workers", "-rate=0"),
		attackCase("output into missing folder", "", "-output=nodir/r.lll"),
		attackCase("output is the targets file", "destroy", "-targets=targets.txt", "-output=targets.txt"),
		attackCase("push-interval", "", "-push-interval=-1s", "-otlp-endpoint=http://127.0.0.1:1"),
		attackCase("remote write version", "", "-prometheus-remote-write=http://127.0.0.1:1/api", "-prometheus-remote-write-version=9"),
		attackCase("body bad template", "-body", "-body=body.tmpl"),
		attackCase("catch-up", "", "-catch-up=soon"),

		// targets files (http format)
		targetsCase("unknown method", "http", "FETCH http://127.0.0.1:1/\n", "stdin:1"),
		targetsCase("relative URL", "http", "GET /relative\n", "stdin:1"),
		targetsCase("no URL", "http", "GET\n", "stdin:1"),
		targetsCase("bad header line", "http", "GET http://127.0.0.1:1/\nnot a header\n", "stdin:2"),
		targetsCase("unclosed template", "http", "GET http://127.0.0.1:1/\nX: {{seq\n", "stdin:2"),
		targetsCase("template arity", "http", "GET http://127.0.0.1:1/?q={{rand.letters}}\n", "stdin:1"),
		targetsCase("template too long", "http", "GET http://127.0.0.1:1/?q={{rand.letters 999999}}\n", "stdin:1"),
		targetsCase("unknown function", "http", "GET http://127.0.0.1:1/?q={{nope}}\n", "stdin:1"),
		targetsCase("int bounds", "http", "GET http://127.0.0.1:1/?q={{rand.int 5 1}}\n", "stdin:1"),
		targetsCase("header CRLF choice", "http", "GET http://127.0.0.1:1/\nX-A: {{rand.choice ok \"a\\r\\nb\"}}\n", "control character"),
		targetsCase("header smuggled request", "http", "GET http://127.0.0.1:1/\nX-A: {{rand.choice \"ok\\r\\n\\r\\nGET /smuggled HTTP/1.1\\r\\nHost: evil\"}}\n", "control character"),
		targetsCase("URL CRLF quoted", "http", "GET http://127.0.0.1:1/{{\"\\r\\nInjected: yes\"}}\n", "control character"),
		targetsCase("host CRLF choice", "http", "GET http://{{rand.choice 127.0.0.1 \"h\\r\\nInjected: yes\"}}:1/\n", "control character"),
		targetsCase("body file missing", "http", "POST http://127.0.0.1:1/\n@missing.json\n", "stdin:2"),
		targetsCase("body file bad template", "http", "POST http://127.0.0.1:1/\n@body.tmpl\n", "stdin:2"),
		targetsCase("ftp URL", "http", "GET ftp://127.0.0.1/\n", "stdin:1"),
		targetsCase("no host", "http", "GET http:///nohost\n", "stdin:1"),
		targetsCase("no targets", "http", "", "no targets"),
		targetsCase("only comments", "http", "# one\n// two\n", "no targets"),
		targetsCase("line too long", "http", "GET http://127.0.0.1:1/"+strings.Repeat("a", 1<<20+10)+"\n", "stdin:1"),
		targetsCase("header name with colon space", "http", "GET http://127.0.0.1:1/\nX(: v\n", "stdin:2"),
		// JSON targets
		targetsCase("json not JSON", "json", "{\"method\":\n", "stdin:1"),
		targetsCase("json no url", "json", `{"method":"GET"}`, "stdin:1"),
		targetsCase("json no method", "json", `{"url":"http://127.0.0.1:1/"}`, "stdin:1"),
		targetsCase("json lower method", "json", `{"method":"get","url":"http://127.0.0.1:1/"}`, "stdin:1"),
		targetsCase("json header CRLF", "json", `{"method":"GET","url":"http://127.0.0.1:1/","header":{"X-A":["{{\"v\\r\\nInjected: yes\"}}"]}}`, "control character"),
		targetsCase("json header raw CRLF", "json", `{"method":"GET","url":"http://127.0.0.1:1/","header":{"X-A":["v\r\nInjected: yes"]}}`, "control character"),
		targetsCase("json header name", "json", `{"method":"GET","url":"http://127.0.0.1:1/","header":{"X A":["v"]}}`, "stdin:1"),
		targetsCase("json body not base64", "json", `{"method":"POST","url":"http://127.0.0.1:1/","body":"!!"}`, "stdin:1"),
		targetsCase("json URL CRLF", "json", `{"method":"GET","url":"http://127.0.0.1:1/\r\nX: y"}`, "stdin:1"),
		targetsCase("json method smuggle", "json", `{"method":"GET / HTTP/1.1\r\nX: y","url":"http://127.0.0.1:1/"}`, "stdin:1"),
		targetsCase("json array", "json", `[{"method":"GET","url":"http://127.0.0.1:1/"}]`, "stdin:1"),

		// report
		cmdCase("report/type", "-type", nil, "report", "-type=nope", "r.lll"),
		cmdCase("report/hist buckets", "", nil, "report", "-type=hist[abc]", "r.lll"),
		cmdCase("report/every negative", "", nil, "report", "-every=-1s", "r.lll"),
		cmdCase("report/every word", "", nil, "report", "-every=abc", "r.lll"),
		cmdCase("report/every with hdrplot", "-every", nil, "report", "-every=1s", "-type=hdrplot", "r.lll"),
		cmdCase("report/basis", "-basis", nil, "report", "-basis=nope", "r.lll"),
		cmdCase("report/threshold", "-threshold", nil, "report", "-threshold=nonsense", "r.lll"),
		cmdCase("report/threshold value", "-threshold", nil, "report", "-threshold=p99<abc", "r.lll"),
		cmdCase("report/missing input", "missing.lll", nil, "report", "missing.lll"),
		cmdCase("report/junk input", "junk.lll", nil, "report", "junk.lll"),
		cmdCase("report/output is input", "destroy", nil, "report", "-output=r.lll", "r.lll"),
		cmdCase("report/follow two files", "-follow", nil, "report", "-follow", "r.lll", "r.lll"),
		cmdCase("report/follow-idle negative", "-follow-idle", nil, "report", "-follow", "-follow-idle=-1s", "r.lll"),
		cmdCase("report/follow junk", "", nil, "report", "-follow", "-follow-idle=1s", "junk.lll"),
		cmdCase("report/stdin mixed", "stdin", nil, "report", "-", "r.lll"),
		cmdCase("report/unknown flag", "", nil, "report", "-nope", "r.lll"),
		cmdCase("report/csv bad row", "", map[string]string{"bad.csv": "1,2,3\n"}, "report", "bad.csv"),
		cmdCase("report/json bad line", "", map[string]string{"bad.json": "{\"timestamp\": \"x\"}\n"}, "report", "bad.json"),
		cmdCase("report/future version", "", map[string]string{"v9.lll": "LOADLAB\n\x09\x02{}"}, "report", "v9.lll"),
		cmdCase("report/truncated header", "", map[string]string{"th.lll": "LOADLAB\n\x02\x7f{\"ver"}, "report", "th.lll"),
		cmdCase("report/output in missing folder", "", nil, "report", "-output=nodir/x.txt", "r.lll"),
		// encode
		cmdCase("encode/to", "-to", nil, "encode", "-to=nope", "r.lll"),
		cmdCase("encode/output is input", "destroy", nil, "encode", "-to=loadlab", "-output=r.lll", "r.lll"),
		cmdCase("encode/missing input", "", nil, "encode", "-to=csv", "missing.lll"),
		cmdCase("encode/junk input", "", nil, "encode", "-to=csv", "junk.lll"),
		cmdCase("encode/basis", "", nil, "encode", "-to=csv", "-basis=nope", "r.lll"),
		cmdCase("encode/unknown flag", "", nil, "encode", "-nope", "r.lll"),
		cmdCase("encode/stdin mixed", "", nil, "encode", "-to=csv", "-", "r.lll"),
		cmdCase("encode/basis with loadlab", "-basis", nil, "encode", "-to=loadlab", "-basis=send", "r.lll"),
		// plot
		cmdCase("plot/format", "", nil, "plot", "-format=nope", "r.lll"),
		cmdCase("plot/output is input", "destroy", nil, "plot", "-output=r.lll", "r.lll"),
		cmdCase("plot/resolution negative", "", nil, "plot", "-resolution=-1", "r.lll"),
		cmdCase("plot/resolution word", "", nil, "plot", "-resolution=abc", "r.lll"),
		cmdCase("plot/run without =", "", nil, "plot", "-run=bad", "-output=p.html"),
		cmdCase("plot/run without files", "", nil, "plot", "-run=A=", "-output=p.html"),
		cmdCase("plot/missing input", "", nil, "plot", "-output=p.html", "missing.lll"),
		cmdCase("plot/junk input", "", nil, "plot", "-output=p.html", "junk.lll"),
		cmdCase("plot/basis", "", nil, "plot", "-basis=nope", "-output=p.html", "r.lll"),
		cmdCase("plot/unknown flag", "", nil, "plot", "-nope", "r.lll"),
		// compare
		cmdCase("compare/one run", "", nil, "compare", "r.lll"),
		cmdCase("compare/baseline", "", nil, "compare", "-baseline=9", "r.lll", "r.lll"),
		cmdCase("compare/resamples", "", nil, "compare", "-resamples=-1", "r.lll", "r.lll"),
		cmdCase("compare/format", "", nil, "compare", "-format=nope", "r.lll", "r.lll"),
		cmdCase("compare/run without =", "", nil, "compare", "-run=bad", "-run=b=r.lll"),
		cmdCase("compare/missing input", "", nil, "compare", "r.lll", "missing.lll"),
		cmdCase("compare/junk input", "", nil, "compare", "r.lll", "junk.lll"),
		cmdCase("compare/seed", "", nil, "compare", "-seed=abc", "r.lll", "r.lll"),
		cmdCase("compare/output is a file", "", nil, "compare", "-output=junk.lll", "-run=a=r.lll", "-run=b=r.lll"),
		// origin
		cmdCase("origin/recipe missing", "", nil, "origin", "-listen=127.0.0.1:0", "-recipe=missing.json"),
		cmdCase("origin/recipe not JSON", "", map[string]string{"bad.json": "{"}, "origin", "-listen=127.0.0.1:0", "-recipe=bad.json"),
		cmdCase("origin/recipe latency", "latency", map[string]string{"bad.json": `{"stages": [{"status": 200, "latency": "fast"}]}`}, "origin", "-listen=127.0.0.1:0", "-recipe=bad.json"),
		cmdCase("origin/recipe status", "status", map[string]string{"bad.json": `{"stages": [{"status": 700}]}`}, "origin", "-listen=127.0.0.1:0", "-recipe=bad.json"),
		cmdCase("origin/recipe random_content", "", map[string]string{"bad.json": `{"random_content": "abc", "stages": [{"status": 200}]}`}, "origin", "-listen=127.0.0.1:0", "-recipe=bad.json"),
		cmdCase("origin/recipe memory", "-max-recipe-memory", map[string]string{"big.json": `{"random_content": "60mb..64mb", "stages": [{"status": 200}]}`}, "origin", "-listen=127.0.0.1:0", "-max-recipe-memory=64mb", "-recipe=big.json"),
		cmdCase("origin/recipe local origin", "", map[string]string{"o.json": `{"origin": "http://127.0.0.1:1/", "stages": [{"status": 200}]}`}, "origin", "-listen=127.0.0.1:0", "-recipe=o.json"),
		cmdCase("origin/recipe negative at", "", map[string]string{"bad.json": `{"stages": [{"at": -5, "status": 200}]}`}, "origin", "-listen=127.0.0.1:0", "-recipe=bad.json"),
		cmdCase("origin/max-recipe-memory negative", "", nil, "origin", "-listen=127.0.0.1:0", "-max-recipe-memory=-1"),
		cmdCase("origin/max-recipe-memory word", "", nil, "origin", "-listen=127.0.0.1:0", "-max-recipe-memory=lots"),
		cmdCase("origin/listen", "-listen", nil, "origin", "-listen=bad"),
		cmdCase("origin/listen port", "-listen", nil, "origin", "-listen=127.0.0.1:99999"),
		cmdCase("origin/server", "-server", nil, "origin", "-listen=127.0.0.1:0", "-server=nope"),
		cmdCase("origin/idle-timeout", "", nil, "origin", "-listen=127.0.0.1:0", "-idle-timeout=-1s"),
		cmdCase("origin/max-conn-requests", "", nil, "origin", "-listen=127.0.0.1:0", "-max-conn-requests=-1"),
		cmdCase("origin/origin-file", "", nil, "origin", "-listen=127.0.0.1:0", "-origin-file=bad"),
		cmdCase("origin/tls-cert without tls", "-tls-cert", nil, "origin", "-listen=127.0.0.1:0", "-tls-cert=cert.pem"),
		cmdCase("origin/seed", "", nil, "origin", "-listen=127.0.0.1:0", "-seed=abc"),
		cmdCase("origin/offline-size", "", nil, "origin", "-listen=127.0.0.1:0", "-offline-size=-1"),
		cmdCase("origin/positional", "", nil, "origin", "-listen=127.0.0.1:0", "extra"),
		// proxy
		cmdCase("proxy/no config", "-config", nil, "proxy", "-listen=127.0.0.1:0"),
		cmdCase("proxy/config missing", "", nil, "proxy", "-check", "-config=missing.yaml"),
		cmdCase("proxy/config not YAML", "", map[string]string{"p.yaml": "pools: [\n"}, "proxy", "-check", "-config=p.yaml"),
		cmdCase("proxy/route /metrics", "reserved", map[string]string{"p.yaml": "pools: {default: {size: 1}}\nroutes: [{path: /metrics, upstream: \"http://127.0.0.1:1\"}]\n"}, "proxy", "-check", "-config=p.yaml"),
		cmdCase("proxy/route /metrics*", "/metrics", map[string]string{"p.yaml": "pools: {default: {size: 1}}\nroutes: [{path: /metrics*, upstream: \"http://127.0.0.1:1\"}]\n"}, "proxy", "-check", "-config=p.yaml"),
		cmdCase("proxy/upstream port", "99999", map[string]string{"p.yaml": "pools: {default: {size: 1}}\nroutes: [{path: /x, upstream: \"http://127.0.0.1:99999\"}]\n"}, "proxy", "-check", "-config=p.yaml"),
		cmdCase("proxy/no routes", "", map[string]string{"p.yaml": "pools: {default: {size: 1}}\n"}, "proxy", "-check", "-config=p.yaml"),
		cmdCase("proxy/unknown pool", "", map[string]string{"p.yaml": "pools: {default: {size: 1}}\nroutes: [{path: /x, upstream: \"http://127.0.0.1:1\", pool: nope}]\n"}, "proxy", "-check", "-config=p.yaml"),
		cmdCase("proxy/pool size", "", map[string]string{"p.yaml": "pools: {default: {size: -1}}\nroutes: [{path: /x, upstream: \"http://127.0.0.1:1\"}]\n"}, "proxy", "-check", "-config=p.yaml"),
		cmdCase("proxy/checkout_timeout 0", "checkout_timeout", map[string]string{"p.yaml": "pools: {default: {size: 1, checkout_timeout: 0s}}\nroutes: [{path: /x, upstream: \"http://127.0.0.1:1\"}]\n"}, "proxy", "-check", "-config=p.yaml"),
		cmdCase("proxy/error_status", "", map[string]string{"p.yaml": "pools: {default: {size: 1}}\nroutes: [{path: /x, upstream: \"http://127.0.0.1:1\", error_status: 700}]\n"}, "proxy", "-check", "-config=p.yaml"),
		cmdCase("proxy/path without slash", "", map[string]string{"p.yaml": "pools: {default: {size: 1}}\nroutes: [{path: x, upstream: \"http://127.0.0.1:1\"}]\n"}, "proxy", "-check", "-config=p.yaml"),
		cmdCase("proxy/inner star", "", map[string]string{"p.yaml": "pools: {default: {size: 1}}\nroutes: [{path: /a*/b, upstream: \"http://127.0.0.1:1\"}]\n"}, "proxy", "-check", "-config=p.yaml"),
		cmdCase("proxy/upstream scheme", "", map[string]string{"p.yaml": "pools: {default: {size: 1}}\nroutes: [{path: /x, upstream: \"ftp://127.0.0.1:1\"}]\n"}, "proxy", "-check", "-config=p.yaml"),
		cmdCase("proxy/unknown key", "", map[string]string{"p.yaml": "pools: {default: {size: 1}}\nroutes: [{path: /x, upstream: \"http://127.0.0.1:1\", nope: 1}]\n"}, "proxy", "-check", "-config=p.yaml"),
		cmdCase("proxy/listen", "-listen", nil, "proxy", "-config=proxy.yaml", "-listen=bad"),
		cmdCase("proxy/procs", "-procs", nil, "proxy", "-config=proxy.yaml", "-procs=-1"),
		cmdCase("proxy/shutdown-grace", "-shutdown-grace", nil, "proxy", "-config=proxy.yaml", "-shutdown-grace=-1s"),
		cmdCase("proxy/idle-timeout", "-idle-timeout", nil, "proxy", "-config=proxy.yaml", "-idle-timeout=0s"),
		cmdCase("proxy/client-body-timeout", "-client-body-timeout", nil, "proxy", "-config=proxy.yaml", "-client-body-timeout=0s"),
		cmdCase("proxy/max-request-body", "-max-request-body", nil, "proxy", "-config=proxy.yaml", "-max-request-body=0"),
		cmdCase("proxy/positional", "", nil, "proxy", "-config=proxy.yaml", "extra"),
		// model
		cmdCase("model/timeout negative", "-timeout", nil, "model", "-timeout=-1s", "-recipe=recipe.json"),
		cmdCase("model/nothing", "", nil, "model"),
		cmdCase("model/recipe missing", "", nil, "model", "-recipe=missing.json"),
		cmdCase("model/rate", "", nil, "model", "-recipe=recipe.json", "-rate=abc"),
		cmdCase("model/duration", "", nil, "model", "-recipe=recipe.json", "-duration=-1s"),
		cmdCase("model/type", "", nil, "model", "-recipe=recipe.json", "-type=nope"),
		cmdCase("model/config route", "", map[string]string{"p.yaml": "pools: {default: {size: 1}}\nroutes: [{path: /metrics, upstream: \"http://127.0.0.1:1\"}]\n"}, "model", "-recipe=recipe.json", "-config=p.yaml"),
		cmdCase("model/plan missing", "", nil, "model", "missing.yaml"),
		// run
		cmdCase("run/no plan", "", nil, "run", "-check"),
		cmdCase("run/plan missing", "", nil, "run", "-check", "missing.yaml"),
		cmdCase("run/plan not YAML", "", map[string]string{"plan.yaml": "name: [\n"}, "run", "-check", "plan.yaml"),
		cmdCase("run/plan header injection", "control character", map[string]string{"plan.yaml": planHead +
			"scenarios:\n  - name: s\n    target: GET http://127.0.0.1:1/\n    headers: {x-a: '" + crlf + "'}\n    rate: 1/s\n    duration: 1s\n"}, "run", "-check", "plan.yaml"),
		cmdCase("run/plan proxy config routes /metrics", "reserved", map[string]string{
			"p.yaml":    "pools: {default: {size: 1}}\nroutes: [{path: /metrics, upstream: \"${origin.url}\"}]\n",
			"plan.yaml": "name: hostile\ncomponents:\n  origin: {kind: origin, recipe: recipe.json}\n  api: {kind: proxy, config: p.yaml}\nscenarios:\n  - name: s\n    target: GET ${api.url}/x\n    rate: 1/s\n    duration: 1s\n"},
			"run", "-check", "plan.yaml"),
		cmdCase("run/plan proxy upstream port", "99999", map[string]string{
			"p.yaml":    "pools: {default: {size: 1}}\nroutes: [{path: /*, upstream: \"http://127.0.0.1:99999\"}]\n",
			"plan.yaml": "name: hostile\ncomponents:\n  origin: {kind: origin, recipe: recipe.json}\n  api: {kind: proxy, config: p.yaml}\nscenarios:\n  - name: s\n    target: GET ${api.url}/x\n    rate: 1/s\n    duration: 1s\n"},
			"run", "-check", "plan.yaml"),
		cmdCase("run/plan unknown kind", "", map[string]string{"plan.yaml": "name: hostile\ncomponents:\n  x: {kind: nope}\nscenarios:\n  - name: s\n    target: GET http://127.0.0.1:1/\n    rate: 1/s\n    duration: 1s\n"}, "run", "-check", "plan.yaml"),
		cmdCase("run/plan bad rate", "", map[string]string{"plan.yaml": planHead + "scenarios:\n  - name: s\n    target: GET http://127.0.0.1:1/\n    rate: fast\n    duration: 1s\n"}, "run", "-check", "plan.yaml"),
		cmdCase("run/plan bad duration", "", map[string]string{"plan.yaml": planHead + "scenarios:\n  - name: s\n    target: GET http://127.0.0.1:1/\n    rate: 1/s\n    duration: -1s\n"}, "run", "-check", "plan.yaml"),
		cmdCase("run/plan bad target", "", map[string]string{"plan.yaml": planHead + "scenarios:\n  - name: s\n    target: FETCH http://127.0.0.1:1/\n    rate: 1/s\n    duration: 1s\n"}, "run", "-check", "plan.yaml"),
		cmdCase("run/plan unknown key", "", map[string]string{"plan.yaml": planHead + "nope: 1\nscenarios:\n  - name: s\n    target: GET http://127.0.0.1:1/\n    rate: 1/s\n    duration: 1s\n"}, "run", "-check", "plan.yaml"),
		cmdCase("run/rewrite missing", "", nil, "run", "-rewrite=missing-run"),
		cmdCase("run/two plans", "", nil, "run", "-check", "a.yaml", "b.yaml"),
		cmdCase("run/set", "", map[string]string{"plan.yaml": planHead + "scenarios:\n  - name: s\n    target: GET http://127.0.0.1:1/\n    rate: 1/s\n    duration: 1s\n"}, "run", "-check", "-set=bad", "plan.yaml"),
		// fleet
		cmdCase("fleet/no targets", "", nil, "fleet", "-shards=2", "-targets=missing.txt"),
		cmdCase("fleet/shards", "", nil, "fleet", "-shards=0", "-targets=targets.txt"),
		cmdCase("fleet/deadline", "", nil, "fleet", "-shards=2", "-deadline=-1s", "-targets=targets.txt"),
		// the command itself
		cmdCase("unknown command", "", nil, "nope"),
	}
	return cs
}

// TestBadInputBattery: every bad input across every command gets one line
// on stderr and exit 2, and leaves every file as it was.
func TestBadInputBattery(t *testing.T) {
	cases := battery()
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("two cases named %s", c.name)
		}
		seen[c.name] = true
	}
	t.Logf("%d bad inputs", len(cases))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := caseDir(t, c.files)
			before := snapshot(t, dir)
			res := run(t, dir, c.stdin, c.args...)
			if res.code != 2 {
				t.Errorf("loadlab %s: exit %d, want 2; stderr: %s", strings.Join(c.args, " "), res.code, res.stderr)
			}
			oneLine(t, res.stderr)
			if c.want != "" && !strings.Contains(res.stderr, c.want) {
				t.Errorf("stderr %q does not say %q", res.stderr, c.want)
			}
			sameFiles(t, before, snapshot(t, dir))
			t.Logf("%s", strings.TrimSpace(res.stderr))
		})
	}
}
