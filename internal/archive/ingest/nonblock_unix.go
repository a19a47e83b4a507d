//go:build unix

package ingest

import "syscall"

// openNonblock opens without waiting: a FIFO opens at once (and is then
// refused as not a regular file) instead of waiting for a writer.
const openNonblock = syscall.O_NONBLOCK
