// Package experiment runs a load-test plan from one file: it starts the
// components (origin simulator, proxy, any command), runs every step's
// scenarios concurrently while sampling the servers, and writes an output
// folder with the raw results, samples, summary.json, report.md (with SVG
// charts) and a self-contained report.html. Subpackages hold the plan
// schema (plan), the thresholds (threshold), process management
// (component) and the samplers (sampler).
package experiment
