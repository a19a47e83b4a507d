package targets

import (
	"fmt"
	"strconv"
	"strings"
)

// Template is a compiled target template: literal text with {{...}} actions.
// It is compiled once and rendered per request by appending into a reused
// buffer; rendering a template without actions just copies its text.
//
// Actions:
//
//	{{seq}}                 the request's sequence number in the attack (0, 1, 2, ...)
//	{{rand.int A B}}        a uniform integer in [A, B]
//	{{rand.letters N}}      N random lowercase letters a-z
//	{{rand.digits N}}       N random decimal digits
//	{{rand.hex N}}          N random lowercase hex digits
//	{{rand.alnum N}}        N random letters and digits (a-z, A-Z, 0-9)
//	{{rand.choice a b c}}   one of the words (use "double quotes" for words with spaces)
//	{{uuid}}                a random version-4 UUID
//	{{"text"}}              the quoted text itself, e.g. {{"{{"}} for a literal "{{"
//	{{name}}                a session variable of a flow (CompileNames only): see vars.go
type Template struct {
	src    string
	segs   []segment
	static bool // no actions: text only
}

type opKind uint8

const (
	opLit opKind = iota
	opSeq
	opInt
	opChars
	opChoice
	opUUID
	opVar
)

type segment struct {
	op      opKind
	lit     string   // opLit text
	n       int      // opChars length
	lo, hi  int64    // opInt bounds
	charset string   // opChars alphabet
	choices []string // opChoice words
	slot    int      // opVar: the variable's slot in the session's values
}

// maxChars bounds N in rand.letters N and friends, so a typo cannot make
// every request megabytes long.
const maxChars = 1 << 16

const (
	lowerLetters = "abcdefghijklmnopqrstuvwxyz"
	digits       = "0123456789"
	hexDigits    = "0123456789abcdef"
	alnum        = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
)

// TemplateError is a template syntax error at a 1-based column of its source.
type TemplateError struct {
	Col int
	Msg string
}

// Error formats the problem with its column.
func (e *TemplateError) Error() string {
	return fmt.Sprintf("template column %d: %s", e.Col, e.Msg)
}

// Compile parses src into a Template.
func Compile(src string) (*Template, error) { return compile(src, nil) }

// compile parses src; names, when not nil, resolves bare words that are no
// function to session variables.
func compile(src string, names Names) (*Template, error) {
	t := &Template{src: src}
	rest := src
	pos := 0
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			t.addLit(rest)
			break
		}
		t.addLit(rest[:i])
		end := strings.Index(rest[i+2:], "}}")
		if end < 0 {
			return nil, &TemplateError{Col: pos + i + 1, Msg: `unclosed "{{" (want "}}")`}
		}
		body := rest[i+2 : i+2+end]
		seg, err := parseAction(body, names)
		if err != nil {
			return nil, &TemplateError{Col: pos + i + 1, Msg: err.Error()}
		}
		if seg.op == opLit {
			t.addLit(seg.lit)
		} else {
			t.segs = append(t.segs, seg)
		}
		adv := i + 2 + end + 2
		pos += adv
		rest = rest[adv:]
	}
	t.static = true
	for _, s := range t.segs {
		if s.op != opLit {
			t.static = false
		}
	}
	return t, nil
}

// MustCompile is Compile that panics on error, for fixed templates in code.
func MustCompile(src string) *Template {
	t, err := Compile(src)
	if err != nil {
		panic(err)
	}
	return t
}

func (t *Template) addLit(s string) {
	if s == "" {
		return
	}
	if n := len(t.segs); n > 0 && t.segs[n-1].op == opLit {
		t.segs[n-1].lit += s
		return
	}
	t.segs = append(t.segs, segment{op: opLit, lit: s})
}

// Source is the template text as written.
func (t *Template) Source() string { return t.src }

// Static reports whether the template has no actions; its text is then
// Text().
func (t *Template) Static() bool { return t.static }

// Text is the rendered text of a static template ("" when not static).
func (t *Template) Text() string {
	if !t.static || len(t.segs) == 0 {
		return ""
	}
	return t.segs[0].lit
}

// Append renders the template for request seq using rng and appends the
// result to dst.
func (t *Template) Append(dst []byte, rng *Rand, seq uint64) []byte {
	return t.appendVars(dst, rng, seq, nil)
}

// appendVars is Append with the session's variable values (indexed by
// slot; a missing one renders empty).
func (t *Template) appendVars(dst []byte, rng *Rand, seq uint64, vars []string) []byte {
	for i := range t.segs {
		s := &t.segs[i]
		switch s.op {
		case opLit:
			dst = append(dst, s.lit...)
		case opSeq:
			dst = strconv.AppendUint(dst, seq, 10)
		case opInt:
			span := uint64(s.hi - s.lo)
			var v int64
			if span == ^uint64(0) {
				v = int64(rng.Uint64())
			} else {
				v = s.lo + int64(rng.Below(span+1))
			}
			dst = strconv.AppendInt(dst, v, 10)
		case opChars:
			dst = rng.appendChars(dst, s.charset, s.n)
		case opChoice:
			dst = append(dst, s.choices[rng.Below(uint64(len(s.choices)))]...)
		case opUUID:
			dst = rng.appendUUID(dst)
		case opVar:
			if s.slot < len(vars) {
				dst = append(dst, vars[s.slot]...)
			}
		}
	}
	return dst
}

// parseAction compiles the text between {{ and }}.
func parseAction(body string, names Names) (segment, error) {
	words, err := splitWords(body)
	if err != nil {
		return segment{}, err
	}
	if len(words) == 0 {
		return segment{}, fmt.Errorf("empty action {{}}")
	}
	if words[0].quoted {
		if len(words) != 1 {
			return segment{}, fmt.Errorf("a quoted text action takes nothing after the text")
		}
		return segment{op: opLit, lit: words[0].s}, nil
	}
	name, args := words[0].s, words[1:]
	nargs := func(n int) error {
		if len(args) != n {
			return fmt.Errorf("%s takes %d argument(s), got %d", name, n, len(args))
		}
		return nil
	}
	count := func() (int, error) {
		if err := nargs(1); err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(args[0].s)
		if err != nil || n < 0 || n > maxChars {
			return 0, fmt.Errorf("%s: length %q is not a whole number between 0 and %d", name, args[0].s, maxChars)
		}
		return n, nil
	}
	switch name {
	case "seq":
		return segment{op: opSeq}, nargs(0)
	case "uuid":
		return segment{op: opUUID}, nargs(0)
	case "rand.letters", "rand.digits", "rand.hex", "rand.alnum":
		n, err := count()
		cs := map[string]string{"rand.letters": lowerLetters, "rand.digits": digits, "rand.hex": hexDigits, "rand.alnum": alnum}[name]
		return segment{op: opChars, n: n, charset: cs}, err
	case "rand.int":
		if err := nargs(2); err != nil {
			return segment{}, err
		}
		lo, err1 := strconv.ParseInt(args[0].s, 10, 64)
		hi, err2 := strconv.ParseInt(args[1].s, 10, 64)
		if err1 != nil || err2 != nil {
			return segment{}, fmt.Errorf("rand.int: bounds %q %q must be integers", args[0].s, args[1].s)
		}
		if lo > hi {
			return segment{}, fmt.Errorf("rand.int: lower bound %d is above upper bound %d", lo, hi)
		}
		return segment{op: opInt, lo: lo, hi: hi}, nil
	case "rand.choice":
		if len(args) == 0 {
			return segment{}, fmt.Errorf("rand.choice needs at least one word")
		}
		cs := make([]string, len(args))
		for i, a := range args {
			cs[i] = a.s
		}
		return segment{op: opChoice, choices: cs}, nil
	}
	if names != nil {
		if len(args) != 0 {
			return segment{}, fmt.Errorf("a variable takes no arguments: {{%s}}", name)
		}
		slot, err := names(name)
		if err != nil {
			return segment{}, err
		}
		return segment{op: opVar, slot: slot}, nil
	}
	return segment{}, fmt.Errorf("unknown function %q (known: seq, uuid, rand.int, rand.letters, rand.digits, rand.hex, rand.alnum, rand.choice)", name)
}

type word struct {
	s      string
	quoted bool
}

// splitWords splits an action into whitespace-separated words; "double
// quoted" words use Go string syntax.
func splitWords(s string) ([]word, error) {
	var out []word
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return out, nil
		}
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("bad quoted text %s", s)
			}
			u, _ := strconv.Unquote(q)
			out = append(out, word{s: u, quoted: true})
			s = s[len(q):]
			if s != "" && s[0] != ' ' && s[0] != '\t' {
				return nil, fmt.Errorf("missing space after quoted text %s", q)
			}
			continue
		}
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			i = len(s)
		}
		out = append(out, word{s: s[:i]})
		s = s[i:]
	}
}

// firstBadPiece returns the first piece of text the template can write as
// given — a literal, a quoted text, a rand.choice word — for which ok is
// false. The functions (seq, uuid, rand.int, rand.letters...) write only
// letters, digits and '-', so a template whose pieces all pass writes only
// text that passes a byte-wise check: what it renders is safe by
// construction and needs no check per request.
func (t *Template) firstBadPiece(ok func(string) bool) (string, bool) {
	for _, s := range t.segs {
		switch s.op {
		case opLit:
			if !ok(s.lit) {
				return s.lit, true
			}
		case opChoice:
			for _, c := range s.choices {
				if !ok(c) {
					return c, true
				}
			}
		}
	}
	return "", false
}
