// Package verdict judges a difference between two groups of runs — the
// newest build's runs against the level of the builds before it, or two
// runs (or their replicates) side by side — and answers worse, better, no
// change, or cannot tell, with an interval and a sentence. It takes plain
// per-run inputs (a figure, the run's time blocks, its health), so
// `loadlab archive trend`, `loadlab compare` and the results site share
// one method.
//
// The method:
//
//   - The unit is the run. Requests of one run share its machine (a
//     pause of the runner delays hundreds of them at once), so they are
//     not independent samples; the figure judged is each run's: its
//     latency percentile or mean and its throughput on a log scale (a
//     change is a ratio), its success or error rate in absolute percentage
//     points (97% from 100% is 3 points, not a 3% relative change).
//   - Within-run uncertainty comes from a block bootstrap over the run's
//     time blocks (package runblock): blocks are drawn with replacement,
//     their histograms merged and the figure recomputed, Resamples times,
//     from a random stream seeded by the run's content (and Options.Seed),
//     so a pause that falls in one block widens the run's interval instead
//     of moving a verdict. A rate's within-run variance is at least the
//     binomial variance of its requests.
//   - Between-run variance is pooled from the residuals of the runs around
//     their group's level (the runs since the last change, the replicates
//     of one build) and from other replicate groups the caller passes
//     (Options.Replicates); each run's variance is at least its within-run
//     variance. The difference of the groups' levels gets a Student t
//     interval (99%) with the pooled residuals' degrees of freedom — the
//     t-test Apache Otava (formerly Hunter) applies by default — so two or
//     three runs a side give the wide interval they deserve. With one run
//     a side and no replicates the run-to-run variance is unknown: the
//     interval then rests on the blocks alone (as duet benchmarking does,
//     where both run at once on one machine), said so in the text, and
//     without blocks the verdict is cannot tell.
//   - Three outcomes: Worse or Better when the interval excludes zero and
//     the change is at least the minimum (5% for latencies and throughput,
//     1 point for rates: a build failing 1% of its requests where its
//     predecessors failed none is a regression); Same (no change) when the
//     interval's worse side is below the minimum; CannotTell otherwise,
//     with a power calculation: how many runs of the newer build would
//     decide ("6 runs cannot show a 5% change of p99 at 3.1% run-to-run
//     noise; 4 repeats of the newer build would").
//   - Two runs made at once on one machine, their blocks paired (a duet:
//     both builds in one attack), are judged by JudgePaired: a paired
//     block bootstrap draws the same blocks for both and recomputes the
//     difference of their figures, so noise that hit both cancels; the
//     difference gets a Student t interval with the blocks' degrees of
//     freedom, and the same three outcomes.
//   - Noisy runs (runblock.Health.JudgeAmong: the generator's own lag a
//     visible share of what it measured, steal, a saturated generator)
//     are named and left out while each side keeps a clean run; otherwise
//     the verdict is cannot tell. The text says which and why. A run's lag
//     p99 is weighed against its own latency p99 and against the p99 its
//     peers typically measured (the median over the runs judged, or over
//     the whole series: Options.TypicalP99): on a busy runner a stall
//     often delays the target as much as the generator, so the run's own
//     p99 grows with its lag and the lag's share of it stays small (18 ms
//     of lag in a p99 of 335 ms where its peers measured 23 ms). Such runs,
//     judged on their own share, passed as clean, and one of them in a
//     series multiplied the tails' run-to-run noise (p99 noise 61% in a
//     series whose quiet runs agree within 3%): the p50 change was still
//     named, the p95 and p99 one was not.
//   - The minimum change may be the replicates' noise floor
//     (Options.NoiseFloor): the smallest difference two single runs of one
//     build can show at the confidence level, t·√2·s over the replicates'
//     spread s, instead of a fixed 5%.
//   - A per-request bootstrap (package compare) may refine a verdict, never
//     make one alone: it sees only the variance within runs.
//
// The design follows what performance CI at scale learnt: Daly et al.,
// "The Use of Change Point Detection to Identify Software Performance
// Regressions in a Continuous Integration System" (ICPE 2020, MongoDB),
// on judging series of runs rather than requests and on the noise of CI
// machines; Apache Otava (Hunter) for the t-test over the runs around a
// change; Chromium's Pinpoint, which repeats a build's runs until the
// difference is decided or shown too small; and Bulej et al., "Duet
// Benchmarking: Improving Measurement Accuracy in the Cloud" (Empirical
// Software Engineering, 2020), for judging runs that shared a machine.
package verdict
