package ingest

import "github.com/loadlab/loadlab/internal/results"

// pipeBatch is how many results the decoding goroutine hands over at once.
const pipeBatch = 2048

// pipe decodes a results source on a goroutine of its own, in batches, so
// that reading one file (decompressing, decoding) and computing its figures
// run on two cores: one file adds about as fast as the slower of the two,
// not their sum. It is a results.Decoder returning exactly what the source
// returns, in order, ending with the source's error (io.EOF at the end).
type pipe struct {
	src  *results.Source
	full chan *batch
	free chan *batch
	stop chan struct{}
	cur  *batch
	i    int
}

type batch struct {
	rs  []results.Result
	n   int
	err error
}

func newPipe(src *results.Source) *pipe {
	p := &pipe{src: src, full: make(chan *batch, 3), free: make(chan *batch, 3), stop: make(chan struct{})}
	for range 3 {
		p.free <- &batch{rs: make([]results.Result, pipeBatch)}
	}
	go p.run()
	return p
}

func (p *pipe) run() {
	for {
		var b *batch
		select {
		case b = <-p.free:
		case <-p.stop:
			return
		}
		b.n, b.err = 0, nil
		for b.n < len(b.rs) {
			if err := p.src.Decode(&b.rs[b.n]); err != nil {
				b.err = err
				break
			}
			b.n++
		}
		select {
		case p.full <- b:
		case <-p.stop:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// Decode returns the next result. A batch goes back to the decoder only
// when the next one is asked for, so the result last returned stays
// valid until then, as with any Decoder.
func (p *pipe) Decode(r *results.Result) error {
	for {
		if p.cur != nil {
			if p.i < p.cur.n {
				*r = p.cur.rs[p.i]
				p.i++
				return nil
			}
			if p.cur.err != nil {
				return p.cur.err
			}
			p.free <- p.cur
		}
		p.cur, p.i = <-p.full, 0
	}
}

// Damaged is the source's damaged regions (read once decoding ended).
func (p *pipe) Damaged() []results.Damage { return p.src.Damaged() }

// Close stops the decoding goroutine (the source stays open).
func (p *pipe) Close() { close(p.stop) }
