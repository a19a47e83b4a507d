// Package flow runs user journeys: a flow file (YAML, see docs/flows.md)
// describes the requests of one session — a login whose answer gives a
// token, pages fetched with it, a search with a value from a data file —
// with the values it captures from answers, the checks it makes of them,
// the time a user thinks between them, groups and bounded loops.
//
// Load reads and checks a flow file, every error naming file, line and
// field (package badinput). A *Flow is an attack.Journey: the attack's own
// pacer starts its sessions on the attack's schedule (open model: each
// session runs the flow once; closed model: each of N users loops it), and
// the session sends its requests through the attack's client, each due
// when the answer before it came plus the think time, its latency measured
// from that due instant. Every result records its step and session
// (results.Result.FlowStep, Session, Failed, Ended).
//
// Values from answers are untrusted: a captured value that could not go
// where the flow uses it (a CR or LF in a header, a space in a URL) fails
// its capture, and never reaches the wire.
package flow
