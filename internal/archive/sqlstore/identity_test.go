package sqlstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
)

// The store persists the identity a run comes with (content hash, ID,
// slug, given once by archive.Bundle.Identify) and makes none: a run
// without it is refused and nothing is stored.
func TestAddPersistsTheIdentityGiven(t *testing.T) {
	forEach(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := open(t, dsn)
		t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		if _, _, err := s.Add(ctx, bundle(t, "anonymous", t0, time.Millisecond, nil)); err == nil || !strings.Contains(err.Error(), "identity") {
			t.Errorf("a run without its identity: %v, want refused", err)
		}
		if _, total, _ := s.List(ctx, archive.Filter{}); total != 0 {
			t.Errorf("%d runs stored after a refused add", total)
		}
		b := identified(t, bundle(t, "named", t0, time.Millisecond, nil))
		want := b.Run
		id, dup, err := s.Add(ctx, b)
		if err != nil || dup || id != want.ID {
			t.Fatalf("add: id %q dup %v err %v, want %q", id, dup, err, want.ID)
		}
		got, err := s.Get(ctx, id)
		if err != nil || got.ID != want.ID || got.Slug != want.Slug || got.Content != want.Content || !strings.HasPrefix(got.Slug, "named-20s-10rps-") {
			t.Errorf("stored %q %q %q (%v), given %q %q %q", got.ID, got.Slug, got.Content, err, want.ID, want.Slug, want.Content)
		}
	})
}
