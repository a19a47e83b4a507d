package slug

import "testing"

func TestMake(t *testing.T) {
	long := ""
	for range 20 {
		long += "abcd "
	}
	for _, c := range []struct{ in, fallback, want string }{
		{"pool=fixed rate=1000", "x", "pool-fixed-rate-1000"},
		{"Incident replay (full scale)", "plan", "incident-replay-full-scale"},
		{"incident_replay", "plan", "incident-replay"},
		{"  --a--b--  ", "plan", "a-b"},
		{"Ünïcode", "plan", "n-code"},
		{"!!!", "runs", "runs"},
		{"", "", ""},
		{long, "", "abcd-abcd-abcd-abcd-abcd-abcd-abcd-abcd-abcd-abcd-abcd-abcd"},
	} {
		if got := Make(c.in, c.fallback); got != c.want {
			t.Errorf("Make(%q, %q) = %q, want %q", c.in, c.fallback, got, c.want)
		}
		if len(Make(c.in, c.fallback)) > MaxLen {
			t.Errorf("Make(%q) longer than %d", c.in, MaxLen)
		}
	}
}
