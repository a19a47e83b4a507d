package results

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// fuzzSeeds adds the first bytes of the vegeta vectors and a loadlab stream.
func fuzzSeeds(f *testing.F, files ...string) {
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join("testdata", "vegeta", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:min(len(data), 4096)])
	}
}

// drain decodes at most n results so fuzzing stays bounded.
func drain(d Decoder, n int) {
	var r Result
	for i := 0; i < n; i++ {
		if d.Decode(&r) != nil {
			return
		}
	}
}

func FuzzOpen(f *testing.F) {
	fuzzSeeds(f, "withbody.bin", "withbody.csv", "withbody.json")
	f.Add(encodeAll(f, sample(20, 100)))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := OpenReader(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		drain(s, 10_000)
		s.Close()
	})
}

func FuzzCSVDecoder(f *testing.F) {
	fuzzSeeds(f, "withbody.csv", "mixed.csv")
	f.Add([]byte("1,200,5,0,0,,,,0\n"))
	f.Fuzz(func(t *testing.T, data []byte) { drain(NewCSVDecoder(bytes.NewReader(data)), 10_000) })
}

func FuzzJSONDecoder(f *testing.F) {
	fuzzSeeds(f, "withbody.json", "mixed.json")
	f.Fuzz(func(t *testing.T, data []byte) { drain(NewJSONDecoder(bytes.NewReader(data)), 10_000) })
}

func FuzzGobDecoder(f *testing.F) {
	fuzzSeeds(f, "withbody.bin", "mixed.bin")
	f.Fuzz(func(t *testing.T, data []byte) { drain(NewGobDecoder(bytes.NewReader(data)), 10_000) })
}
