package writeup

import (
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// Said is the findings as a terminal lists them after a run: each once,
// in order, but the model's explanations and misses of single steps said
// once per mechanism with the steps listed, as the report's model section
// says them (the first of them takes their place).
func Said(fs []summary.Finding) []string {
	var out, misses, explained []string
	at := -1
	for _, fd := range fs {
		switch {
		case fd.Kind == summary.KindPrediction && strings.HasPrefix(fd.Text, "In step "):
			misses = append(misses, fd.String())
		case fd.Kind == summary.KindModel:
			explained = append(explained, fd.String())
		default:
			out = append(out, fd.String())
			continue
		}
		if at < 0 {
			at = len(out)
		}
	}
	if at < 0 {
		return out
	}
	grouped, _ := sayModel(misses, explained, "Missed in", "in the report")
	return append(out[:at], append(grouped, out[at:]...)...)
}
