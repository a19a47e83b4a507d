package ingest

import (
	"sync"
	"time"

	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock"
)

// cutter cuts the results of one run's step as its files are read (the
// shard files of a split attack in parallel) into time blocks.
type cutter struct {
	mu  sync.Mutex
	cut *runblock.Cutter
}

func newCutter() *cutter { return &cutter{cut: runblock.NewCutter(time.Time{}, 0)} }

// decoder hands every result dec yields to the cutter too.
func (c *cutter) decoder(dec results.Decoder) results.Decoder { return &cutDecoder{dec: dec, c: c} }

// blocks and health are the step's time blocks and the lag part of its
// health, once every result was read.
func (c *cutter) blocks() []runblock.Block {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cut.Blocks()
}

func (c *cutter) health() runblock.Health {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cut.Health()
}

type cutDecoder struct {
	dec results.Decoder
	c   *cutter
}

func (d *cutDecoder) Decode(r *results.Result) error {
	if err := d.dec.Decode(r); err != nil {
		return err
	}
	d.c.mu.Lock()
	d.c.cut.Add(r)
	d.c.mu.Unlock()
	return nil
}
