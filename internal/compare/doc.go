// Package compare tells which differences between load-test runs are real
// and which are noise: which of several builds of a service regressed,
// and which only look different because of noise.
//
// Each run is summarised by package metrics (the figures `loadlab report`
// prints): its latency histogram and its success count. Every run is
// compared with its baseline on mean, p50, p90, p99 and success ratio.
//
// `loadlab compare` judges runs, not requests (Options.RunLevel, judge.go),
// with package verdict, the one method `archive trend` and the results
// site use too: each run is cut into time blocks by due time with
// runblock.Cutter (blocks.go: the archive's blocks of 2 s for a run of 20
// s or more, 10 finer ones for a shorter run), each figure's within-run
// uncertainty is verdict's block bootstrap, the replicates of a side
// (Replicated) add their run-to-run spread, and the verdict's outcome is
// worded as the table words it; the two sides of a duet (one attack
// alternating between two builds, duet.go) are judged by
// verdict.JudgePaired, the same blocks drawn for both, so noise that hits
// both cancels. A run rebuilt from an archived histogram is judged over
// the blocks and health the archive kept of it (Run.Keep). The
// per-request method below is what Compare does without RunLevel (the Go
// API): it sees only the variance within runs.
//
// Per request, each difference gets a 95% confidence interval:
//
//   - latencies: a Poisson bootstrap. Each resample redraws every histogram
//     bucket's count from Poisson(count), which approximates drawing n
//     requests with replacement (Hanley & MacGibbon 2006) at a cost that
//     depends on the number of buckets, not of requests. Baseline and run are
//     resampled independently, B times (1000 by default), each from a
//     random stream seeded by the seed and the run's own content, so the
//     output is deterministic and a run's interval does not depend on the
//     other runs compared; the interval is the 2.5th-97.5th percentile of
//     the B differences.
//   - success ratio: Newcombe's hybrid score interval for a difference of
//     proportions (1998, method 10), which stays honest when failures are
//     rare or absent, where a bootstrap would not.
//   - throughput, for closed loops only (a run folder's steps of N users,
//     whose rate is what they achieved): the same Poisson bootstrap of
//     the success count over the run's length.
//
// A difference whose interval excludes zero is reported as real
// ("slower"/"faster", "worse"/"better"), otherwise as "no significant
// difference". Each interval is at 95%: among many rows with no real
// difference, about one in twenty will still be flagged (simulated on
// identical log-normal runs of 200 against 5000 requests: 5% for the mean
// and p50, 4% for the success ratio, 8.5% for p90; 3.5-5.5% for every
// statistic at 2000 requests). A statistic is not judged ("too few
// requests") unless both runs have at least MinTail requests beyond it:
// 500 requests for p99, 50 for p90, 10 otherwise.
package compare
