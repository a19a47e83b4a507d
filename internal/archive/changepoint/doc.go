// Package changepoint finds where an ordered series of figures changes: the
// build after which a page got slower, in a series of runs ordered by build.
// It is pure (no I/O); package archive/trend feeds it the archive's runs and
// checks each change against the runs' raw latency distributions.
//
// The method is E-divisive means (Matteson & James, "A Nonparametric
// Approach for Multiple Change Point Analysis of Multivariate Data", 2014),
// as Apache Otava (formerly DataStax's Hunter) and MongoDB's CI use it:
//
//   - Divergence. For a stretch z[s:e) and a split s < τ < κ ≤ e, the
//     energy divergence between X = z[s:τ) and Y = z[τ:κ) is
//     Ê = 2·mean|X−Y| − mean|X−X'| − mean|Y−Y'| (means over distinct
//     pairs), weighted Q̂ = |X||Y|/(|X|+|Y|)·Ê. The candidate is the τ of the
//     (τ, κ) that maximises Q̂; it is computed for every (τ, κ) in O(m²) time
//     and O(m) memory per stretch of m points. Latencies and throughputs are
//     compared on a log scale (Options.Log), so that a change is weighed by
//     its ratio, as the minimum size is.
//   - Hierarchy. The best candidate over all open stretches is judged; a
//     change splits its stretch in two and the search goes on; a stretch
//     whose best candidate is not a change is left whole.
//   - Permutation test. The candidate's Q̂ is compared with the best Q̂ of
//     the series with every open stretch shuffled; the p-value is
//     (1 + exceedances)/(1 + permutations), 199 permutations at most, cut
//     short once the candidate can no longer be significant (Besag &
//     Clifford's sequential test: a p-value above the level is an estimate
//     from fewer permutations). Shuffles are seeded from Options.Seed and
//     the candidate's place, so the same series gives the same answer.
//     A permutation test cannot be significant when its stretch has fewer
//     than 2/α distinct arrangements of the two sides (six runs split three
//     and three have 20): it then abstains (SeriesP is NaN), and the
//     judgement rests on the Judge alone — for latencies, the runs' raw
//     distributions, thousands of requests on each side.
//   - Judgement. A candidate is a change when it is significant (the
//     Judge's verdict; without a Judge, the permutation test at level α)
//     and its relative size |After/Before − 1| is at least MinChange (5%),
//     so that the run-to-run noise of an unchanged build raises no alarm.
//     Size is looked at first: a candidate whose sides' points differ by
//     less than half the minimum on average (or whose ranges cannot differ
//     by the minimum) is not tested further, which keeps a stable series
//     of 10,000 points to a few milliseconds.
//   - Long series are searched in windows of Options.Window points that
//     overlap by half (as Otava does).
//   - Last, every change found is judged again between its neighbours (the
//     points since the previous change against those up to the next, at
//     most Window/2 each side), the weakest failing one dropped until all
//     hold (Otava's merge step); the figures reported are these.
package changepoint
