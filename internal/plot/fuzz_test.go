package plot

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"testing"
)

// FuzzWriteSVG renders charts with arbitrary names and values (NaN, Inf,
// huge, negative) on every scale: the output must always be well-formed XML.
func FuzzWriteSVG(f *testing.F) {
	f.Add("latency </svg> & \"q\"", 0.0, 1.0, 2.0, 3.0, uint8(0), uint8(0))
	f.Add("pct", 0.0, 99.9, 50.0, 1e9, uint8(1), uint8(2))
	f.Add("nan", math.NaN(), math.Inf(1), math.Inf(-1), -5.0, uint8(2), uint8(1))
	f.Add("\xff\xfe bad utf8", 1e300, -1e300, 5e-324, 0.0, uint8(3), uint8(0))
	f.Add("overflowing range", -1.7e308, 1.7e308, 1.7e308, -1.7e308, uint8(1), uint8(3))
	f.Fuzz(func(t *testing.T, name string, x1, y1, x2, y2 float64, kind, scale uint8) {
		c := Chart{
			Title: name,
			X:     Axis{Label: name, Scale: Scale(scale % 3)},
			Y:     Axis{Label: name, Scale: Scale((scale / 3) % 3)},
			Series: []Series{
				{Name: name, Kind: Kind(kind % 3), Dots: kind&4 != 0, Points: []Point{{x1, y1}, {x2, y2}, {x1 + x2, y1 * y2}}},
				{Name: "", Kind: Scatter},
			},
		}
		if c.Y.Scale == PercentileLog {
			c.Y.Scale = Log
		}
		var buf bytes.Buffer
		if err := WriteSVG(&buf, c); err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(&buf)
		for {
			_, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("not well-formed: %v\n%s", err, buf.String())
			}
		}
	})
}
