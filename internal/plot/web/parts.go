package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"

	"github.com/loadlab/loadlab/internal/plot"
)

// ChartData is the charts as the page script reads them
// (window.LOADLAB_CHARTS): chart i is drawn into the element whose id is
// "chart-i". Pages built elsewhere (the run's report) place those
// elements themselves and load ChartScript after this data.
func ChartData(cs []plot.Chart) (template.JS, error) {
	if len(cs) == 0 {
		return "[]", nil
	}
	specs := make([]chartSpec, len(cs))
	for i, c := range cs {
		specs[i] = spec(c)
	}
	var js bytes.Buffer
	enc := json.NewEncoder(&js) // escapes <, > and & so no "</script>" can appear
	if err := enc.Encode(specs); err != nil {
		return "", fmt.Errorf("encoding chart data: %w", err)
	}
	return template.JS(bytes.TrimSpace(js.Bytes())), nil
}

// ChartScript is the script that draws window.LOADLAB_CHARTS with uPlot
// (zoom, hover, legend, resize, every <details> opened for printing).
func ChartScript() template.JS { return template.JS(pageJS) }
