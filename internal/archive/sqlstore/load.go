package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/loadlab/loadlab/internal/load"
)

// The "load" sort orders runs as archive.Run.Load shows them: the paced
// runs (no users) by the rate they sent, then the closed loops by their
// fewest users, their most, and the rate they achieved; the other way
// round when descending.
const loadOrder = "r.users_min, r.users_max, F.rate"

// usersRange are the users_min and users_max columns of a run.
func usersRange(users []int) (lo, hi int64) {
	l, h := load.Closed(users...).Bounds()
	return int64(l), int64(h)
}

// backfillUsersRange fills users_min and users_max of the runs stored
// before the schema had them, from their users or, for a run stored
// before the archive kept its users, its slug (migrations[5] then keeps
// those in its users).
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
			u = slugUsers(slug, id)
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

// slugUsersPart matches the load part of a closed loop's slug
// (archive.Slug), before its ID.
var slugUsersPart = regexp.MustCompile(`-([0-9]+)(?:-([0-9]+))?users-$`)

// slugUsers are the users a run's slug names when it was a closed loop:
// [32] of "users-60s-32users-<id>", [4 32] of "...-4-32users-<id>"; nil
// for a paced run's slug. It gives the users of a run archived before
// the archive kept them. (A run shorter than half a second has no length
// in its slug: if its name ends in a number, that number reads as users.)
func slugUsers(slug, id string) []int {
	m := slugUsersPart.FindStringSubmatch(strings.TrimSuffix(slug, id))
	if m == nil || !strings.HasSuffix(slug, "-"+id) {
		return nil
	}
	var users []int
	for _, s := range m[1:] {
		if n, err := strconv.Atoi(s); err == nil {
			users = append(users, n)
		}
	}
	return users
}
