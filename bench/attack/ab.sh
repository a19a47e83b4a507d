#!/usr/bin/env bash
# bench/attack/ab.sh: A/B rounds of loadlab attack variants against a running
# target, alternated so a noisy shared machine hits every variant alike.
# CPU is the generator's task-clock (perf stat), pinned to CPU $GEN_CPU (0).
#
# Usage: bench/attack/ab.sh RATE TARGETS DURATION BIN:FLAGS...
#   e.g. bench/attack/ab.sh 5000 t.txt 5s ./loadlab:-harvest=true ./loadlab:-harvest=false
# (run.sh starts nginx; for a quick A/B start a target yourself, pinned to
# the other CPU.) ROUNDS=3 by default. Prints one line per run.
set -euo pipefail
rate=$1 tf=$2 dur=$3
shift 3
GEN_CPU=${GEN_CPU:-0}
out=$(mktemp -d /tmp/loadlab-ab.XXXXXX)
trap 'rm -rf "$out"' EXIT
for round in $(seq "${ROUNDS:-3}"); do
	for v in "$@"; do
		bin=${v%%:*} fl=${v#*:}
		# shellcheck disable=SC2086
		taskset -c "$GEN_CPU" perf stat -e task-clock,context-switches -x, -o "$out/perf.txt" \
			"$bin" attack $fl -targets "$tf" -rate "$rate" -duration "$dur" -output "$out/r.bin"
		tc=$(awk -F, '/task-clock/ {print $1}' "$out/perf.txt")
		cs=$(awk -F, '/context-switches/ {print $1}' "$out/perf.txt")
		"$bin" report -type json "$out/r.bin" | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = d["status_codes"].get("200", 0)
tc, cs = float(sys.argv[1]), float(sys.argv[2])
print("round %s %s: 200s %d, p50 %.2f ms, p99 %.2f ms, CPU-s/100k %.2f, context switches/request %.2f" % (
    sys.argv[3], sys.argv[4], n, d["latencies"]["50th"] / 1e6, d["latencies"]["99th"] / 1e6,
    tc / 1000 * 100000 / max(n, 1), cs / max(n, 1)))' "$tc" "$cs" "$round" "$(basename "$bin") $fl"
	done
done
