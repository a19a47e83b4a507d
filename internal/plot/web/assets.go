package web

import _ "embed"

// uPlot's minified IIFE build and stylesheet, copied from the npm package
// pinned in web/package.json by scripts/update-uplot.sh.
var (
	//go:embed assets/uPlot.iife.min.js
	uplotJS string
	//go:embed assets/uPlot.min.css
	uplotCSS string
	//go:embed assets/uPlot.VERSION
	uplotVersion string
)

// UPlotVersion is the version of the embedded uPlot.
func UPlotVersion() string {
	v := uplotVersion
	for len(v) > 0 && (v[len(v)-1] == '\n' || v[len(v)-1] == '\r') {
		v = v[:len(v)-1]
	}
	return v
}

// Assets are the pieces every loadlab page shares: uPlot's script and
// stylesheet and the pages' own stylesheet, for pages built elsewhere (the
// live view) to look like report.html.
type Assets struct {
	UPlotJS, UPlotCSS, PageCSS string
}

// SharedAssets returns the shared page assets.
func SharedAssets() Assets { return Assets{UPlotJS: uplotJS, UPlotCSS: uplotCSS, PageCSS: pageCSS} }
