package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/loadlab/loadlab/internal/archive"
)

// The "load" sort orders runs as archive.Run.Load shows them: the paced
// runs (no users) by the rate they sent, then the closed loops by their
// fewest users, their most, and the rate they achieved; the other way
// round when descending.
const loadOrder = "r.users_min, r.users_max, F.rate"

// usersRange are the users_min and users_max columns of a run.
func usersRange(users []int) (lo, hi int64) {
	l, h := archive.UsersBounds(users)
	return int64(l), int64(h)
}

// backfillUsersRange fills users_min and users_max of the runs stored
// before the schema had them, from their users or, for a run stored
// before the archive kept its users, its slug (as List reads them).
func backfillUsersRange(ctx context.Context, s *Store, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SELECT seq, id, slug, users FROM runs")
	if err != nil {
		return err
	}
	type fill struct{ seq, lo, hi int64 }
	var fills []fill
	for rows.Next() {
		var seq int64
		var id, slug, users string
		if err := rows.Scan(&seq, &id, &slug, &users); err != nil {
			rows.Close()
			return err
		}
		var u []int
		if users != "" {
			json.Unmarshal([]byte(users), &u)
		} else {
			u = archive.SlugUsers(slug, id)
		}
		if lo, hi := usersRange(u); hi > 0 {
			fills = append(fills, fill{seq, lo, hi})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	q := s.d.rebind("UPDATE runs SET users_min = ?, users_max = ? WHERE seq = ?")
	for _, f := range fills {
		if _, err := tx.ExecContext(ctx, q, f.lo, f.hi, f.seq); err != nil {
			return err
		}
	}
	return nil
}
