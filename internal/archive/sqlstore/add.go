package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/runblock"
)

// Add stores b in one transaction: the run, its labels, steps, scenarios
// and files land together or not at all. The same content already stored
// returns that run's ID with dup set, and writes nothing. The run comes
// with its identity (archive.Bundle.Identify): Add persists it.
func (s *Store) Add(ctx context.Context, b *archive.Bundle) (string, bool, error) {
	r := b.Run
	if err := checkBundle(b); err != nil {
		return "", false, err
	}
	if id, ok, err := s.byContent(ctx, s.db, r.Content); err != nil || ok {
		return id, ok, err
	}
	if r.Added.IsZero() {
		r.Added = time.Now()
	}
	if r.Labels == nil {
		r.Labels = map[string]string{}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return "", false, s.dbError(err)
	}
	defer tx.Rollback()
	// Under SQLite the transaction holds the write lock from its start:
	// a concurrent add of the same content has committed or not begun.
	if id, ok, err := s.byContent(ctx, tx, r.Content); err != nil || ok {
		return id, ok, err
	}
	seq, err := s.insertRun(ctx, tx, &r)
	if err != nil {
		if id, ok, err2 := s.byContent(ctx, s.db, r.Content); err2 == nil && ok {
			return id, true, nil // a concurrent add of the same content won (Postgres)
		}
		return "", false, err
	}
	if err := s.insertLabels(ctx, tx, seq, r.Labels); err != nil {
		return "", false, err
	}
	if err := s.insertSteps(ctx, tx, seq, b); err != nil {
		return "", false, err
	}
	if err := s.insertScenarios(ctx, tx, seq, b); err != nil {
		return "", false, err
	}
	if err := s.insertFiles(ctx, tx, seq, b.Files); err != nil {
		return "", false, err
	}
	if err := tx.Commit(); err != nil {
		if id, ok, err2 := s.byContent(ctx, s.db, r.Content); err2 == nil && ok {
			return id, true, nil
		}
		return "", false, s.dbError(err)
	}
	return r.ID, false, nil
}

// checkBundle refuses what the schema cannot hold, before writing.
func checkBundle(b *archive.Bundle) error {
	if r := b.Run; r.Content == "" || r.ID == "" || r.Slug == "" {
		return errors.New("archive: a run is stored with its identity (content hash, ID, slug: archive.Bundle.Identify)")
	}
	for k := range b.Run.Labels {
		if _, _, err := archive.ParseLabel(k + "=x"); err != nil {
			return badinput.Errorf("%v", err)
		}
	}
	seen := map[archive.StepKey]bool{}
	for _, st := range b.Run.Steps {
		k := archive.StepKey{Step: st.Index, Scenario: st.Scenario}
		if seen[k] {
			return fmt.Errorf("archive: step %d scenario %q twice in one run", st.Index, st.Scenario)
		}
		seen[k] = true
	}
	names := map[string]bool{}
	for _, f := range b.Files {
		if names[f.Name] {
			return fmt.Errorf("archive: file %q twice in one run", f.Name)
		}
		names[f.Name] = true
	}
	return nil
}

type queryer interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

// byContent finds the run holding content.
func (s *Store) byContent(ctx context.Context, q queryer, content string) (string, bool, error) {
	var id string
	err := q.QueryRowContext(ctx, s.d.rebind("SELECT id FROM runs WHERE content = ?"), content).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, s.dbError(err)
	}
	return id, true, nil
}

// figureArgs are f's values in figureCols' order.
func figureArgs(f *archive.Figures) []any {
	codes := "{}"
	if len(f.Codes) > 0 {
		js, _ := json.Marshal(f.Codes)
		codes = string(js)
	}
	l := f.Latencies
	return []any{int64(f.Requests), f.Rate, f.Throughput, f.Success,
		int64(l.P50), int64(l.P90), int64(l.P95), int64(l.P99), int64(l.Max), int64(l.Mean),
		int64(f.LagP99), int64(f.Dropped), codes}
}

// figureNames are figureCols' names, comma-separated.
const figureNames = "requests, rate, throughput, success, p50, p90, p95, p99, pmax, pmean, lag_p99, dropped, codes"

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// unixNano stores a time as nanoseconds since 1970 (0 for the zero time).
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func (s *Store) insertRun(ctx context.Context, tx *sql.Tx, r *archive.Run) (int64, error) {
	labels, _ := json.Marshal(r.Labels)
	users := ""
	if len(r.Users) > 0 {
		js, _ := json.Marshal(r.Users)
		users = string(js)
	}
	args := []any{r.ID, r.Slug, r.Name, strings.ToLower(r.Name), r.Source, r.Command, r.Plan, r.Machine,
		unixNano(r.Started), unixNano(r.Ended), unixNano(r.Added), r.Content, string(labels), users, healthText(r.Health)}
	lo, hi := usersRange(r.Users)
	args = append(args, lo, hi)
	args = append(args, figureArgs(&r.Figures)...)
	q := "INSERT INTO runs (id, slug, name, name_lower, source, command, plan, machine, started, ended, added, content, labels, users, health, users_min, users_max, " +
		figureNames + ") VALUES (" + placeholders(len(args)) + ") RETURNING seq"
	var seq int64
	if err := tx.QueryRowContext(ctx, s.d.rebind(q), args...).Scan(&seq); err != nil {
		return 0, s.dbError(err)
	}
	return seq, nil
}

func (s *Store) insertLabels(ctx context.Context, tx *sql.Tx, seq int64, labels map[string]string) error {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	q := s.d.rebind("INSERT INTO labels (run_seq, key, value) VALUES (?, ?, ?)")
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, q, seq, k, labels[k]); err != nil {
			return s.dbError(err)
		}
	}
	return nil
}

func (s *Store) insertSteps(ctx context.Context, tx *sql.Tx, seq int64, b *archive.Bundle) error {
	q := s.d.rebind("INSERT INTO steps (run_seq, ord, idx, scenario, name, started, ended, " + figureNames + ", text, hist, health, blocks) VALUES (" +
		placeholders(7+13+4) + ")")
	for i := range b.Run.Steps {
		st := &b.Run.Steps[i]
		args := []any{seq, i, st.Index, st.Scenario, st.Name, unixNano(st.Started), unixNano(st.Ended)}
		args = append(args, figureArgs(&st.Figures)...)
		hist := b.Histograms[archive.StepKey{Step: st.Index, Scenario: st.Scenario}]
		if hist == nil {
			hist = []byte{}
		}
		var blocks []byte // NULL: none were cut
		if bs, ok := b.Blocks[archive.StepKey{Step: st.Index, Scenario: st.Scenario}]; ok {
			blocks = runblock.EncodeBlocks(bs)
		}
		args = append(args, st.Text, hist, healthText(st.Health), blocks)
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return s.dbError(err)
		}
	}
	return nil
}

// insertScenarios stores the run's figures per scenario (Points with a
// scenario reads them): the bundle's, or a scenario's only step's.
func (s *Store) insertScenarios(ctx context.Context, tx *sql.Tx, seq int64, b *archive.Bundle) error {
	sc := b.Scenarios
	if sc == nil {
		sc = map[string]archive.Figures{}
		count := map[string]int{}
		for _, st := range b.Run.Steps {
			count[st.Scenario]++
			sc[st.Scenario] = st.Figures
		}
		for name, n := range count {
			if n > 1 {
				delete(sc, name)
			}
		}
	}
	names := make([]string, 0, len(sc))
	for n := range sc {
		names = append(names, n)
	}
	sort.Strings(names)
	health := scenarioHealth(b)
	q := s.d.rebind("INSERT INTO scenarios (run_seq, scenario, health, " + figureNames + ") VALUES (" + placeholders(3+13) + ")")
	for _, n := range names {
		f := sc[n]
		h, ok := health[n]
		if !ok {
			h = runblock.UnknownHealth()
		}
		if _, err := tx.ExecContext(ctx, q, append([]any{seq, n, healthText(h)}, figureArgs(&f)...)...); err != nil {
			return s.dbError(err)
		}
	}
	return nil
}
