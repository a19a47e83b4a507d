// Package harvest keeps a paced client's sockets out of the Go runtime's
// network poller. The runtime wakes the process for every response that
// arrives; at a few thousand requests per second each such wake-up costs
// more CPU than the request itself (on a VM, a timer reprogramming and an
// interrupt per wake-up). Here the owner collects the sockets' readiness
// when it is awake anyway (Poller.Harvest, called by the attack's pacer at
// each due time) and only then are the waiting readers resumed.
//
// Reading late does not make latencies late: every read carries the
// kernel's receive timestamp (SO_TIMESTAMPNS), and Conn.Received says when
// the bytes of the last read reached the machine, not when they were read.
//
// Answers larger than a connection's starting receive window are the
// exception: their sender stalls until the reader reads, so a connection
// whose last answer was large has its next one read as soon as it
// arrives (see largeAnswer).
//
// Linux only; elsewhere New fails and callers use net.Conn.
package harvest
