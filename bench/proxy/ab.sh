#!/usr/bin/env bash
# Interleaved A/B of two loadlab builds as proxies (CPU per proxied request):
# one open-loop attack alternates its requests between proxy A and proxy B,
# both in front of the same 0 ms origin (600 B), so both see the same
# machine at the same moment; the proxies are pinned to CPU 1, the origin
# and the generator to CPU 0. On a shared machine this resolves about 1%
# (A/A runs gave 1.000, 1.000 and 1.005), where the one-path-after-another
# rounds of run.sh move by 5-15% from run to run; run it both ways round.
# Needs: go-built loadlab binaries, taskset (util-linux), python3, curl.
# Usage: bench/proxy/ab.sh A-binary B-binary [seconds-per-round] [rounds]
#   RATE (default 4000) is the rate of the whole attack (half to each).
set -euo pipefail
A=$1
B=$2
DUR=${3:-5}
ROUNDS=${4:-4}
RATE=${RATE:-4000}
for t in taskset python3 curl; do
  command -v "$t" >/dev/null || { echo "bench/proxy/ab.sh: $t not found" >&2; exit 2; }
done
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# wait_url FILE: waits for "listening on http://..." in FILE, prints the URL.
wait_url() {
  for _ in $(seq 100); do
    if grep -q 'listening on' "$1" 2>/dev/null; then break; fi
    sleep 0.1
  done
  grep -o 'http://[0-9.:]*' "$1" | head -1
}

cat >"$WORK/recipe.json" <<J
{"body": "$(head -c 600 /dev/zero | tr '\0' x)", "headers": {"cache-control": "private, max-age=0"}, "stages": [{"at": 0, "status": 200, "latency": "0s"}]}
J
taskset -c 0 "$A" origin -quiet -seed 1 -recipe "$WORK/recipe.json" -listen 127.0.0.1:0 >"$WORK/origin.out" 2>&1 &
PIDS+=($!)
ORIGIN_URL=$(wait_url "$WORK/origin.out")
cat >"$WORK/proxy.yaml" <<Y
pools:
  default: {size: 64, overflow: 0, checkout_timeout: 6s, manager: serial}
routes:
  - {name: all, path: "/*", upstream: "$ORIGIN_URL", request_timeout: 5s}
Y
taskset -c 1 "$A" proxy -config "$WORK/proxy.yaml" -listen 127.0.0.1:0 >"$WORK/a.out" 2>&1 &
APID=$!
PIDS+=($!)
taskset -c 1 "$B" proxy -config "$WORK/proxy.yaml" -listen 127.0.0.1:0 >"$WORK/b.out" 2>&1 &
BPID=$!
PIDS+=($!)
AURL=$(wait_url "$WORK/a.out")
BURL=$(wait_url "$WORK/b.out")
for u in "$AURL" "$BURL"; do curl -fs -o /dev/null "$u/" || { echo "bench/proxy/ab.sh: $u not answering" >&2; exit 1; }; done

# utime_stime PID: user and system clock ticks of a process.
utime_stime() { awk '{print $14, $15}' "/proc/$1/stat"; }
echo "# interleaved A/B, $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg); A=$A B=$B; ${ROUNDS} rounds of ${DUR}s at $RATE req/s in all"
TOT=(0 0 0 0)
for r in $(seq "$ROUNDS"); do
  read -r au0 as0 < <(utime_stime "$APID")
  read -r bu0 bs0 < <(utime_stime "$BPID")
  printf 'GET %s/x\nGET %s/x\n' "$AURL" "$BURL" |
    taskset -c 0 "$A" attack -rate "$RATE/s" -duration "${DUR}s" -timeout 10s -quiet -max-body 0 >"$WORK/r$r.bin"
  read -r au1 as1 < <(utime_stime "$APID")
  read -r bu1 bs1 < <(utime_stime "$BPID")
  echo "round $r: A user $((au1 - au0)) system $((as1 - as0)) ticks, B user $((bu1 - bu0)) system $((bs1 - bs0)) ticks"
  TOT=($((TOT[0] + au1 - au0)) $((TOT[1] + as1 - as0)) $((TOT[2] + bu1 - bu0)) $((TOT[3] + bs1 - bs0)))
done
"$A" report -type json "$WORK/r1.bin" | python3 -c 'import json,sys; x=json.load(sys.stdin); print("round 1: success %.2f%%, p50 %.3f ms" % (x["success"]*100, x["latencies"]["50th"]/1e6))'
python3 - "${TOT[@]}" "$(getconf CLK_TCK)" "$((RATE * DUR * ROUNDS / 2))" <<'P'
import sys
au, asy, bu, bs, tck, n = map(int, sys.argv[1:])
us = lambda t: t / tck / n * 1e6
print(f"A: user {us(au):.1f} + system {us(asy):.1f} = {us(au+asy):.1f} µs per request")
print(f"B: user {us(bu):.1f} + system {us(bs):.1f} = {us(bu+bs):.1f} µs per request")
print(f"B/A: {(bu+bs)/(au+asy):.3f}")
P
