package plot

// Class is the status class of a response, which picks the colour of its
// dot on a latency chart and of its line on a status chart.
type Class uint8

// Status classes, in drawing order.
const (
	Class2xx Class = iota
	Class3xx
	Class4xx
	Class5xx
	ClassError // no response (code 0) or a code outside 100..599
)

// ClassOf returns the class of an HTTP status code.
func ClassOf(code uint16) Class {
	switch {
	case code >= 200 && code < 300:
		return Class2xx
	case code >= 300 && code < 400:
		return Class3xx
	case code >= 400 && code < 500:
		return Class4xx
	case code >= 500 && code < 600:
		return Class5xx
	case code >= 100 && code < 200:
		return Class2xx // informational codes never end a request; count them as answered
	}
	return ClassError
}

// String names the class as the legend shows it.
func (c Class) String() string {
	switch c {
	case Class2xx:
		return "2xx"
	case Class3xx:
		return "3xx"
	case Class4xx:
		return "4xx"
	case Class5xx:
		return "5xx"
	}
	return "error"
}

// Color is the class's colour: green for success as in vegeta plot, red for
// server errors, purple for requests that got no response.
func (c Class) Color() string {
	switch c {
	case Class2xx:
		return "#2ca02c"
	case Class3xx:
		return "#1f77b4"
	case Class4xx:
		return "#ff7f0e"
	case Class5xx:
		return "#d62728"
	}
	return "#9467bd"
}

// Shades are the class's colours for the lines of its status codes: the
// class colour first, then darker and lighter shades of the same hue, so
// a 503 beside a 500 is another red and never reads as a success.
func (c Class) Shades() []string {
	switch c {
	case Class2xx:
		return []string{"#2ca02c", "#1b6e1b", "#7fcf6f", "#0f4d0f"}
	case Class3xx:
		return []string{"#1f77b4", "#0d4a75", "#6baed6", "#08306b"}
	case Class4xx:
		return []string{"#ff7f0e", "#b35806", "#fdb863", "#7f3b08"}
	case Class5xx:
		return []string{"#d62728", "#8b0000", "#ff6f61", "#e7298a"}
	}
	return []string{"#9467bd", "#54278f", "#bcbddc", "#3f007d"}
}

// CodeColor is the colour of one status code's line: the nth code of its
// class gets the class's nth shade.
func CodeColor(code uint16, nthInClass int) string {
	sh := ClassOf(code).Shades()
	return sh[nthInClass%len(sh)]
}

// ClassShades lists every class's shades by its name ("2xx" ... "error"),
// for pages that colour status codes in the browser (the live view).
func ClassShades() map[string][]string {
	out := map[string][]string{}
	for c := Class2xx; c <= ClassError; c++ {
		out[c.String()] = c.Shades()
	}
	return out
}
