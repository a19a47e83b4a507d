package plan

import (
	"strconv"

	"github.com/loadlab/loadlab/internal/load"
)

// MaxUsers bounds a closed loop's workers: each is a connection and a
// goroutine sending back to back.
const MaxUsers = 100_000

// closedLoop reads a scenario's workers: N, which with rate: 0 makes it
// a closed loop of N users, each sending its next request when the
// previous one is answered (the attack's -rate=0 -max-workers N, what
// "N users" questions need). The attack runs it with N workers, the model
// predicts it as N users. workers is only for rate: 0, and not beside
// max_workers (which bounds an open loop's requests in flight).
func (b *builder) closedLoop(path string, sc *Scenario, rs rawScenario, vars map[string]string) error {
	field := path + ".workers"
	zero := len(rs.Steps) == 0 && sc.Rate.From.IsZero() && sc.Rate.To.IsZero()
	if !rs.Workers.Set {
		return nil
	}
	if !zero {
		return at(rs.Workers.Line, "%s: only with rate: 0 (a closed loop of that many users); an open loop's bound on requests in flight is max_workers", field)
	}
	if rs.MaxWorkers.Set {
		return at(rs.MaxWorkers.Line, "%s.max_workers: give workers (the users of rate: 0), not both", path)
	}
	v, err := b.substitute(rs.Workers.Value, vars)
	if err != nil {
		return at(rs.Workers.Line, "%s: %v", field, err)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 || n > MaxUsers {
		return at(rs.Workers.Line, "%s: want a whole number of users from 1 to %d, got %q", field, MaxUsers, v)
	}
	sc.MaxWorkers = n
	return nil
}

// Users is the scenario's users when it is a closed loop (rate: 0 with
// workers: N), 0 when it is paced.
func (sc *Scenario) Users() int {
	if len(sc.Rate.Steps) == 0 && sc.Rate.From.IsZero() && sc.Rate.To.IsZero() {
		return sc.MaxWorkers
	}
	return 0
}

// Load is the scenario's load: its rate as written, and its users when
// it is a closed loop.
func (sc *Scenario) Load() load.Load { return load.Of(sc.Rate.Text, sc.Users()) }

// setsUsers reports whether a matrix value v is the closed loop's users.
func setsUsers(sc *Scenario, v string) bool {
	n := sc.Users()
	return n > 0 && v == strconv.Itoa(n)
}
