package archive

import (
	"slices"
	"testing"
	"time"
)

// A run's load is its users when it was a closed loop, else its rate; the
// users a slug names are read back from it.
func TestLoadAndSlugUsers(t *testing.T) {
	for _, c := range []struct {
		rate  float64
		users []int
		want  string
	}{
		{350.02, nil, "350/s"}, {99.46, nil, "99.5/s"}, {0, nil, "0/s"},
		{7.3, []int{32}, "32 users"}, {3.9, []int{1}, "1 user"}, {3.9, []int{1, 1}, "1 user"}, {40.1, []int{4, 8, 16}, "4-16 users"}, {40.1, []int{16, 4}, "4-16 users"},
	} {
		r := Run{Users: c.users, Figures: Figures{Rate: c.rate}}
		if got := r.Load(); got != c.want {
			t.Errorf("rate %v users %v: load %q, want %q", c.rate, c.users, got, c.want)
		}
	}
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
		slug := Slug(c.name, c.d, c.rate, c.users, id)
		if got := SlugUsers(slug, id); !slices.Equal(got, c.want) {
			t.Errorf("SlugUsers(%q) = %v, want %v", slug, got, c.want)
		}
	}
	if got := SlugUsers("users-60s-32users-"+id, "otherid00000"); got != nil {
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
		SlugUsers(name, id)
		SlugUsers(name, "")
		var users, want []int
		if lo > 0 {
			users = []int{int(lo), int(max(lo, hi))}
			want = []int{int(lo)}
			if hi > lo {
				want = append(want, int(hi))
			}
		}
		slug := Slug(name, time.Duration(int64(secs)+1)*time.Second, 100, users, id)
		if got := SlugUsers(slug, id); !slices.Equal(got, want) {
			t.Errorf("SlugUsers(%q) = %v, want %v", slug, got, want)
		}
	})
}
