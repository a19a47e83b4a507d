//go:build linux && !(386 || arm || mips || mipsle) && !loadlab_portable

package rawconn

import "syscall"

// sysSendfile is sendfile: its offset is 64 bits wide on 64-bit systems.
const sysSendfile = syscall.SYS_SENDFILE
