// Package portability keeps loadlab building on every platform it
// supports. It has no code of its own, only a test: that test
// cross-compiles loadlab for each platform (Linux on amd64, arm64, 386 and
// arm, macOS on arm64 and amd64, Windows and FreeBSD on amd64; `make
// portability`) and type-checks every package and test there with go vet,
// and fails naming the platform and the compiler's first error. `make
// test` runs a cheaper part of it: macOS and Windows for the packages that
// call the system. The Linux-only fast paths
// (raw system calls, kernel receive timestamps, TCP_CORK, timerfd, the
// epoll harvest, the EEVDF slice, sock_diag) sit in _linux.go files beside
// an _other.go file with the portable fallback of the same name; this test
// is what notices a new one without its fallback.
//
// The build tag loadlab_portable selects the _other.go files on Linux too,
// so that the fallbacks run here for real: `make test` runs the lean
// client and server, the attack and the proxy's pool through them
// (PORTABLE_PKGS in the Makefile), and this test vets the whole module so
// built.
package portability
