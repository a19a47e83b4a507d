// Package model predicts what a load test will measure before it runs. It
// simulates a step in virtual time (a discrete-event loop) through the same
// pool bookkeeping (pool.Machine), circuit breaker and cache code the proxy
// runs, fed by the origin's recipe (stages, latency distributions,
// statuses, faults) and the scenarios' schedules. A 300 s step at
// 1,200 requests/s takes well under a second to predict.
//
// What the model covers: the loadlab proxy (pools with either manager,
// checkout and request timeouts, breakers, cache and fallbacks) in front of
// a loadlab origin, or an origin alone. It does not model CPU: a
// generator, proxy or origin short of CPU is what a difference between
// prediction and measurement then points at. What it cannot represent
// (a command component, an external target, fetched bodies' sizes, slow
// or truncated bodies) is named in Prediction.Unsupported, never guessed.
package model
