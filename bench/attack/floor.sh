#!/usr/bin/env bash
# bench/attack/floor.sh RATE PORT PATH [SECONDS]: the paced CPU goal against
# its floor. Alternates, ROUNDS (2) times, at RATE req/s for SECONDS (5)
# against 127.0.0.1:PORT PATH (start the target yourself, pinned to CPU 1:
# bench/attack/run.sh's nginx, one worker, 1 kB): vegeta (the paced
# reference), loadlab's default pacer, loadlab -precise, and
# bench/attack/floor/floor.c — the least a generator can do to send each
# request at its own due instant — without and with a 30 µs early wake-up
# and spin (what -precise does). Each on CPU $GEN_CPU (0), CPU from perf
# stat's task-clock, in CPU-s per 100k answered requests and as a multiple
# of vegeta's in the same round. With ISOLATE=1 every round runs under
# bench/attack/isolate.sh (CPU 0 to itself). LOADLAB=path picks the binary.
set -euo pipefail
rate=$1 port=$2 path=$3 secs=${4:-5}
GEN_CPU=${GEN_CPU:-0}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../steal.sh
. "$here/../steal.sh"
root=$(cd "$here/../.." && pwd)
out=$(mktemp -d /tmp/loadlab-floor.XXXXXX)
trap 'rm -rf "$out"' EXIT
LL=${LOADLAB:-$out/loadlab}
[ -n "${LOADLAB:-}" ] || (cd "$root" && go build -o "$LL" ./cmd/loadlab)
VEGETA=${VEGETA:-$HOME/.cache/loadlab/vegeta/vegeta}
[ -x "$VEGETA" ] || { echo "floor.sh: vegeta not found (make vegeta)" >&2; exit 2; }
gcc -O2 -Wall -o "$out/floor" "$here/floor/floor.c"
echo "GET http://127.0.0.1:$port$path" >"$out/t.txt"
n=$((rate * secs))

round() {
	local r=$1 v lag
	cpu() { awk -F, -v n="$n" '/task-clock/ {printf "%.2f", $1 / 1000 * 100000 / n}' "$out/p.txt"; }
	steal_mark
	taskset -c "$GEN_CPU" perf stat -e task-clock -x, -o "$out/p.txt" "$VEGETA" attack -targets "$out/t.txt" -rate "$rate" -duration "${secs}s" -timeout 2s -max-body 0 -output "$out/v.bin" >/dev/null
	v=$(cpu)
	echo "| $r | vegeta | $v | 1 | $("$VEGETA" report -type json "$out/v.bin" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["status_codes"].get("200", 0), "answered")'); $(steal_since) |"
	for fl in "" "-precise"; do
		steal_mark
		taskset -c "$GEN_CPU" perf stat -e task-clock -x, -o "$out/p.txt" "$LL" attack $fl -targets "$out/t.txt" -rate "$rate" -duration "${secs}s" -output "$out/r.bin" >/dev/null
		lag=$("$LL" encode -to json "$out/r.bin" | python3 "$here/lag.py" | cut -f1)
		echo "| $r | loadlab $fl | $(cpu) | $(awk -v a="$(cpu)" -v b="$v" 'BEGIN {printf "%.2f", a / b}') | lag mean / p99 $lag µs; $(steal_since) |"
	done
	for spin in 0 30; do
		steal_mark
		taskset -c "$GEN_CPU" perf stat -e task-clock -x, -o "$out/p.txt" "$out/floor" "$port" "$path" "$rate" "$secs" "$spin" >"$out/f.txt"
		echo "| $r | floor.c, spin $spin µs | $(cpu) | $(awk -v a="$(cpu)" -v b="$v" 'BEGIN {printf "%.2f", a / b}') | $(cat "$out/f.txt"); $(steal_since) |"
	done
}

echo "floor.sh $rate/s, ${secs}s, $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)${ISOLATE:+, CPU $GEN_CPU isolated}"
echo "| round | generator | CPU-s/100k | vs vegeta | notes |"
echo "|---|---|---:|---:|---|"
for r in $(seq "${ROUNDS:-2}"); do
	if [ -n "${ISOLATE:-}" ]; then
		export -f round steal_mark steal_since
		export out n rate secs port path GEN_CPU VEGETA LL here
		"$here/isolate.sh" bash -c "round $r"
	else
		round "$r"
	fi
done
