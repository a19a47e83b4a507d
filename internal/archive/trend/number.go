package trend

import "github.com/loadlab/loadlab/internal/verdict"

// Number is a figure that encodes in JSON as null when it is not finite
// (an interval that could not be computed, a change from zero).
type Number = verdict.Number
