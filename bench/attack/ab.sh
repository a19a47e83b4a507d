#!/usr/bin/env bash
# bench/attack/ab.sh: A/B rounds of loadlab attack variants against a running
# target, alternated so a noisy shared machine hits every variant alike.
# CPU is the generator's task-clock (perf stat), pinned to CPU $GEN_CPU (0);
# each line also has the load average before the run and the lag split of
# bench/attack/lag.py (lag = Sent - Due of every answered request).
#
# Usage: bench/attack/ab.sh RATE TARGETS DURATION BIN:FLAGS...
#   e.g. bench/attack/ab.sh 5000 t.txt 5s ./loadlab:-harvest=true ./loadlab:-harvest=false
# (run.sh starts nginx; for a quick A/B start a target yourself, pinned to
# the other CPU.) ROUNDS=3 by default. Prints one line per run.
# A FLAGS of the form "fifo:-precise" runs that variant under SCHED_FIFO
# (chrt -f 10, root only): the machine's other processes then cannot take
# the generator's CPU, which tells the pacer's own precision from the lag a
# shared machine adds. A diagnostic, not a way loadlab is meant to run.
# COMPETITOR=1 runs bench/attack/duty.py (2 ms busy every 20 ms) on the
# generator's CPU beside every run: another process wanting that CPU now and
# then, as on a machine that is not quite quiet.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../args.sh
. "$here/../args.sh"
[ $# -ge 4 ] || bench_bad bench/attack/ab.sh arguments "want RATE TARGETS DURATION BIN:FLAGS... (at least one variant), got $# arguments"
[ -r "$2" ] || bench_bad bench/attack/ab.sh TARGETS "'$2' is not a readable file"
rate=$1 tf=$2 dur=$3
shift 3
GEN_CPU=${GEN_CPU:-0}
# this script's own processes off the generator's CPU (see run.sh)
taskset -pc "$((1 - GEN_CPU))" $$ >/dev/null 2>&1 || true
# shellcheck source=../steal.sh
. "$here/../steal.sh"
out=$(mktemp -d /tmp/loadlab-ab.XXXXXX)
trap 'rm -rf "$out"' EXIT
for round in $(seq "${ROUNDS:-3}"); do
	for v in "$@"; do
		bin=${v%%:*} fl=${v#*:} prio=()
		case $fl in fifo:*) fl=${fl#fifo:} prio=(chrt -f 10) ;; esac
		load=$(cut -d' ' -f1 /proc/loadavg)
		comp=""
		if [ -n "${COMPETITOR:-}" ]; then
			taskset -c "$GEN_CPU" python3 "$here/duty.py" "${dur%s}.5" &
			comp=$!
		fi
		steal_mark
		# shellcheck disable=SC2086
		taskset -c "$GEN_CPU" perf stat -e task-clock,context-switches -x, -o "$out/perf.txt" \
			"${prio[@]}" "$bin" attack $fl -targets "$tf" -rate "$rate" -duration "$dur" -output "$out/r.bin" >/dev/null
		st=$(steal_since)
		if [ -n "$comp" ]; then wait "$comp" || true; fi
		tc=$(awk -F, '/task-clock/ {print $1}' "$out/perf.txt")
		cs=$(awk -F, '/context-switches/ {print $1}' "$out/perf.txt")
		lag=$("$bin" encode -to json "$out/r.bin" | python3 "$here/lag.py" | tr '\t' ' ')
		"$bin" report -type json "$out/r.bin" | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = d["status_codes"].get("200", 0)
tc, cs = float(sys.argv[1]), float(sys.argv[2])
print("round %s %s%s (load %s, %s): 200s %d, p50 %.2f ms, p99 %.2f ms, CPU-s/100k %.2f, context switches/request %.2f; lag mean / p99 µs %s" % (
    sys.argv[3], sys.argv[6], sys.argv[4], sys.argv[5], sys.argv[8], n, d["latencies"]["50th"] / 1e6, d["latencies"]["99th"] / 1e6,
    tc / 1000 * 100000 / max(n, 1), cs / max(n, 1), sys.argv[7]))' "$tc" "$cs" "$round" "$(basename "$bin") $fl" "$load" "${prio:+fifo }" "$lag" "$st"
	done
done
