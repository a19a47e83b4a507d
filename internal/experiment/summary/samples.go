package summary

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Sample is one reading of a sampled series during a step, as
// samples.json and samples.csv hold it.
type Sample struct {
	Time   float64 `json:"time_unix"` // seconds since 1970
	Step   int     `json:"step"`      // the step's index + 1
	Series string  `json:"series"`
	Unit   string  `json:"unit,omitempty"`
	Value  float64 `json:"value"`
}

// At is the sample's time.
func (s Sample) At() time.Time {
	sec := int64(s.Time)
	return time.Unix(sec, int64((s.Time-float64(sec))*1e9))
}

// WriteSamples writes dir/samples.csv and dir/samples.json.
func WriteSamples(dir string, rows []Sample) error {
	f, err := os.Create(filepath.Join(dir, "samples.csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	w := csv.NewWriter(bw)
	w.Write([]string{"time_unix", "step", "series", "unit", "value"})
	for _, s := range rows {
		w.Write([]string{strconv.FormatFloat(s.Time, 'f', 3, 64), strconv.Itoa(s.Step), s.Series, s.Unit, strconv.FormatFloat(s.Value, 'g', 6, 64)})
	}
	w.Flush()
	if err := bw.Flush(); err != nil {
		return err
	}
	js, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "samples.json"), js, 0o644)
}

// LoadSamples reads dir/samples.json (none when the file is missing).
func LoadSamples(dir string) ([]Sample, error) {
	data, err := os.ReadFile(filepath.Join(dir, "samples.json"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rows []Sample
	if err := json.Unmarshal(data, &rows); err != nil {
		return nil, err
	}
	return rows, nil
}
