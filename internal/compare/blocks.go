package compare

import (
	"time"

	"github.com/loadlab/loadlab/internal/runblock"
)

// This file cuts a run into time blocks for the run-level verdicts
// (judge.go), with runblock.Cutter, the cutter the attack and the archive
// use: results by due time (latency from it), first in grains of
// BlockLength/20, joined into blocks of runblock.BlockLength (the archive's
// blocks of the same run), or of fewer grains so that a short run still
// has minBlocks (runblock.Join).

// grain is the length a run's results are cut at first; a block is whole
// grains (a run of a second still has 10).
const grain = runblock.BlockLength / 20

// minBlocks is how many blocks a run is cut into at least when it is
// shorter than minBlocks block lengths (a 6 s run: 10 blocks of 0.5 s).
const minBlocks = 10

// pairClock places a duet's results by their request pair rather than
// their due time: the result of sequence number s is at origin +
// (s/2)·step, so the two requests of a pair (2k, 2k+1: one of each side)
// always fall in the same block however the blocks' edges fall.
type pairClock struct {
	origin time.Time
	step   time.Duration // the mean time between two pairs
}

func (c *pairClock) at(seq uint64) time.Time {
	return c.origin.Add(time.Duration(seq/2) * c.step)
}

// grains is the run's results cut into grains (nil when it has none
// with a time, or was rebuilt from a histogram).
func (r *Run) grains() []runblock.Block {
	if r.cut == nil {
		return nil
	}
	if r.fine == nil {
		r.fine = r.cut.Blocks()
	}
	return r.fine
}

// grainsPerBlock is how many grains make one block of a run of span
// grains: runblock.BlockLength, or less so that a short run has
// minBlocks.
func grainsPerBlock(span int) int {
	per := int(runblock.BlockLength / grain)
	if span < per*minBlocks {
		per = max(1, span/minBlocks)
	}
	return per
}

// blocksOf is the run's grains joined per grains a block, or the
// blocks an archive kept of it.
func blocksOf(r *Run, per int) []runblock.Block {
	if r.cut == nil {
		return r.kept
	}
	b, err := runblock.Join(r.grains(), per)
	if err != nil {
		return nil // encoded by the run's own Cutter: cannot fail
	}
	return b
}
