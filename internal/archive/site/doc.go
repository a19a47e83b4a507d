// Package site is the archive's results site (`loadlab archive serve`):
// an http.Handler that shows a team's archived runs from an archive.Reader (it never adds).
//
//   - /                  every run, newest first: filter by name and label,
//     sort by any column, page through (server-side, so 10,000 runs stay fast);
//   - /runs/ID           one run at a permanent URL (a slug redirects to it):
//     the answer first (summary table, knee charts, findings, thresholds),
//     then per step and scenario the vegeta-style text report beside its
//     latency percentile plot, and the sampled server metrics on the step's
//     time axis;
//   - /runs/ID/archive.tar  the run's stored files as a tar;
//   - /runs/ID/results.bin?step=N&scenario=S  one step's results as the gob
//     stream `vegeta attack` writes, so `vegeta report` reads it;
//   - /compare?ids=A,B   runs side by side with `loadlab compare`'s statistics;
//   - /trend?by=LABEL&metric=p99  one figure across runs ordered by a label,
//     change points marked, each point linking to its run.
//
// Pages are drawn from the stored figures and histograms, never from the
// raw results (only the .bin download reads those). The site is read-only:
// anything but GET and HEAD is refused, a Host header that does not name
// this machine is refused unless a token guards the site, and with a token
// every request must carry it (package webguard holds the checks).
//
// It serves a bounded number of requests at once (Options.MaxInFlight, the
// store's connections); one that waits longer than Options.Wait for its
// turn is answered 503 with Retry-After, as is any request while the
// database cannot serve (down, out of connections). A damaged database is
// a 500; 400 is only for a mistake in the request. Error pages never show
// SQL, file names or the database's address (Options.ErrorLog gets the
// details), and no redirect leaves the site.
package site
