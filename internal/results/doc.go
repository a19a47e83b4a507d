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
// # Stream format (version 1)
//
// A stream is a file header followed by blocks:
//
//	header: "LOADLAB\n" | uvarint version | uvarint len | Meta as JSON
//	block:  "LLB1" | uvarint zlen | uvarint rawlen | uvarint nrecords |
//	        crc32c(le32) of the three uvarints and the payload | payload
//
// The payload is zstd-compressed. Decompressed, it holds the dictionary
// entries first used in this block (errors, attack names, targets) and then
// the records, delta-encoded against the previous record of the same block so
// each block can be decoded once the dictionaries before it are known.
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
