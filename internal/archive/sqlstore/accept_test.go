package sqlstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
)

// Acceptances are kept, listed oldest first, replaced when a run is
// accepted again, refused for a run not in the archive; an archive of the
// schema before them migrates (the accepted table added) with its runs.
func TestAcceptAndMigrate(t *testing.T) {
	forEach(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := open(t, dsn)
		t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		a, _, err := s.Add(ctx, identified(t, bundle(t, "a", t0, 50*time.Millisecond, nil)))
		if err != nil {
			t.Fatal(err)
		}
		// the schema as it was before acceptances
		s = reopenAfter(t, s, dsn, "DROP TABLE accepted", "UPDATE schema_version SET version = 4")
		b, _, err := s.Add(ctx, identified(t, bundle(t, "b", t0.Add(time.Minute), 60*time.Millisecond, nil)))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := s.Accepted(ctx); err != nil || len(got) != 0 {
			t.Fatalf("none accepted: %v %v", got, err)
		}
		if _, err := s.Accept(ctx, b, "slower on purpose"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Accept(ctx, a, "first"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Accept(ctx, b, "  the note replaced  "); err != nil {
			t.Fatal(err)
		}
		got, err := s.Accepted(ctx)
		if err != nil || len(got) != 2 || got[0].RunID != a || got[0].Note != "first" || got[1].RunID != b || got[1].Note != "the note replaced" ||
			got[1].At.Before(got[0].At) {
			t.Fatalf("accepted: %+v %v", got, err)
		}
		if _, err := s.Accept(ctx, "nosuchrun", ""); !errors.Is(err, archive.ErrNotFound) {
			t.Errorf("a run not in the archive: %v", err)
		}
		var _ archive.Accepter = s
	})
}
