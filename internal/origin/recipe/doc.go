// Package recipe parses and validates origin simulator recipes: the JSON
// files of bbc/origin_simulator (route, stages, headers, body,
// random_content, origin) plus loadlab's extensions (weighted status mixes,
// latency distributions and faults per stage).
//
// Parse never panics on any input; every problem comes back as a
// *badinput.Error naming the field (e.g. "[1].stages[0].latency") and the
// offending value.
package recipe
