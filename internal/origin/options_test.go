package origin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadlab/loadlab/internal/badinput"
)

// TestNewOptionsNamesTheFlag: the sizes and origin files `loadlab origin`
// reads as text become Options, and what is wrong is bad input naming its
// flag.
func TestNewOptionsNamesTheFlag(t *testing.T) {
	page := filepath.Join(t.TempDir(), "news.html")
	if err := os.WriteFile(page, []byte("<p>news</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := Text{MaxRecipeSize: "10mb", MaxRecipeMemory: "256mb", OfflineSize: "100kb", OriginFiles: []string{"https://www.bbc.co.uk/news=" + page}}
	o, err := NewOptions(Options{Seed: 7}, good)
	if err != nil {
		t.Fatal(err)
	}
	if o.Seed != 7 || o.MaxRecipeBytes != 10<<20 || o.MaxRecipeMemory != 256<<20 || o.OfflineSize != 100<<10 || o.OriginFiles["https://www.bbc.co.uk/news"] != page {
		t.Errorf("options %+v", o)
	}
	for _, c := range []struct {
		name string
		edit func(*Text)
		want string
	}{
		{"recipe size", func(t *Text) { t.MaxRecipeSize = "lots" }, "-max-recipe-size"},
		{"memory zero", func(t *Text) { t.MaxRecipeMemory = "0" }, "-max-recipe-memory"},
		{"offline size too big", func(t *Text) { t.OfflineSize = "1gb" }, "-offline-size"},
		{"origin file without URL", func(t *Text) { t.OriginFiles = []string{page} }, "-origin-file: want URL=FILE"},
		{"origin file missing", func(t *Text) { t.OriginFiles = []string{"https://x.invalid/=" + page + ".gone"} }, "-origin-file: cannot read"},
	} {
		bad := good
		c.edit(&bad)
		_, err := NewOptions(Options{}, bad)
		if !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want bad input saying %q", c.name, err, c.want)
		}
	}
	if err := (Options{OfflineSize: -1}).Validate(); !badinput.Is(err) || !strings.Contains(err.Error(), "-offline-size") {
		t.Errorf("a negative offline size: %v", err)
	}
}
