// Package rawconn reads and writes TCP connections with raw system calls
// through the runtime poller (syscall.RawConn): deadlines and readiness
// waits work as with net.Conn, but a read or write does not enter the Go
// scheduler's syscall state, which wakes the runtime's sysmon thread and
// resets it to its fastest polling: at thousands of requests per second
// those wake-ups dominate the CPU of the attack's lean client and of the
// origin's lean server (bench/HISTORY.md has the figures); both use this
// package.
// Stamped reads bring the kernel's receive time of the bytes
// (SO_TIMESTAMPNS): the origin anchors a latency on the request's arrival,
// the attack's harvested connections end a latency on the answer's.
// Linux only: elsewhere New returns nil and callers keep net.Conn (as on
// Linux with -tags loadlab_portable, see package portability). On 32-bit
// x86 the raw calls need Linux 4.3 or later (recvmsg and sendto as calls
// of their own).
package rawconn
