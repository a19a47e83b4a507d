package termsafe

import (
	"bytes"
	"fmt"
	"testing"
	"text/tabwriter"
)

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                  "plain",
		"a\tb\nc":                "a\tb\nc",
		"\x1b[2J":                `\x1b[2J`,
		"n\x1b]0;pwned\x07":      `n\x1b]0;pwned\x07`,
		"cr\rdel\x7f":            `cr\x0ddel\x7f`,
		"\u009b31m":              `\u009b31m`,
		"ünï©ode ok":             "ünï©ode ok",
		"bad utf8 \xff\xfe kept": "bad utf8 \xff\xfe kept",
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

// Through a tabwriter, as list prints its table: columns kept, controls
// escaped.
func TestWriter(t *testing.T) {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(Writer(&b), 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "ID\tLABELS\n")
	fmt.Fprintf(tw, "a1\tevil=\x1b[2J\n")
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "ID  LABELS\na1  evil=\\x1b[2J\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
