package ingest

import (
	"sync"
	"time"

	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock"
)

// cutBatch is how many results a decoder hands the cutter at once.
const cutBatch = 4096

// cutter cuts the results of one run's step into time blocks as its files
// are read (the shard files of a split attack in parallel), on a
// goroutine of its own beside the report's: the report's figures and the
// blocks are computed at once.
type cutter struct {
	in   chan []cutItem
	done chan struct{}
	once sync.Once
	cut  *runblock.Cutter
	free chan []cutItem // batches to reuse
}

// cutItem is what the cutter needs of a result.
type cutItem struct {
	due, sent time.Time
	latency   time.Duration
	code      uint16
}

func newCutter() *cutter {
	c := &cutter{in: make(chan []cutItem, 4), done: make(chan struct{}), cut: runblock.NewCutter(time.Time{}, 0), free: make(chan []cutItem, 8)}
	go func() {
		defer close(c.done)
		var r results.Result
		for batch := range c.in {
			for _, it := range batch {
				r.Due, r.Sent, r.Latency, r.Code = it.due, it.sent, it.latency, it.code
				c.cut.Add(&r)
			}
			select {
			case c.free <- batch[:0]:
			default:
			}
		}
	}()
	return c
}

// decoder hands every result dec yields to the cutter too.
func (c *cutter) decoder(dec results.Decoder) results.Decoder { return &cutDecoder{dec: dec, c: c} }

// stop waits for the cutter to take in every result handed to it; the
// decoders must be done. Safe to call more than once.
func (c *cutter) stop() {
	c.once.Do(func() { close(c.in) })
	<-c.done
}

// blocks and health are the step's time blocks and the lag part of its
// health, once every decoder is done.
func (c *cutter) blocks() []runblock.Block {
	c.stop()
	return c.cut.Blocks()
}

func (c *cutter) health() runblock.Health {
	c.stop()
	return c.cut.Health()
}

type cutDecoder struct {
	dec   results.Decoder
	c     *cutter
	batch []cutItem
}

func (d *cutDecoder) Decode(r *results.Result) error {
	if err := d.dec.Decode(r); err != nil {
		d.flush() // the end (or damage that ends it)
		return err
	}
	if d.batch == nil {
		select {
		case d.batch = <-d.c.free:
		default:
			d.batch = make([]cutItem, 0, cutBatch)
		}
	}
	d.batch = append(d.batch, cutItem{due: r.Due, sent: r.Sent, latency: r.Latency, code: r.Code})
	if len(d.batch) == cutBatch {
		d.flush()
	}
	return nil
}

func (d *cutDecoder) flush() {
	if len(d.batch) > 0 {
		d.c.in <- d.batch
		d.batch = nil
	}
}
