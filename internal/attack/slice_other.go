//go:build !linux || loadlab_portable

package attack

// useShortSlice asks for a short scheduler time slice on Linux (see
// slice_linux.go); elsewhere there is nothing to ask.
func useShortSlice() (release func()) { return func() {} }
