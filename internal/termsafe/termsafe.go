// Package termsafe keeps text read from files and databases (run names,
// labels, commands, stored reports) from acting on the terminal it is
// printed to: control characters, which a terminal takes for commands
// (ESC [2J clears the screen, OSC sequences set the title or write the
// clipboard), are printed as Go escapes (\x1b) instead. Newlines and tabs,
// which tables and reports lay themselves out with, pass.
package termsafe

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// String is s with its control characters but newline and tab escaped.
func String(s string) string {
	if !needs(s) {
		return s
	}
	out := make([]byte, 0, len(s)+16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			out = append(out, s[i])
		case r == '\n' || r == '\t':
			out = append(out, byte(r))
		case r < 0x20 || r == 0x7f:
			out = fmt.Appendf(out, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0: // C1 controls (a one-rune CSI, OSC...)
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, s[i:i+n]...)
		}
		i += n
	}
	return string(out)
}

// needs says whether s holds a character String escapes.
func needs(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return true
		}
	}
	return false
}

// Writer escapes what is written to w as String does. A rune split
// between two writes is escaped only if it is a control character alone
// (C1 controls are two bytes: write whole strings, as fmt and tabwriter
// do).
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (t writer) Write(p []byte) (int, error) {
	s := string(p)
	if !needs(s) {
		return t.w.Write(p)
	}
	if _, err := io.WriteString(t.w, String(s)); err != nil {
		return 0, err
	}
	return len(p), nil
}
