// Package blackbox predicts a system loadlab did not write (HAProxy,
// nginx, a team's own service): it calibrates the live target with short,
// bounded attacks — the service time at low load, then a ramp to find how
// it queues — fits a queue with c servers, the measured service-time
// distribution and a bounded wait answering a refusal status, and
// expresses the fit as the model's own input (a fixed pool of c workers in
// front of an origin whose latency is the measured distribution), so the
// same virtual-time engine that predicts the playground proxy predicts
// any rate against the target.
//
// The flow: Calibrate (probe.go, calibrate.go) -> Fit -> Fit.Input ->
// model.Predict.
package blackbox
