package sqlstore

import (
	"slices"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
)

// The users a closed loop's slug names are read back from it, for the
// runs archived before the archive kept them.
func TestSlugUsers(t *testing.T) {
	id := "adsfccv6g4k5"
	for _, c := range []struct {
		name  string
		d     time.Duration
		rate  float64
		users []int
		want  []int
	}{
		{"users", 60 * time.Second, 7, []int{32}, []int{32}},
		{"users", 3 * time.Second, 7, []int{4, 8, 16}, []int{4, 16}},
		{"regression hunt", 9 * time.Second, 100, nil, nil},
		{"100 users", 9 * time.Second, 100, nil, nil}, // a name that says users, of a paced run
		{"", 0, 0, []int{5}, []int{5}},
	} {
		slug := archive.Slug(c.name, c.d, c.rate, c.users, id)
		if got := slugUsers(slug, id); !slices.Equal(got, c.want) {
			t.Errorf("SlugUsers(%q) = %v, want %v", slug, got, c.want)
		}
	}
	if got := slugUsers("users-60s-32users-"+id, "otherid00000"); got != nil {
		t.Errorf("a slug of another ID: %v", got)
	}
}

// The users a closed loop's slug names are read back whatever its name,
// and any text is read without panicking.
func FuzzSlugUsers(f *testing.F) {
	f.Add("users", uint16(60), uint16(4), uint16(32))
	f.Add("run-7", uint16(1), uint16(16), uint16(16))
	f.Add("4-32users", uint16(9), uint16(0), uint16(0))
	f.Fuzz(func(t *testing.T, name string, secs, lo, hi uint16) {
		id := "adsfccv6g4k5"
		slugUsers(name, id)
		slugUsers(name, "")
		var users, want []int
		if lo > 0 {
			users = []int{int(lo), int(max(lo, hi))}
			want = []int{int(lo)}
			if hi > lo {
				want = append(want, int(hi))
			}
		}
		slug := archive.Slug(name, time.Duration(int64(secs)+1)*time.Second, 100, users, id)
		if got := slugUsers(slug, id); !slices.Equal(got, want) {
			t.Errorf("SlugUsers(%q) = %v, want %v", slug, got, want)
		}
	})
}
