package plan

import (
	"strings"
	"testing"
)

func TestScenarioDuet(t *testing.T) {
	const base = "name: d\ntarget: http://127.0.0.1:9\nvars: {b: \"http://127.0.0.1:10/\"}\nscenarios:\n  - {target: \"GET ${target}/\", rate: 5, duration: 1s, %s}\n"
	p, err := Parse("p.yaml", "testdata", []byte(strings.Replace(base, "%s", `duet: "${b}"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Steps[0].Scenarios[0].Duet; got != "http://127.0.0.1:10" {
		t.Errorf("duet %q, want the base URL without its slash", got)
	}
	for _, tc := range []struct{ key, want string }{
		{`duet: "127.0.0.1:10"`, "p.yaml:5: scenarios[0].duet: want a base URL"},
		{`duet: "http://127.0.0.1:10/v2"`, "scenarios[0].duet: want only scheme://host:port"},
		{`duet: "${b}", calibrate: true`, "scenarios[0].duet: a duet is not calibrated"},
	} {
		_, err := Parse("p.yaml", "testdata", []byte(strings.Replace(base, "%s", tc.key, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.key, err, tc.want)
		}
	}
}
