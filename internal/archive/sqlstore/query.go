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
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/redact"
)

// seq is the row number of run id.
func (s *Store) seq(ctx context.Context, id string) (int64, error) {
	var seq int64
	err := s.db.QueryRowContext(ctx, s.d.rebind("SELECT seq FROM runs WHERE id = ?"), id).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, archive.NotFound("run " + id)
	}
	return seq, s.dbError(err)
}

// sortColumns are the Filter.Sort keys and the column each orders by
// (figures from the scenarios table when Points is asked for one).
var sortColumns = map[string]string{
	"started": "r.started", "added": "r.added", "name": "r.name_lower", "id": "r.id",
	"requests": "F.requests", "rate": "F.rate", "throughput": "F.throughput", "success": "F.success",
	"p50": "F.p50", "p90": "F.p90", "p95": "F.p95", "p99": "F.p99", "max": "F.pmax", "mean": "F.pmean",
	"lag": "F.lag_p99", "dropped": "F.dropped", "load": loadOrder,
}

// SortKeys lists the Filter.Sort values the store orders by.
func SortKeys() []string {
	keys := make([]string, 0, len(sortColumns))
	for k := range sortColumns {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// where is the WHERE and ORDER BY of a filter; fig is the alias the
// figures come from ("r" or "s").
func (s *Store) where(f archive.Filter, fig string) (string, []any, error) {
	var conds []string
	var args []any
	if f.Name != "" {
		conds = append(conds, `r.name_lower LIKE ? ESCAPE '\'`)
		esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(strings.ToLower(f.Name))
		args = append(args, "%"+esc+"%")
	}
	keys := make([]string, 0, len(f.Labels))
	for k := range f.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		conds = append(conds, "r.seq IN (SELECT l.run_seq FROM labels l WHERE l.key = ? AND l.value = ?)")
		args = append(args, k, f.Labels[k])
	}
	var b strings.Builder
	if len(conds) > 0 {
		b.WriteString(" WHERE ")
		b.WriteString(strings.Join(conds, " AND "))
	}
	key := f.Sort
	if key == "" {
		key = "started"
	}
	col, ok := sortColumns[key]
	if !ok {
		return "", nil, badinput.Field("sort", "unknown column %q (one of %s)", key, strings.Join(SortKeys(), ", "))
	}
	col = strings.ReplaceAll(col, "F.", fig+".")
	dir := " DESC"
	if f.Asc {
		dir = " ASC"
	}
	b.WriteString(" ORDER BY ")
	for _, c := range strings.Split(col, ", ") {
		b.WriteString(c + dir + ", ")
	}
	b.WriteString("r.seq" + dir)
	if f.Limit > 0 || f.Offset > 0 {
		limit := int64(f.Limit)
		if limit <= 0 {
			limit = 1 << 62
		}
		b.WriteString(" LIMIT ? OFFSET ?")
		args = append(args, limit, max(f.Offset, 0))
	}
	return b.String(), args, nil
}

// countWhere is where without ordering and paging.
func (s *Store) count(ctx context.Context, f archive.Filter) (int, error) {
	f.Limit, f.Offset, f.Sort = 0, 0, ""
	w, args, err := s.where(f, "r")
	if err != nil {
		return 0, err
	}
	w = w[:strings.Index(w, " ORDER BY")]
	var n int
	err = s.db.QueryRowContext(ctx, s.d.rebind("SELECT COUNT(*) FROM runs r"+w), args...).Scan(&n)
	return n, s.dbError(err)
}

// figureSelect selects figureCols from alias a.
func figureSelect(a string) string {
	cols := strings.Split(figureNames, ", ")
	for i, c := range cols {
		cols[i] = a + "." + c
	}
	return strings.Join(cols, ", ")
}

// figureScan holds a row's figure columns.
type figureScan struct {
	requests, p50, p90, p95, p99, pmax, pmean, lag, dropped int64
	rate, throughput, success                               float64
	codes                                                   string
}

func (fs *figureScan) dest() []any {
	return []any{&fs.requests, &fs.rate, &fs.throughput, &fs.success, &fs.p50, &fs.p90, &fs.p95, &fs.p99, &fs.pmax, &fs.pmean,
		&fs.lag, &fs.dropped, &fs.codes}
}

func (fs *figureScan) figures() archive.Figures {
	f := archive.Figures{Requests: uint64(fs.requests), Rate: fs.rate, Throughput: fs.throughput, Success: fs.success,
		Latencies: metrics.LatencySummary{P50: time.Duration(fs.p50), P90: time.Duration(fs.p90), P95: time.Duration(fs.p95),
			P99: time.Duration(fs.p99), Max: time.Duration(fs.pmax), Mean: time.Duration(fs.pmean)},
		LagP99: time.Duration(fs.lag), Dropped: uint64(fs.dropped)}
	if fs.codes != "" && fs.codes != "{}" {
		json.Unmarshal([]byte(fs.codes), &f.Codes)
	}
	return f
}

const runCols = "r.id, r.slug, r.name, r.source, r.command, r.plan, r.machine, r.started, r.ended, r.added, r.content, r.labels, r.users, r.health"

// listCols are runCols without the plan (Get returns it): List stays light.
const listCols = "r.id, r.slug, r.name, r.source, r.command, '', r.machine, r.started, r.ended, r.added, r.content, r.labels, r.users, r.health"

// scanRun reads runCols and the figures into a Run.
func scanRun(sc interface{ Scan(...any) error }) (archive.Run, error) {
	var r archive.Run
	var started, ended, added int64
	var labels, users, health string
	var fs figureScan
	dest := append([]any{&r.ID, &r.Slug, &r.Name, &r.Source, &r.Command, &r.Plan, &r.Machine, &started, &ended, &added, &r.Content, &labels, &users, &health},
		fs.dest()...)
	if err := sc.Scan(dest...); err != nil {
		return r, err
	}
	// runs added before commands were redacted on the way in are
	// redacted on the way out
	r.Command = redact.Text(r.Command)
	r.Started, r.Ended, r.Added = fromUnixNano(started), fromUnixNano(ended), fromUnixNano(added)
	r.Labels = map[string]string{}
	json.Unmarshal([]byte(labels), &r.Labels)
	if users != "" {
		json.Unmarshal([]byte(users), &r.Users)
	}
	r.Figures = fs.figures()
	r.Health = parseHealth(health)
	return r, nil
}

// List returns the runs the filter selects, without steps or plan, and
// how many it selects in all.
func (s *Store) List(ctx context.Context, f archive.Filter) ([]archive.Run, int, error) {
	w, args, err := s.where(f, "r")
	if err != nil {
		return nil, 0, err
	}
	total, err := s.count(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	rows, err := s.db.QueryContext(ctx, s.d.rebind("SELECT "+listCols+", "+figureSelect("r")+" FROM runs r"+w), args...)
	if err != nil {
		return nil, 0, s.dbError(err)
	}
	defer rows.Close()
	runs := []archive.Run{}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, 0, s.dbError(err)
		}
		runs = append(runs, r)
	}
	return runs, total, s.dbError(rows.Err())
}

// Get returns one run with its steps (text reports included, histograms
// not: Histogram reads one).
func (s *Store) Get(ctx context.Context, id string) (*archive.Run, error) {
	r, seq, err := s.getRun(ctx, id)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, s.d.rebind("SELECT idx, scenario, name, started, ended, "+figureSelect("t")+
		", text, health FROM steps t WHERE t.run_seq = ? ORDER BY ord"), seq)
	if err != nil {
		return nil, s.dbError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var st archive.Step
		var started, ended int64
		var fs figureScan
		var health string
		dest := append([]any{&st.Index, &st.Scenario, &st.Name, &started, &ended}, fs.dest()...)
		if err := rows.Scan(append(dest, &st.Text, &health)...); err != nil {
			return nil, s.dbError(err)
		}
		st.Started, st.Ended, st.Figures, st.Health = fromUnixNano(started), fromUnixNano(ended), fs.figures(), parseHealth(health)
		r.Steps = append(r.Steps, st)
	}
	return &r, s.dbError(rows.Err())
}

func (s *Store) getRun(ctx context.Context, id string) (archive.Run, int64, error) {
	row := s.db.QueryRowContext(ctx, s.d.rebind("SELECT "+runCols+", "+figureSelect("r")+", r.seq FROM runs r WHERE r.id = ?"), id)
	var seq int64
	r, err := scanRun(seqScanner{row, &seq})
	if errors.Is(err, sql.ErrNoRows) {
		return r, 0, archive.NotFound("run " + id)
	}
	if err != nil {
		return r, 0, s.dbError(err)
	}
	return r, seq, nil
}

// seqScanner appends the seq column to a scanRun.
type seqScanner struct {
	row *sql.Row
	seq *int64
}

func (s seqScanner) Scan(dest ...any) error { return s.row.Scan(append(dest, s.seq)...) }

// Points returns one figure per selected run: the run's, or its
// scenario's (runs without that scenario left out); Codes are not filled.
func (s *Store) Points(ctx context.Context, f archive.Filter, scenario string) ([]archive.Point, error) {
	fig, join := "r", ""
	var jargs []any
	if scenario != "" {
		fig, join = "s", " JOIN scenarios s ON s.run_seq = r.seq AND s.scenario = ?"
		jargs = []any{scenario}
	}
	w, args, err := s.where(f, fig)
	if err != nil {
		return nil, err
	}
	// the status codes are left out: a series needs the figures, and
	// decoding 10,000 code maps is a third of the time
	q := "SELECT r.id, r.slug, r.name, r.labels, r.started, " + fig + ".health, " + strings.Replace(figureSelect(fig), fig+".codes", "''", 1) + " FROM runs r" + join + w
	rows, err := s.db.QueryContext(ctx, s.d.rebind(q), append(jargs, args...)...)
	if err != nil {
		return nil, s.dbError(err)
	}
	defer rows.Close()
	out := []archive.Point{}
	for rows.Next() {
		var p archive.Point
		var labels, health string
		var started int64
		var fs figureScan
		if err := rows.Scan(append([]any{&p.ID, &p.Slug, &p.Name, &labels, &started, &health}, fs.dest()...)...); err != nil {
			return nil, s.dbError(err)
		}
		p.Started, p.Figures, p.Health = fromUnixNano(started), fs.figures(), parseHealth(health)
		p.Labels = map[string]string{}
		json.Unmarshal([]byte(labels), &p.Labels)
		out = append(out, p)
	}
	return out, s.dbError(rows.Err())
}

// Histogram returns one step's encoded latency histogram.
func (s *Store) Histogram(ctx context.Context, id string, step int, scenario string) ([]byte, error) {
	seq, err := s.seq(ctx, id)
	if err != nil {
		return nil, err
	}
	var h []byte
	err = s.db.QueryRowContext(ctx, s.d.rebind("SELECT hist FROM steps WHERE run_seq = ? AND idx = ? AND scenario = ?"), seq, step, scenario).Scan(&h)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && len(h) == 0) {
		return nil, archive.NotFound(fmt.Sprintf("histogram of step %d scenario %q of run %s", step, scenario, id))
	}
	return h, s.dbError(err)
}
