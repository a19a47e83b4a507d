package plot

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Layout of an SVG chart, in pixels.
const (
	marginLeft   = 68
	marginTop    = 38
	marginBottom = 48
	legendWidth  = 190
	maxLegend    = 28 // characters of a legend entry before it is cut
)

// WriteSVG renders c as a standalone SVG document.
func WriteSVG(w io.Writer, c Chart) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	W, H := c.Size()
	x0, y0 := float64(marginLeft), float64(marginTop)
	x1, y1 := float64(W-legendWidth-16), float64(H-marginBottom)
	pw, ph := x1-x0, y1-y0

	xlo, xhi, xok := c.dataRange(true, c.X.Scale == Log)
	ylo, yhi, yok := c.dataRange(false, c.Y.Scale == Log)
	xa := resolve(c.X, xlo, xhi, xok, 8)
	ya := resolve(c.Y, ylo, yhi, yok, 6)
	px := func(v float64) float64 { return x0 + xa.pos(v)*pw }
	py := func(v float64) float64 { return y1 - ya.pos(v)*ph }

	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica,Arial,sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(bw, `<rect width="%d" height="%d" fill="#fff"/>`+"\n", W, H)
	if c.Title != "" {
		fmt.Fprintf(bw, `<text x="%g" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", x0, esc(c.Title))
	}

	// Grid and tick labels.
	bw.WriteString(`<g stroke="#e4e4e4" stroke-width="1">` + "\n")
	for _, t := range xa.ticks {
		x := px(t.Value)
		fmt.Fprintf(bw, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", f1(x), f1(y0), f1(x), f1(y1))
	}
	for _, t := range ya.ticks {
		y := py(t.Value)
		fmt.Fprintf(bw, `<line x1="%s" y1="%s" x2="%s" y2="%s"/>`+"\n", f1(x0), f1(y), f1(x1), f1(y))
	}
	bw.WriteString("</g>\n")
	fmt.Fprintf(bw, `<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#888"/>`+"\n", f1(x0), f1(y0), f1(pw), f1(ph))
	bw.WriteString(`<g fill="#333" text-anchor="middle">` + "\n")
	for _, t := range xa.ticks {
		fmt.Fprintf(bw, `<text x="%s" y="%s">%s</text>`+"\n", f1(px(t.Value)), f1(y1+16), esc(t.Label))
	}
	bw.WriteString("</g>\n")
	bw.WriteString(`<g fill="#333" text-anchor="end">` + "\n")
	for _, t := range ya.ticks {
		fmt.Fprintf(bw, `<text x="%s" y="%s">%s</text>`+"\n", f1(x0-6), f1(py(t.Value)+4), esc(t.Label))
	}
	bw.WriteString("</g>\n")
	if c.X.Label != "" {
		fmt.Fprintf(bw, `<text x="%s" y="%d" text-anchor="middle" fill="#333">%s</text>`+"\n", f1(x0+pw/2), H-10, esc(c.X.Label))
	}
	if c.Y.Label != "" {
		fmt.Fprintf(bw, `<text transform="translate(16 %s) rotate(-90)" text-anchor="middle" fill="#333">%s</text>`+"\n", f1(y0+ph/2), esc(c.Y.Label))
	}

	// Data, clipped to the plot area by a nested svg viewport.
	colors := c.Colors()
	// The viewport reaches a few pixels past the frame so that dots on
	// the edges are drawn whole.
	const pad = 4
	fmt.Fprintf(bw, `<svg x="%s" y="%s" width="%s" height="%s" viewBox="%s %s %s %s" overflow="hidden">`+"\n",
		f1(x0-pad), f1(y0-pad), f1(pw+2*pad), f1(ph+2*pad), f1(x0-pad), f1(y0-pad), f1(pw+2*pad), f1(ph+2*pad))
	for i, s := range c.Series {
		writeSeries(bw, s, colors[i], px, py)
	}
	bw.WriteString("</svg>\n")

	// Legend.
	lx := x1 + 16
	for i, s := range c.Series {
		ly := y0 + 8 + float64(i)*18
		if ly > float64(H-8) {
			fmt.Fprintf(bw, `<text x="%s" y="%s" fill="#333">… %d more</text>`+"\n", f1(lx), f1(ly), len(c.Series)-i)
			break
		}
		if s.Kind == Scatter {
			fmt.Fprintf(bw, `<circle cx="%s" cy="%s" r="4" fill="%s"/>`, f1(lx+7), f1(ly-4), colors[i])
		} else {
			fmt.Fprintf(bw, `<rect x="%s" y="%s" width="14" height="3" fill="%s"/>`, f1(lx), f1(ly-5), colors[i])
		}
		fmt.Fprintf(bw, `<text x="%s" y="%s" fill="#333">%s</text>`+"\n", f1(lx+20), f1(ly), esc(cut(s.Name, maxLegend)))
	}
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

// writeSeries draws one series as a single path element.
func writeSeries(bw *bufio.Writer, s Series, color string, px, py func(float64) float64) {
	if len(s.Points) == 0 {
		return
	}
	var d []byte
	switch s.Kind {
	case Scatter:
		// Each dot is a zero-length segment drawn with a round cap.
		for _, p := range s.Points {
			if !finite(p.X) || !finite(p.Y) {
				continue
			}
			d = append(d, 'M')
			d = appendF1(d, px(p.X))
			d = append(d, ' ')
			d = appendF1(d, py(p.Y))
			d = append(d, 'h', '0')
		}
		fmt.Fprintf(bw, `<path fill="none" stroke="%s" stroke-width="3.5" stroke-linecap="round" stroke-opacity="0.75" d="%s"/>`+"\n", color, d)
	default:
		pen := false
		for _, p := range s.Points {
			if !finite(p.X) || !finite(p.Y) {
				pen = false
				continue
			}
			x, y := px(p.X), py(p.Y)
			switch {
			case !pen:
				d = append(d, 'M')
			case s.Kind == Step:
				d = append(d, 'H')
				d = appendF1(d, x)
				d = append(d, 'V')
				d = appendF1(d, y)
				continue
			default:
				d = append(d, 'L')
			}
			d = appendF1(d, x)
			d = append(d, ' ')
			d = appendF1(d, y)
			pen = true
		}
		fmt.Fprintf(bw, `<path fill="none" stroke="%s" stroke-width="1.6" stroke-linejoin="round" d="%s"/>`+"\n", color, d)
		if s.Dots {
			d = d[:0]
			for _, p := range s.Points {
				if finite(p.X) && finite(p.Y) {
					d = append(d, 'M')
					d = appendF1(d, px(p.X))
					d = append(d, ' ')
					d = appendF1(d, py(p.Y))
					d = append(d, 'h', '0')
				}
			}
			fmt.Fprintf(bw, `<path fill="none" stroke="%s" stroke-width="4.5" stroke-linecap="round" d="%s"/>`+"\n", color, d)
		}
	}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func f1(v float64) string { return string(appendF1(nil, v)) }

func appendF1(b []byte, v float64) []byte {
	return strconv.AppendFloat(b, math.Round(v*10)/10, 'f', -1, 64)
}

// esc escapes s for XML text and attributes, replacing invalid UTF-8 and
// characters XML forbids with U+FFFD.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
