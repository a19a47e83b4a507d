//go:build (!linux && !freebsd && !openbsd && !dragonfly) || loadlab_portable

package origin

import "errors"

// setCork fails: no cork on this system (see ConnContext: macOS's
// TCP_NOPUSH would hold the end of an answer back, Windows has none), so
// answers are written uncorked.
func setCork(fd uintptr, v int) error { return errors.ErrUnsupported }
