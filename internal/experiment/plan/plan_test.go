package plan

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/badinput"
)

const good = `name: incident
description: fixed vs overflow pool
components:
  origin:
    kind: origin
    recipe: origin.json
  proxy:
    kind: proxy
    variants:
      overflow:
        label: 4 workers + 32 overflow
        config: proxy.yaml
      fixed:
        config: proxy.yaml
        set:
          pools.default.size: 12
matrix:
  proxy: [overflow, fixed]
  rate: [10, 20, 30]
step_name: "${rate} rps, ${proxy.label}"
scenarios:
  - name: search
    target: "GET ${proxy.url}/search?q={{rand.letters 50}}"
    rate: ${rate}/s
    duration: 2s
    headers:
      accept-encoding: gzip
  - target: GET ${proxy.url}/news
    rate: 1/s
    duration: 2s
warmup: 1s
cooldown: 500ms
stop:
  error_ratio: 50%
samplers:
  metrics:
    - from: proxy
      series: [loadlab_proxy_pool_in_use, 'loadlab_proxy_responses_total{origin="upstream"}', loadlab_proxy_breaker*]
thresholds:
  - p99 < 1.1s
  - "news: success > 99%"
`

func TestParseGood(t *testing.T) {
	p, err := Parse("plan.yaml", "testdata", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 6 {
		t.Fatalf("got %d steps, want 6", len(p.Steps))
	}
	wantNames := []string{"10 rps, 4 workers + 32 overflow", "20 rps, 4 workers + 32 overflow", "30 rps, 4 workers + 32 overflow", "10 rps, fixed", "20 rps, fixed", "30 rps, fixed"}
	for i, st := range p.Steps {
		if st.Name != wantNames[i] {
			t.Errorf("step %d name %q, want %q", i, st.Name, wantNames[i])
		}
	}
	s := p.Steps[4]
	if s.Variants["proxy"] != "fixed" || s.Vars["rate"] != "20" {
		t.Errorf("step 4: variants %v vars %v", s.Variants, s.Vars)
	}
	if len(s.Scenarios) != 2 || s.Scenarios[0].Rate.From.PerSecond() != 20 || s.Scenarios[1].Name != "news" {
		t.Errorf("step 4 scenarios: %+v %+v", s.Scenarios[0], s.Scenarios[1])
	}
	if !strings.Contains(s.Scenarios[0].Targets, "${proxy.url}/search?q={{rand.letters 50}}") {
		t.Errorf("targets %q", s.Scenarios[0].Targets)
	}
	if got := p.Component("proxy").Variant("fixed").Set; len(got) != 1 || got[0].Path != "pools.default.size" || got[0].Value != 12 {
		t.Errorf("set = %+v", got)
	}
	if p.Stop.ErrorRatio != 0.5 || len(p.Thresholds) != 2 || p.Thresholds[1].Scenario != "news" {
		t.Errorf("stop %+v thresholds %+v", p.Stop, p.Thresholds)
	}
	if p.Samplers.Metrics[0].Path != "/metrics" || len(p.Samplers.Metrics[0].Series) != 3 {
		t.Errorf("samplers %+v", p.Samplers)
	}
}

func TestStepList(t *testing.T) {
	src := `target: http://127.0.0.1:9
steps:
  - name: small
    vars: {r: 5}
  - name: big
    vars: {r: 50}
    scenarios:
      - {name: other, target: "GET ${target}/x", rate: "${r}/s..100/s", duration: 1s}
scenarios:
  - {name: a, target: "GET ${target}/a", rate: "${r}/s", duration: 1s}
`
	p, err := Parse("p.yaml", "testdata", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 2 || p.Steps[0].Scenarios[0].Rate.From.PerSecond() != 5 || p.Steps[1].Scenarios[0].Name != "other" || !p.Steps[1].Scenarios[0].Rate.IsRamp() {
		t.Fatalf("steps %+v %+v", p.Steps[0].Scenarios[0], p.Steps[1].Scenarios[0])
	}
}

// TestRates: plans read rates with the attack's own grammar, decimals and
// staircases included, and keep them exact.
func TestRates(t *testing.T) {
	src := `target: http://127.0.0.1:9
scenarios:
  - {name: a, target: "GET ${target}/a", rate: 2.5/s, duration: 4s}
  - {name: b, target: "GET ${target}/b", rate: 0.25, duration: 4s}
  - {name: c, target: "GET ${target}/c", steps: ["8, 16", 32], step_duration: 2s}
`
	p, err := Parse("p.yaml", "testdata", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	sc := p.Steps[0].Scenarios
	if sc[0].Rate.From != (schedule.Rate{Freq: 5, Per: 2 * time.Second}) || sc[0].Rate.IsRamp() {
		t.Errorf("2.5/s = %+v", sc[0].Rate)
	}
	if sc[1].Rate.From != (schedule.Rate{Freq: 1, Per: 4 * time.Second}) {
		t.Errorf("0.25 = %+v", sc[1].Rate)
	}
	if r := sc[2].Rate; len(r.Steps) != 3 || r.Steps[2].PerSecond() != 32 || r.Text != "8,16,32 every 2s" || sc[2].Duration != 6*time.Second {
		t.Errorf("staircase = %+v, duration %v", r, sc[2].Duration)
	}
}

func TestParseErrors(t *testing.T) {
	base := "components:\n  origin:\n    kind: origin\n    recipe: origin.json\n"
	scen := "scenarios:\n  - name: a\n    target: GET ${origin.url}/\n    rate: 5/s\n    duration: 1s\n"
	for _, tc := range []struct {
		name string
		src  string
		line int
		want string
	}{
		{"unknown top field", base + "colour: red\n" + scen, 5, `plan.yaml:5: colour: unknown field (known: name, description, target, components,`},
		{"unknown nested field", base + "    recipes: x.json\n" + scen, 5, `components.origin.recipes: unknown field (known: kind, recipe, config,`},
		{"unknown scenario field", base + scen + "    rat: 5\n", 10, `scenarios[0].rat: unknown field (known: name, target,`},
		{"bad duration", base + "warmup: 5 seconds\n" + scen, 5, `warmup: "5 seconds" is not a duration`},
		{"bad scenario duration", base + strings.Replace(scen, "1s", "1 sec", 1), 9, `scenarios[0].duration: "1 sec" is not a duration`},
		{"alias", base + "vars: &v {a: 1}\nmatrix: *v\n" + scen, 6, "aliases"},
		{"value of the wrong type", base + strings.Replace(scen, "rate: 5/s", "rate: {per: s}", 1), 8, `scenarios[0].rate: expected a single value, found a mapping`},
		{"list where a mapping belongs", base + "stop: [1]\n" + scen, 5, `stop: expected a mapping`},
		{"missing recipe file", strings.Replace(base, "origin.json", "nope.json", 1) + scen, 4, `file "nope.json" not found`},
		{"missing targets file", base + "scenarios:\n  - {targets_file: t.txt, rate: 1, duration: 1s}\n", 6, `file "t.txt" not found`},
		{"bad kind", strings.Replace(base, "kind: origin", "kind: nginx", 1) + scen, 3, `unknown kind "nginx"`},
		{"bad rate", base + strings.Replace(scen, "5/s", "fast", 1), 8, `scenarios[0].rate: bad rate "fast"`},
		{"zero rate", base + strings.Replace(scen, "5/s", "0/m", 1), 8, `scenarios[0].rate: must be above zero`},
		{"zero ramp", base + strings.Replace(scen, "5/s", "0..0", 1), 8, `scenarios[0].rate: a ramp from 0 to 0`},
		{"step scenario rate", base + "steps:\n  - name: one\n    scenarios:\n      - {target: \"GET ${origin.url}/\", rate: 5/x, duration: 1s}\n", 8, `steps[0].scenarios[0].rate: bad rate "5/x"`},
		{"unknown reference", base + strings.Replace(scen, "${origin.url}", "${proxy.url}", 1), 7, `unknown reference ${proxy.url}`},
		{"unknown variant", base + "matrix:\n  origin: [slow]\n" + scen, 0, `component "origin" has no variant "slow"`},
		{"bad threshold", base + scen + "thresholds: [\"p99 < soon\"]\n", 10, `want a duration`},
		{"threshold scenario", base + scen + "thresholds: [\"b: p99 < 1s\"]\n", 10, `no scenario or flow step named "b"`},
		{"syntax error", base + "scenarios: [\n", 5, ``},
		{"no target", base + "scenarios:\n  - {rate: 1, duration: 1s}\n", 6, "exactly one of target"},
		{"no components", "scenarios:\n  - {target: GET http://127.0.0.1:1/, rate: 1, duration: 1s}\n", 1, "no components and has no target"},
		{"missing rate", base + "scenarios:\n  - {target: \"GET ${origin.url}/\", duration: 1s}\n", 6, "missing rate"},
		{"matrix and steps", base + "matrix: {r: [1]}\nsteps: [{name: x}]\n" + scen, 5, "either matrix"},
		{"wrong type", base + "scenarios: 3\n", 5, "expected a list"},
		{"duplicate scenario", base + scen + "  - {name: a, target: \"GET ${origin.url}/\", rate: 1, duration: 1s}\n", 10, `two scenarios named "a"`},
		{"error ratio", base + "stop: {error_ratio: 150%}\n" + scen, 5, "between 0% and 100%"},
		{"selector", base + "samplers:\n  metrics:\n    - {from: origin, series: ['x{a=b}']}\n" + scen, 7, "bad series"},
		{"calibrate not a bool", base + scen + "    calibrate: please\n", 10, `scenarios[0].calibrate: want true or false, got "please"`},
		{"empty", "", 1, "empty plan"},
		{"retries", base + "retries: 9\n" + scen, 5, "from 0 to 5"},
		{"bad template", base + strings.Replace(scen, "${origin.url}/", "${origin.url}/?q={{rand.letterz 5}}", 1), 7, "target: "},
		{"bad method", base + strings.Replace(scen, "GET ${origin.url}", "FETCH ${origin.url}", 1), 7, "FETCH"},
		{"bad header", base + scen + "    headers: {x-a: \"{{nope}}\"}\n", 10, `scenarios[0].headers.x-a: header x-a: template column 1: unknown function "nope"`},
		{"steps without duration", base + "scenarios:\n  - {target: \"GET ${origin.url}/\", steps: [8, 16]}\n", 6, "missing step_duration"},
		{"steps and rate", base + "scenarios:\n  - {target: \"GET ${origin.url}/\", rate: 1, steps: [8, 16], step_duration: 1s}\n", 6, "rate or steps, not both"},
		{"bad step rate", base + "scenarios:\n  - {target: \"GET ${origin.url}/\", steps: [\"8,x\"], step_duration: 1s}\n", 6, "scenarios[0].steps[0]: step 2: bad rate \"x\""},
		{"bad variant name", "components:\n  b:\n    kind: command\n    command: [x]\n    variants: {\"-x\": {args: [y]}}\n" + strings.ReplaceAll(scen, "origin.url", "b.url"), 5, "bad variant name"},
		{"set on origin", strings.Replace(base, "recipe: origin.json", "recipe: origin.json\n    variants: {a: {set: {x: 1}}}", 1) + scen, 5, "config and set are for proxy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("plan.yaml", "testdata", []byte(tc.src))
			var bi *badinput.Error
			if !errors.As(err, &bi) {
				t.Fatalf("got %v, want a *badinput.Error", err)
			}
			if bi.File != "plan.yaml" {
				t.Errorf("file %q", bi.File)
			}
			if tc.line != 0 && bi.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", bi.Line, tc.line, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("testdata/does-not-exist.yaml")
	if !badinput.Is(err) || !strings.Contains(err.Error(), "does-not-exist.yaml") {
		t.Fatalf("got %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("target: http://127.0.0.1:1\nscenarios:\n  - {target: GET ${target}/, rate: 1, duration: 1s}\n"))
	f.Add([]byte("matrix: {a: [1, 2]}\n"))
	f.Add([]byte("components: {x: {kind: command, command: [a]}}\nsteps: [{variants: {x: y}}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("f.yaml", "testdata", data)
		if err != nil {
			if !badinput.Is(err) {
				t.Fatalf("not a bad-input error: %v", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		if len(p.Steps) == 0 || len(p.Steps) > maxSteps {
			t.Fatalf("%d steps", len(p.Steps))
		}
	})
}
