// Package results defines the Result record every request produces, the
// Sink every consumer of results implements (Tee hands one result to
// several), and the loadlab results stream: an append-only, compact,
// checksummed file format that can be followed while it is written and
// survives a SIGKILL. StreamSink writes the stream during an attack,
// flushing it periodically.
//
// Results flow one way: targets -> attack -> results (a Sink: the stream
// being written, the progress line) -> metrics (a Sink) -> report, plot and
// compare.
//
// # Stream format (version 2; version 1 is still read)
//
// A stream is a file header followed by blocks:
//
//	header: "LOADLAB\n" | uvarint version | uvarint len | Meta as JSON
//	block:  sync marker (16 bytes) | uvarint zlen | uvarint rawlen | uvarint nrecords |
//	        crc32c(le32) of the three uvarints and the payload | payload
//
// The payload is zstd-compressed. Decompressed, it holds the dictionary
// entries this block uses, each with its id (errors, attack names,
// targets), and then the records, delta-encoded against the previous
// record of the same block, so each block decodes on its own and a reader
// can skip a damaged block to the next sync marker (Reader.Resync).
// Version 1 blocks start with "LLB1" and carry only the entries first used
// in them.
//
// Each record is: flags byte, seq delta (zigzag), due delta in ns (zigzag),
// send lag in ns (zigzag), latency in ns, status code, bytes in, bytes out,
// attack id, target id, step, then the error id, body and headers when the
// flags say they are present. A typical record takes 3-6 bytes once
// compressed (see docs/results-format.md for measured figures).
//
// Blocks are written with a single write each, so after a crash every
// complete block is readable; the Reader reports a torn or corrupt tail with
// its byte offset instead of failing, and everything before it is returned.
package results
