package sqlstore

import (
	"context"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
)

// Accept records that run id's level is accepted (archive.Accepter).
func (s *Store) Accept(ctx context.Context, id, note string) (archive.Acceptance, error) {
	seq, err := s.seq(ctx, id)
	if err != nil {
		return archive.Acceptance{}, err
	}
	a := archive.Acceptance{RunID: id, Note: strings.TrimSpace(note), At: time.Now().UTC().Truncate(time.Microsecond)}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return a, s.dbError(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, s.d.rebind("DELETE FROM accepted WHERE run_seq = ?"), seq); err != nil {
		return a, s.dbError(err)
	}
	if _, err := tx.ExecContext(ctx, s.d.rebind("INSERT INTO accepted (run_seq, note, at) VALUES (?, ?, ?)"), seq, a.Note, unixNano(a.At)); err != nil {
		return a, s.dbError(err)
	}
	return a, s.dbError(tx.Commit())
}

// Accepted lists the acceptances, oldest first (archive.Accepter).
func (s *Store) Accepted(ctx context.Context) ([]archive.Acceptance, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT r.id, a.note, a.at FROM accepted a JOIN runs r ON r.seq = a.run_seq ORDER BY a.at, r.seq")
	if err != nil {
		return nil, s.dbError(err)
	}
	defer rows.Close()
	out := []archive.Acceptance{}
	for rows.Next() {
		var a archive.Acceptance
		var at int64
		if err := rows.Scan(&a.RunID, &a.Note, &at); err != nil {
			return nil, s.dbError(err)
		}
		a.At = fromUnixNano(at)
		out = append(out, a)
	}
	return out, s.dbError(rows.Err())
}
