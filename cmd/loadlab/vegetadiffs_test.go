package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// knownDiff is a deliberate difference from vegeta. Its Doc text must be
// in a row of docs/attack.md's table of differences, and every one must
// still be observed by the harness (a difference that went away is a row
// to remove).
type knownDiff struct {
	Area  string // "wire", "answers", "report", "flags"
	Case  string // the harness case it shows up in ("" any)
	Field string // the field that differs
	Doc   string // the first cell of its row in docs/attack.md
}

var knownDiffs = []knownDiff{
	{"answers", "connection refused", "error", "Dial errors"},
	{"answers", "-max-body 3", "bytes_in", "Bytes in with -max-body"},
	{"answers", "-max-body default", "body", "-max-body default"},
	{"report", "", "percentiles", "Latency percentiles"},
	{"report", "", "sections after vegeta's", "Text report additions"},
	{"report", "", "keys after vegeta's", "JSON report additions"},
}

// checkKnownDiffs fails on a difference that is not a known one, and,
// when complete (every case of the area ran), on a known one that no
// longer shows.
func checkKnownDiffs(t *testing.T, area string, diffs []wireDiff, complete bool) {
	t.Helper()
	used := map[int]bool{}
	for _, d := range diffs {
		found := false
		for i, k := range knownDiffs {
			if k.Area == area && k.Field == d.Field && (k.Case == "" || k.Case == d.Case) {
				used[i], found = true, true
			}
		}
		if !found {
			t.Errorf("undocumented difference from vegeta: %s", d)
		}
	}
	if !complete {
		return
	}
	for i, k := range knownDiffs {
		if k.Area == area && !used[i] {
			t.Errorf("known difference %q (%s %s) no longer shows: remove it here and in docs/attack.md", k.Doc, k.Case, k.Field)
		}
	}
}

// TestVegetaDifferencesDocumented: the table of docs/attack.md's
// "Differences from vegeta" has exactly one row per known difference.
func TestVegetaDifferencesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/attack.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Differences from vegeta\n")
	if !ok {
		t.Fatal(`docs/attack.md has no "## Differences from vegeta" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]bool{}
	for _, l := range strings.Split(section, "\n") {
		if !strings.HasPrefix(l, "| ") || strings.HasPrefix(l, "| Difference ") {
			continue
		}
		rows[strings.TrimSpace(strings.SplitN(l[1:], "|", 2)[0])] = true
	}
	docs := map[string]bool{}
	for _, k := range knownDiffs {
		docs[k.Doc] = true
		if !rows[k.Doc] {
			t.Errorf("known difference %q (%s) has no row in docs/attack.md", k.Doc, k.Field)
		}
	}
	for r := range rows {
		if !docs[r] {
			t.Errorf("docs/attack.md lists %q as a difference from vegeta, but the harness does not know it", r)
		}
	}
}

var flagName = regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`)

// checkFlagsCovered: every flag of `vegeta attack -h` was given to both
// tools by some case, or is a known difference of area "flags".
func checkFlagsCovered(t *testing.T, vegeta tool, covered map[string]bool) {
	t.Helper()
	_, help, _ := vegeta.try(t.TempDir(), nil, nil, "attack", "-h")
	names := flagName.FindAllStringSubmatch(string(help), -1)
	if len(names) < 30 {
		t.Fatalf("vegeta attack -h listed %d flags:\n%s", len(names), help)
	}
	for _, m := range names {
		f := m[1]
		if covered[f] {
			continue
		}
		documented := false
		for _, k := range knownDiffs {
			if k.Area == "flags" && k.Field == "-"+f {
				documented = true
			}
		}
		if !documented {
			t.Errorf("vegeta attack -%s is neither run by the harness nor a known difference", f)
		}
	}
}
