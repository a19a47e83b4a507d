// Package probe measures what the machine does to a load generator while
// it runs: the generator's own CPU, how often it saturated a core, and
// the machine's busy and steal shares (runblock.Health's machine part).
// A Probe is one goroutine waking every Every (4 times a second) to read
// the process's CPU time and /proc/stat: about 70 µs a wake-up on a busy
// 2-core machine, 0.03% of a core.
//
// It also holds the one reader of /proc CPU times loadlab has (the
// experiment's samplers use it too). Where there is no /proc, or the
// process's CPU time cannot be read (non-Linux, or built with the
// loadlab_portable tag), the shares it cannot measure are Unknown.
package probe
