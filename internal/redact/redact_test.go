package redact

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestArgs(t *testing.T) {
	in := []string{"-rate", "5", "-header", "Authorization: Bearer sk-live-abc", "-header=Cookie: sid=c00kie",
		"-header", "X-Trace: keep-me", "-secret-header", "X-Mine: hush-1", "-secret-header=X-Other: hush-2",
		"-ui-token", "tok-3", "--token=tok-4", "-proxy-header", "Proxy-Authorization: Basic cHc=",
		"-prometheus-remote-write", "https://user:pw-5@metrics.example/api/v1/write",
		"-set", "db_password=pw-6", "-set", "rate=7", "-otlp-endpoint", "https://tok-8@otlp.example", "plan.yaml"}
	want := []string{"-rate", "5", "-header", "Authorization: REDACTED", "-header=Cookie: REDACTED",
		"-header", "X-Trace: keep-me", "-secret-header", "X-Mine: REDACTED", "-secret-header=X-Other: REDACTED",
		"-ui-token", "REDACTED", "--token=REDACTED", "-proxy-header", "Proxy-Authorization: REDACTED",
		"-prometheus-remote-write", "https://user:REDACTED@metrics.example/api/v1/write",
		"-set", "db_password=REDACTED", "-set", "rate=7", "-otlp-endpoint", "https://REDACTED@otlp.example", "plan.yaml"}
	got := Args(in)
	if !slices.Equal(got, want) {
		t.Errorf("Args:\n got %q\nwant %q", got, want)
	}
	if in[3] != "Authorization: Bearer sk-live-abc" {
		t.Errorf("Args changed its input: %q", in[3])
	}
}

func TestText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"loadlab attack -archive postgres://lab:pw1@db/runs -header Authorization: Bearer sk-live-2 -output r.lll",
			"loadlab attack -archive postgres://lab:REDACTED@db/runs -header Authorization: REDACTED -output r.lll"},
		{"postgres://lab@db/runs?sslmode=disable&password=pw3&sslpassword=pw4",
			"postgres://lab@db/runs?sslmode=disable&password=REDACTED&sslpassword=REDACTED"},
		{`host=db user=lab password='p w\' 5' dbname=runs`, "host=db user=lab password=REDACTED dbname=runs"},
		{"postgres://lab:p@ss/6@db:5432/runs", "postgres://lab:REDACTED@db:5432/runs"},
		{"-ui-token tok7 -secret-header X-Mine: a b c -rate 5", "-ui-token REDACTED -secret-header X-Mine: REDACTED -rate 5"},
		{"loadlab run -set rate=5 plan.yaml", "loadlab run -set rate=5 plan.yaml"},
		{"runs.db", "runs.db"},
	} {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again := Text(Text(c.in)); again != c.want {
			t.Errorf("Text is not idempotent on %q: %q", c.in, again)
		}
	}
}

func TestScrubDriverQuotes(t *testing.T) {
	dsn := "postgres://lab:s%40cret-9@db/runs"
	msg := `cannot parse "postgres://lab:s%40cret-9@db/runs": password s@cret-9 refused`
	got := Scrub(msg, dsn)
	for _, leak := range []string{"s%40cret-9", "s@cret-9", "cret-9"} {
		if strings.Contains(got, leak) {
			t.Errorf("Scrub left %q in %q", leak, got)
		}
	}
}

// dsnForms are the ways a password is given in a database address.
func dsnForms(pw string) []string {
	q := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw)
	return []string{
		"postgres://" + url.UserPassword("lab", pw).String() + "@127.0.0.1:1/runs",
		"postgresql://lab@127.0.0.1:1/runs?sslmode=disable&password=" + url.QueryEscape(pw),
		"postgres://lab@127.0.0.1:1/runs?sslpassword=" + url.QueryEscape(pw),
		"host=127.0.0.1 port=1 dbname=runs password='" + q + "'",
		"host=127.0.0.1 port=1 password='" + q + "' sslmode=disable",
		"mysql://" + url.UserPassword("lab", pw).String() + "@127.0.0.1/runs",
		"postgres://lab:" + pw + "@127.0.0.1:1/runs", // not escaped, as typed
	}
}

// FuzzDSN: whatever the password, no form of a DSN shows it once
// redacted, and Scrub removes it from a message quoting it as the driver
// may (as written, decoded).
func FuzzDSN(f *testing.F) {
	for _, s := range []string{"hunter2", "p@ss/w:rd", "a'b\\c", "s p a c e", "%41%42", "pw&x=1", "ünï©ode", "@@@", "x?y#z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pw := "Pw9" + strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return -1
			}
			return r
		}, s)
		for _, dsn := range dsnForms(pw) {
			red := DSN(dsn)
			if strings.Contains(red, pw) {
				t.Errorf("DSN(%q) = %q shows the password", dsn, red)
			}
			msg := "failed: " + dsn + " (password " + pw + ")"
			if got := Scrub(msg, dsn); strings.Contains(got, pw) {
				t.Errorf("Scrub of %q = %q shows the password %q", msg, got, pw)
			}
		}
	})
}
