//go:build !unix

package ingest

// openNonblock is nothing where files have no FIFOs to wait on.
const openNonblock = 0
