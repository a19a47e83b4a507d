package findings_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/experiment/findings"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/load"
)

// computed is the findings of a recorded run (its summary records the
// plan's shape) as one text.
func computed(sum *summary.Summary) string {
	return strings.Join(summary.Texts(findings.Compute(sum, findings.Options{})), "\n")
}

// ../testdata/users-summary.json is a real `loadlab run` of 4, 16 and 32
// users in a closed loop through the playground proxy's 8 workers in
// front of a 50 ms origin: throughput doubles from 4 to 16 users and
// then stays at the pool's 160 req/s. The finding says so in users, not
// as rates: where throughput stopped rising, and that the figures agree
// with Little's law.
func TestFindingsOfUsersSweep(t *testing.T) {
	sum := readSummary(t, "users")
	got := computed(sum)
	if strings.Contains(got, "beyond the loads tried") || strings.Contains(got, "req/s, the") {
		t.Errorf("the findings speak of rates:\n%s", got)
	}
	m := regexp.MustCompile(`page's throughput stopped rising beyond ([0-9]+) users \(([0-9.,]+) req/s\): with ([0-9]+) users it was [^\n]*?\(Little's law: [0-9]+ users ≈ [^=]*= ([0-9.]+)\)\. The knee lies at about ([0-9]+) users`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("no knee in users:\n%s", got)
	}
	byUsers := map[int]*summary.ScenarioResult{}
	peak := 0.0
	for _, st := range sum.Steps {
		sc := st.Scenarios[0]
		byUsers[sc.Users] = sc
		peak = max(peak, sc.Throughput)
	}
	flat, _ := strconv.Atoi(m[1])
	more, _ := strconv.Atoi(m[3])
	if byUsers[flat] == nil || byUsers[more] == nil || more <= flat {
		t.Fatalf("the finding names %d and %d users, the run had %v", flat, more, byUsers)
	}
	// Where it stopped rising, throughput was already at its peak, and
	// below it, it was not.
	if byUsers[flat].Throughput < 0.9*peak || byUsers[4].Throughput > 0.75*peak || load.FmtRate(byUsers[flat].Throughput) != m[2] {
		t.Errorf("throughput by users %v: peak %.1f, the finding says it stopped rising at %d users (%s req/s)", throughputs(byUsers), peak, flat, m[2])
	}
	if n, _ := strconv.ParseFloat(m[4], 64); n < 0.8*float64(more) || n > 1.2*float64(more) {
		t.Errorf("Little's law gives %.1f users for %d", n, more)
	}
	if k, _ := strconv.Atoi(m[5]); k <= 4 || k >= flat {
		t.Errorf("knee at %d users, want between the 4 that did not saturate the pool and the %d that did", k, flat)
	}
}

func throughputs(by map[int]*summary.ScenarioResult) string {
	var parts []string
	for u, sc := range by {
		parts = append(parts, fmt.Sprintf("%d: %.1f/s", u, sc.Throughput))
	}
	return strings.Join(parts, ", ")
}

// ../testdata/users-refused-summary.json is a real run of 4, 16 and 64
// users against 8 workers whose checkout gives up after 100 ms: 64 users
// wait longer than that and most are refused. The knee is said in users,
// with the figures of the steps on either side.
func TestFindingsOfRefusedUsers(t *testing.T) {
	sum := readSummary(t, "users-refused")
	got := computed(sum)
	good, bad := sum.Steps[1].Scenarios[0], sum.Steps[2].Scenarios[0]
	if good.Users != 16 || bad.Users != 64 || good.Success < summary.Healthy || bad.Success >= summary.Healthy {
		t.Fatalf("the fixture changed: 16 users %.2f%%, 64 users %.2f%%", 100*good.Success, 100*bad.Success)
	}
	want := fmt.Sprintf("page held up to 16 users (100.00%% success, p99 %s, %s req/s answered); with 64 users (step \"64 users\") success fell to %.2f%% and p99 rose to %s, at %s req/s answered: this is the knee.",
		summary.FmtSeconds(good.Latency.P99.Seconds()), load.FmtRate(good.Throughput), 100*bad.Success, summary.FmtSeconds(bad.Latency.P99.Seconds()), load.FmtRate(bad.Throughput))
	if !strings.Contains(got, want) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// ../testdata/users-pools-summary.json is a real run comparing 8 and 16
// workers at 4 and 32 users: the configurations compare at the same
// number of users ("with 32 users"), which is not a configuration, and
// each configuration's knee is said in users: about as many as its
// workers (the 50 ms origin is all each user waits for below it).
func TestFindingsCompareAtUsers(t *testing.T) {
	sum := readSummary(t, "users-pools")
	for _, st := range sum.Steps {
		if st.Configuration != "8 workers" && st.Configuration != "16 workers" {
			t.Fatalf("step %q: configuration %q, want its variant's label alone", st.Name, st.Configuration)
		}
	}
	got := computed(sum)
	if !strings.Contains(got, "with 32 users, latency was not: p99 of page by configuration") || strings.Contains(got, "32 req/s") {
		t.Errorf("got %s", got)
	}
	for _, workers := range []int{8, 16} {
		m := regexp.MustCompile(fmt.Sprintf(`With %d workers, page's throughput [^\n]*The knee lies at about ([0-9]+) users`, workers)).FindStringSubmatch(got)
		if m == nil {
			t.Errorf("no knee in users for %d workers:\n%s", workers, got)
			continue
		}
		if k, _ := strconv.Atoi(m[1]); float64(k) < 0.7*float64(workers) || float64(k) > 1.3*float64(workers) {
			t.Errorf("%d workers: knee at %d users", workers, k)
		}
	}
}
