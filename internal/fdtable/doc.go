// Package fdtable grows the process's file descriptor table ahead of load.
//
// Linux doubles a process's descriptor table when a new descriptor does
// not fit (at 64, 256, 512, 1,024, ...). In a multi-threaded process, as
// every Go program is, each doubling waits for an RCU grace period before
// the old table is freed, and the threads opening or accepting sockets
// meanwhile wait on it: on a 2-vCPU VM every doubling stopped the whole
// process for 10-17 ms (`perf trace`: socket() calls of 12-17 ms returning
// descriptors 256, 512 and 1,024). A generator opening a thousand
// connections in its first second lost its schedule three times, and a
// proxy or origin accepting them stalled as often. Reserve pays for the
// growth once, at start, before anything is timed.
package fdtable
