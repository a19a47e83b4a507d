package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/loadlab/loadlab/internal/metrics"
)

// WriteHist writes h in vegeta's `-type hist[...]` layout. Latencies below
// the first bound (which vegeta silently files in the last bucket) are
// reported on a line of their own after the table.
func WriteHist(w io.Writer, h *metrics.Hist) error {
	tw := newTabWriter(w)
	if _, err := fmt.Fprintf(tw, "Bucket\t\t#\t%%\tHistogram\n"); err != nil {
		return err
	}
	for i, count := range h.Counts {
		ratio := 0.0
		if h.Total > 0 {
			ratio = float64(count) / float64(h.Total)
		}
		lo, hi := h.Buckets.Nth(i)
		pad := strings.Repeat("#", int(ratio*75))
		if _, err := fmt.Fprintf(tw, "[%s,\t%s]\t%d\t%.2f%%\t%s\n", lo, hi, count, ratio*100, pad); err != nil {
			return err
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if h.Below > 0 {
		_, err := fmt.Fprintf(w, "(%d requests below %s, the first bucket, are not in the table)\n", h.Below, h.Buckets[0])
		return err
	}
	return nil
}

// logarithmic are the quantiles of vegeta's hdrplot report.
var logarithmic = []float64{
	0.00, 0.100, 0.200, 0.300, 0.400, 0.500, 0.550, 0.600, 0.650, 0.700, 0.750, 0.775, 0.800, 0.825, 0.850,
	0.875, 0.8875, 0.900, 0.9125, 0.925, 0.9375, 0.94375, 0.950, 0.95625, 0.9625, 0.96875, 0.971875, 0.975,
	0.978125, 0.98125, 0.984375, 0.985938, 0.9875, 0.989062, 0.990625, 0.992188, 0.992969, 0.99375, 0.994531,
	0.995313, 0.996094, 0.996484, 0.996875, 0.997266, 0.997656, 0.998047, 0.998242, 0.998437, 0.998633,
	0.998828, 0.999023, 0.999121, 0.999219, 0.999316, 0.999414, 0.999512, 0.999561, 0.999609, 0.999658,
	0.999707, 0.999756, 0.99978, 0.999805, 0.999829, 0.999854, 0.999878, 0.99989, 0.999902, 0.999915,
	0.999927, 0.999939, 0.999945, 0.999951, 0.999957, 0.999963, 0.999969, 0.999973, 0.999976, 0.999979,
	0.999982, 0.999985, 0.999986, 0.999988, 0.999989, 0.999991, 0.999992, 0.999993, 0.999994, 0.999995,
	0.999996, 0.999997, 0.999998, 0.999999, 1.0,
}

// WriteHDRPlot writes m's latency distribution in vegeta's `-type hdrplot`
// layout (HdrHistogram's percentile distribution format, plottable at
// hdrhistogram.github.io/HdrHistogram/plotFiles.html).
func WriteHDRPlot(w io.Writer, m *metrics.Metrics) error {
	tw := newTabWriter(w)
	if _, err := fmt.Fprintf(tw, "Value(ms)\tPercentile\tTotalCount\t1/(1-Percentile)\n"); err != nil {
		return err
	}
	total := float64(m.Latencies.Count)
	for _, q := range logarithmic {
		value := milliseconds(m.Quantile(q))
		oneBy := float64(10000000)
		if q < 1 {
			oneBy = 1 / (1 - q)
		}
		count := int64((q * total) + 0.5)
		if _, err := fmt.Fprintf(tw, "%f\t%f\t%d\t%f\n", value, q, count, oneBy); err != nil {
			return err
		}
	}
	return tw.Flush()
}
