package archive

import "testing"

// A run's load is its users when it was a closed loop, else its rate.
func TestLoad(t *testing.T) {
	for _, c := range []struct {
		rate  float64
		users []int
		want  string
	}{
		{350.02, nil, "350/s"}, {99.46, nil, "99.5/s"}, {0, nil, "0/s"},
		{7.3, []int{32}, "32 users"}, {3.9, []int{1}, "1 user"}, {3.9, []int{1, 1}, "1 user"}, {40.1, []int{4, 8, 16}, "4-16 users"}, {40.1, []int{16, 4}, "4-16 users"},
	} {
		r := Run{Users: c.users, Figures: Figures{Rate: c.rate}}
		if got := r.Load().String(); got != c.want {
			t.Errorf("rate %v users %v: load %q, want %q", c.rate, c.users, got, c.want)
		}
	}
}
