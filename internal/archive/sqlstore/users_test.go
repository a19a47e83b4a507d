package sqlstore

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
)

// A closed loop's users are stored with its run and read back by Get and
// List; an archive made before they were stored (schema version 1, no
// users column) opens, migrates, keeps its runs, names an old closed
// loop's users from its slug, and takes new runs.
func TestUsersKeptAndOlderSchemaMigrates(t *testing.T) {
	forEach(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := open(t, dsn)
		t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
		closed := bundle(t, "users", t0, 50*time.Millisecond, nil)
		closed.Run.Users = []int{4, 4, 16, 16}
		closedID, _, err := s.Add(ctx, identified(t, closed))
		if err != nil {
			t.Fatal(err)
		}
		pacedID, _, err := s.Add(ctx, identified(t, bundle(t, "paced", t0.Add(time.Minute), 50*time.Millisecond, nil)))
		if err != nil {
			t.Fatal(err)
		}
		users := func(s *Store) map[string][]int {
			t.Helper()
			runs, _, err := s.List(ctx, archive.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			m := map[string][]int{}
			for _, r := range runs {
				m[r.ID] = r.Users
				got, err := s.Get(ctx, r.ID)
				if err != nil || !slices.Equal(got.Users, r.Users) {
					t.Errorf("run %s: Get says users %v (%v), List %v", r.ID, got.Users, err, r.Users)
				}
			}
			return m
		}
		if u := users(s); !slices.Equal(u[closedID], []int{4, 4, 16, 16}) || u[pacedID] != nil {
			t.Errorf("users read back: closed %v, paced %v", u[closedID], u[pacedID])
		}
		if r, _ := s.Get(ctx, closedID); r.Load().String() != "4-16 users" {
			t.Errorf("closed loop's load %q", r.Load())
		}
		if r, _ := s.Get(ctx, pacedID); r.Load().String() != "10/s" {
			t.Errorf("paced run's load %q", r.Load())
		}

		// The database as the loadlab before the users column left it
		// (without the columns of the later versions either).
		s = reopenAfter(t, s, dsn, append(append([]string{"DROP TABLE accepted"}, dropV4...), "ALTER TABLE runs DROP COLUMN users_min", "ALTER TABLE runs DROP COLUMN users_max",
			"ALTER TABLE runs DROP COLUMN users", "UPDATE schema_version SET version = 1")...)
		var v int
		if err := s.db.QueryRow("SELECT version FROM schema_version").Scan(&v); err != nil || v != SchemaVersion || SchemaVersion < 2 {
			t.Fatalf("schema version %d (%v) after reopening, want %d", v, err, SchemaVersion)
		}
		if u := users(s); len(u) != 2 || !slices.Equal(u[closedID], []int{4, 16}) || u[pacedID] != nil {
			t.Errorf("after the migration: closed %v (want [4 16], from its slug), paced %v", u[closedID], u[pacedID])
		}
		later := bundle(t, "later", t0.Add(2*time.Minute), 50*time.Millisecond, nil)
		later.Run.Users = []int{32}
		id, _, err := s.Add(ctx, identified(t, later))
		if err != nil {
			t.Fatal(err)
		}
		if r, err := s.Get(ctx, id); err != nil || !slices.Equal(r.Users, []int{32}) || r.Slug != "later-20s-32users-"+id {
			t.Errorf("a run added after the migration: %v, users %v, slug %q", err, r.Users, r.Slug)
		}
	})
}

// Ordered by load (Filter.Sort "load", the LOAD column of `archive list`
// and of the results site's index), the paced runs come by the rate they
// sent and the closed loops by their users (fewest, then most), never a
// closed loop among the paced runs by the rate it happened to achieve;
// descending is the other way round, paging follows the order. An
// archive of schema version 2 (users kept, not their bounds) is
// backfilled when it opens: the same order, an old closed loop's users
// read from its slug.
func TestLoadOrder(t *testing.T) {
	forEach(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := open(t, dsn)
		t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
		byName := map[string]string{}
		for i, r := range []struct {
			name  string
			rate  float64
			users []int
		}{
			{"paced-50", 50, nil}, {"closed-8", 120, []int{8}}, {"closed-4-16", 90, []int{16, 4}},
			{"paced-200", 200, nil}, {"closed-32", 60, []int{32}}, {"closed-4", 70, []int{4, 4}}, {"paced-10", 10, nil},
		} {
			b := bundle(t, r.name, t0.Add(time.Duration(i)*time.Minute), 50*time.Millisecond, nil)
			b.Run.Rate, b.Run.Users = r.rate, r.users
			id, _, err := s.Add(ctx, identified(t, b))
			if err != nil {
				t.Fatal(err)
			}
			byName[id] = r.name
		}
		want := []string{"paced-10", "paced-50", "paced-200", "closed-4", "closed-4-16", "closed-8", "closed-32"}
		order := func(s *Store, asc bool, limit, offset int) []string {
			t.Helper()
			runs, total, err := s.List(ctx, archive.Filter{Sort: "load", Asc: asc, Limit: limit, Offset: offset})
			if err != nil || total != len(want) {
				t.Fatalf("list by load: %d runs (%v)", total, err)
			}
			var names []string
			for _, r := range runs {
				names = append(names, byName[r.ID])
			}
			return names
		}
		check := func(s *Store, when string) {
			t.Helper()
			if got := order(s, true, 0, 0); !slices.Equal(got, want) {
				t.Errorf("%s: by load, ascending: %v, want %v", when, got, want)
			}
			desc := slices.Clone(want)
			slices.Reverse(desc)
			if got := order(s, false, 0, 0); !slices.Equal(got, desc) {
				t.Errorf("%s: by load, descending: %v, want %v", when, got, desc)
			}
			if got := append(order(s, true, 4, 0), order(s, true, 4, 4)...); !slices.Equal(got, want) {
				t.Errorf("%s: two pages by load: %v, want %v", when, got, want)
			}
		}
		check(s, "as added")

		// The database as schema version 2 left it; closed-32 stored
		// before the archive kept users (its users are in its slug only).
		s = reopenAfter(t, s, dsn, append(append([]string{"DROP TABLE accepted"}, dropV4...), "ALTER TABLE runs DROP COLUMN users_min", "ALTER TABLE runs DROP COLUMN users_max",
			"UPDATE runs SET users = '' WHERE name = 'closed-32'", "UPDATE schema_version SET version = 2")...)
		check(s, "after the migration")
	})
}

// reopenAfter runs statements on s's database (making it as an older
// loadlab left it), closes s and opens the database again, migrating it.
func reopenAfter(t *testing.T, s *Store, dsn string, statements ...string) *Store {
	t.Helper()
	for _, q := range statements {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	return open(t, dsn)
}
