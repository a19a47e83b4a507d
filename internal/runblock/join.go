package runblock

import (
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/metrics"
)

// Join joins every per consecutive blocks (as a Cutter cut them, in time
// order) into one: their counts added, their histograms merged, the
// highest lag p99 kept, the last block made of what remains. A run cut
// finely once can so be judged in blocks of any whole multiple of the
// grain: blocks of BlockLength from a grain of BlockLength/20 are those a
// Cutter of BlockLength cuts from the same origin.
func Join(blocks []Block, per int) ([]Block, error) {
	if per <= 1 {
		return blocks, nil
	}
	out := make([]Block, 0, (len(blocks)+per-1)/per)
	for start := 0; start < len(blocks); start += per {
		end := min(start+per, len(blocks))
		j := Block{Start: blocks[start].Start}
		var h *hdrhistogram.Histogram
		for i, b := range blocks[start:end] {
			j.Length += b.Length
			j.Requests += b.Requests
			j.OK += b.OK
			j.LagP99 = max(j.LagP99, b.LagP99)
			if len(b.Hist) == 0 {
				continue
			}
			d, err := DecodeHistogram(b.Hist)
			if err != nil {
				return nil, fmt.Errorf("block %d: %w", start+i, err)
			}
			if h == nil {
				h = metrics.NewHistogram()
			}
			h.Merge(d)
		}
		if h != nil {
			var err error
			if j.Hist, err = h.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err != nil {
				return nil, err
			}
		}
		out = append(out, j)
	}
	return out, nil
}
