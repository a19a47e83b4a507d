// Package experiment runs a load-test plan from one file: it starts the
// components (origin simulator, proxy, any command), runs every step's
// scenarios concurrently while sampling the servers, and writes the run
// folder: the raw results, samples and summary.json. It then hands the
// folder on, one way, to the analysis (package findings) and the write-up
// (package writeup: report.md with SVG charts and a self-contained
// report.html), which read only the Summary and the folder, so that
// Rewrite can redo both for an earlier run. Subpackages hold the plan
// schema (plan), the thresholds (threshold), process management
// (component), the samplers (sampler) and the run folder's data (summary).
package experiment
