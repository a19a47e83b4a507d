#!/usr/bin/env bash
# bench/attack/isolate.sh CMD...: runs CMD with CPU 0 to itself: every other
# task of the machine is moved into a cpuset of CPU 1 for the duration (cgroup
# v1 cpuset, root only), and moved back when CMD ends. Kernel threads bound
# to CPU 0 stay. A diagnostic: it tells what the generator does when no
# other process can take its CPU, without the real-time priority of
# ab.sh's fifo: variants. Other processes share CPU 1 meanwhile (the target
# pinned there too), so latencies through the target are not comparable
# with a quiet machine's; the generator's lag and CPU are.
set -u
cs=/sys/fs/cgroup/cpuset
if [ ! -w "$cs/tasks" ]; then
	echo "isolate.sh: needs root and a cgroup v1 cpuset at $cs" >&2
	exit 2
fi
mkdir -p "$cs/ll-others" "$cs/ll-bench"
echo 1 >"$cs/ll-others/cpuset.cpus" && echo 0 >"$cs/ll-others/cpuset.mems"
echo 0 >"$cs/ll-bench/cpuset.cpus" && echo 0 >"$cs/ll-bench/cpuset.mems"
restore() {
	for _ in 1 2 3; do
		for t in $(cat "$cs/ll-others/tasks" "$cs/ll-bench/tasks" 2>/dev/null); do echo "$t" >"$cs/tasks" 2>/dev/null; done
	done
	rmdir "$cs/ll-others" "$cs/ll-bench" 2>/dev/null
}
trap restore EXIT
echo $$ >"$cs/ll-bench/tasks"
# three passes: tasks forked while moving are caught by the next
for _ in 1 2 3; do
	for t in $(cat "$cs/tasks"); do
		[ "$t" = "$$" ] || echo "$t" >"$cs/ll-others/tasks" 2>/dev/null
	done
done
echo "isolate.sh: CPU 0 to this command; $(wc -l <"$cs/ll-others/tasks") tasks moved to CPU 1, $(wc -l <"$cs/tasks") (kernel threads) left" >&2
"$@"
