package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// commit is the source revision, stamped by `make build`
// (-ldflags "-X main.commit=..."); the Go toolchain's VCS stamp is used
// when it is empty.
var commit string

// version reports the module version stamped by the Go toolchain, or "dev".
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// revision is the commit the binary was built from ("+dirty" when the
// work tree had changes), or "unknown".
func revision() string {
	if commit != "" {
		return commit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return rev
}

// printVersion answers `loadlab version`: what a bug report needs.
func printVersion(w io.Writer) {
	fmt.Fprintf(w, "loadlab %s\ncommit %s\n%s %s/%s\n", version(), revision(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
