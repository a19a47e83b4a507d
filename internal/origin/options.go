package origin

import (
	"os"
	"strings"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/origin/recipe"
)

// Text is what `loadlab origin` reads as text into Options: sizes such as
// "10mb" and origin files as URL=FILE. Each field is named after its flag.
type Text struct {
	MaxRecipeSize   string   // -max-recipe-size
	MaxRecipeMemory string   // -max-recipe-memory
	OfflineSize     string   // -offline-size
	OriginFiles     []string // -origin-file, URL=FILE each
}

// NewOptions returns o with t's sizes and origin files, checked (see
// Validate). An error is bad input naming the flag.
func NewOptions(o Options, t Text) (Options, error) {
	var err error
	if o.MaxRecipeBytes, err = recipe.ParseSize(t.MaxRecipeSize); err != nil {
		return o, badinput.Field("-max-recipe-size", "%v", err)
	}
	o.MaxRecipeMemory, err = recipe.ParseSizeUpTo(t.MaxRecipeMemory, 1<<40)
	if err != nil || o.MaxRecipeMemory <= 0 {
		return o, badinput.Field("-max-recipe-memory", "want a positive size such as 256mb, got %q", t.MaxRecipeMemory)
	}
	o.OfflineSize, err = recipe.ParseSize(t.OfflineSize)
	if err != nil || o.OfflineSize <= 0 {
		return o, badinput.Field("-offline-size", "want a size from 1b to %dmb, got %q", recipe.MaxBodySize>>20, t.OfflineSize)
	}
	o.OriginFiles = map[string]string{}
	for _, m := range t.OriginFiles {
		u, file, ok := strings.Cut(m, "=")
		if !ok || u == "" || file == "" {
			return o, badinput.Field("-origin-file", "want URL=FILE, got %q", m)
		}
		o.OriginFiles[u] = file
	}
	return o, o.Validate()
}

// Validate checks o as New would use it: sizes within their bounds (0
// takes the default) and origin files that can be read. An error is bad
// input naming the flag of `loadlab origin` that sets the field.
func (o Options) Validate() error {
	if o.MaxRecipeBytes < 0 || o.MaxRecipeBytes > recipe.MaxBodySize {
		return badinput.Field("-max-recipe-size", "want a size from 1b to %dmb, got %d bytes", recipe.MaxBodySize>>20, o.MaxRecipeBytes)
	}
	if o.MaxRecipeMemory < 0 || o.MaxRecipeMemory > 1<<40 {
		return badinput.Field("-max-recipe-memory", "want a positive size such as 256mb, got %d bytes", o.MaxRecipeMemory)
	}
	if o.OfflineSize < 0 || o.OfflineSize > recipe.MaxBodySize {
		return badinput.Field("-offline-size", "want a size from 1b to %dmb, got %d bytes", recipe.MaxBodySize>>20, o.OfflineSize)
	}
	for u, file := range o.OriginFiles {
		if u == "" || file == "" {
			return badinput.Field("-origin-file", "want URL=FILE, got %q", u+"="+file)
		}
		if _, err := os.Stat(file); err != nil {
			return badinput.Field("-origin-file", "cannot read %s: %v", file, err)
		}
	}
	return nil
}
