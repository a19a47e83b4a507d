// Package changepoint finds where an ordered series of figures changes: the
// build after which a page got slower, in a series of runs ordered by build.
// It is pure (no I/O, no randomness: the same points give the same answer);
// package archive/trend feeds it the archive's runs and may judge each
// candidate against the runs' own data (Options.Judge).
//
// The method is Apache Otava's (formerly DataStax's Hunter; Fleming et al.,
// "Hunter: Using Change Point Detection to Hunt for Performance
// Regressions", ICPE 2023): E-divisive means proposes the candidates,
// Student's t-test between the two sides of a candidate decides, in a split
// step over windows and a merge step over the whole series. Otava's default
// test is this t-test; its other test, a permutation test of the
// divergence, is the original E-divisive (Matteson & James, 2014). We use
// the t-test because it is deterministic and can decide with few points:
// six runs split three and three have only 20 arrangements, so no
// permutation test of them can reach a level below 5%, and one with a few
// hundred shuffles gives a p-value that moves with the seed. The t-test's
// p-value is exact for normal noise around each side's level; latencies
// and throughputs are compared on a log scale (Options.Log), where their
// run-to-run noise is near normal and a change is a ratio.
//
//   - Candidates. For a stretch z[s:e) and a split s < τ < κ ≤ e, the energy
//     divergence between X = z[s:τ) and Y = z[τ:κ) is
//     Ê = 2·mean|X−Y| − mean|X−X'| − mean|Y−Y'| (means over distinct pairs),
//     weighted Q̂ = |X||Y|/(|X|+|Y|)·Ê; the candidate is the τ of the (τ, κ)
//     that maximises Q̂, computed for every (τ, κ) in O(m²) time and O(m)
//     memory for m points. τ may be s+1 and κ may be e: a side of one
//     point, at either edge, is a candidate like any other.
//   - Test. Student's t-test with a pooled variance between the points
//     before and after the candidate (as Otava computes it, each side's
//     spread with divisor n). A side of one point is judged against the
//     spread of the other: the first or the last run of a series can be a
//     change. Two points in all leave no spread to judge against: the
//     candidate is undecided (CannotTell), unless the Judge decides.
//   - Split step. The series is searched in windows of Options.Window
//     points (50), each starting half a window after the previous one (or
//     at the last change found in it, if later), the last ending at the
//     last point.
//     In a window, the candidate of greatest Q̂ over the open stretches is
//     tested against the rest of its stretch at the weak level (ten times
//     Alpha, as Otava's first pass); kept, it splits its stretch in two.
//     A candidate not kept closes its own stretch, and the search goes on
//     in the others (Otava ends the window's search there: a two-point
//     stretch no test can split would hide the changes before it). When
//     E-divisive chose a short Y side that ends before the stretch does (an
//     excursion: a few runs off, then back), the candidate is tested
//     against those points too, where the rest of the stretch would dilute
//     it: three runs 20% slower in thirty are found. That pair (τ, κ) is
//     the best of the stretch's (m−1)(m−2)/2 inner pairs, and in a long
//     series noise makes some pair of runs look like an excursion: its
//     level is the weak level divided by their number (Bonferroni).
//   - Merge step. Each change kept is judged between its neighbours (the
//     points since the previous change against those up to the next) at
//     level Alpha, with its size |After/Before − 1| against MinChange (5%)
//     and the Judge's verdict. While one fails, the weakest is dropped and
//     its neighbours are judged again: first those whose p-value fails
//     (greatest first), then those below the minimum size (smallest
//     first), then those the Judge did not confirm. A failing change is
//     ranked by its verdict against its nearest neighbours that hold, so
//     that of a real change and a spurious neighbour that fail together,
//     the spurious one goes first and the real one, judged again, holds
//     with its own size. (Otava ranks them as they are and judges again
//     the change after the one dropped, not the one before.) The figures
//     reported are those of this last judgement.
//   - Level. Alpha is 0.0001, a tenth of Otava's default: the candidate is
//     the best of many splits, so its p-value understates how often noise
//     alone produces one as good. Over 1000 flat series each (5% minimum
//     size, log-normal noise), Otava's 0.001 raised a false alarm in 1.3%
//     of series of 10 runs at 3% noise and 2.1% of 30 runs at 6%; 0.0001
//     in 0.0% and 0.1%, while a +50% change at the second or the last of
//     100 runs is still found in 99–100% of series and three runs 20% off
//     in 95–99% (3% noise). The price is in short series: +20% over six
//     runs (three and three, 3% noise) is a change in 15% of them and
//     "cannot tell" in 50% (65% and 34% at 0.001). Package simulate and
//     bench/verdict measure these.
//   - Outcome. Each candidate's verdict is one of three: Changed
//     (significant, and at least MinChange), NoChange (smaller than
//     MinChange), CannotTell (as large, but not significant: in a series of
//     one window at most, where the t-test could not have found a change of
//     the minimum size, or when the merge step drops it; or two points in
//     all, which no t-test can judge). Analyze returns the changes and the
//     undecided candidates; Detect the changes alone.
//   - Judge. Where the runs carry more than their figure (trend's raw
//     latency distributions), Options.Judge gives the verdict on the
//     candidates whose size may reach the minimum (a candidate whose sides
//     differ by less than 80% of it on average is not worth asking about):
//     those the t-test found a change, to confirm or overrule it on the
//     runs' data, and, in a series that fits in one window, those the
//     t-test could not have found a change of the minimum size in (its
//     interval at the level is wider than the minimum: six runs at 3%
//     noise). Elsewhere a "no" from the t-test stands: it could see such a
//     change. The Judge sees the runs nearest the change, half a window
//     each side at most, and is asked once about the same runs. This keeps
//     a stable series of 10,000 runs from asking it at all.
package changepoint
