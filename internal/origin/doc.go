// Package origin is loadlab's origin simulator: an HTTP handler that plays
// bbc/origin_simulator recipes unchanged (routes, timed stages of status and
// latency, fixed, random or fetched bodies, gzip, the /_admin API) and adds
// what load testers ask for on top: weighted status mixes, seeded latency
// distributions, connection faults, per-request overrides and Prometheus
// metrics.
//
// Bodies (and their gzip form) are built once when a recipe is loaded;
// latencies are waited with timers, so thousands of requests can be held in
// flight cheaply.
package origin
