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
		closedID, _, err := s.Add(ctx, closed)
		if err != nil {
			t.Fatal(err)
		}
		pacedID, _, err := s.Add(ctx, bundle(t, "paced", t0.Add(time.Minute), 50*time.Millisecond, nil))
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
		if r, _ := s.Get(ctx, closedID); r.Load() != "4-16 users" {
			t.Errorf("closed loop's load %q", r.Load())
		}
		if r, _ := s.Get(ctx, pacedID); r.Load() != "10/s" {
			t.Errorf("paced run's load %q", r.Load())
		}

		// The database as the loadlab before the users column left it.
		for _, q := range []string{"ALTER TABLE runs DROP COLUMN users", "UPDATE schema_version SET version = 1"} {
			if _, err := s.db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		s = open(t, dsn)
		var v int
		if err := s.db.QueryRow("SELECT version FROM schema_version").Scan(&v); err != nil || v != SchemaVersion || SchemaVersion < 2 {
			t.Fatalf("schema version %d (%v) after reopening, want %d", v, err, SchemaVersion)
		}
		if u := users(s); len(u) != 2 || !slices.Equal(u[closedID], []int{4, 16}) || u[pacedID] != nil {
			t.Errorf("after the migration: closed %v (want [4 16], from its slug), paced %v", u[closedID], u[pacedID])
		}
		later := bundle(t, "later", t0.Add(2*time.Minute), 50*time.Millisecond, nil)
		later.Run.Users = []int{32}
		id, _, err := s.Add(ctx, later)
		if err != nil {
			t.Fatal(err)
		}
		if r, err := s.Get(ctx, id); err != nil || !slices.Equal(r.Users, []int{32}) || r.Slug != "later-20s-32users-"+id {
			t.Errorf("a run added after the migration: %v, users %v, slug %q", err, r.Users, r.Slug)
		}
	})
}
