#!/usr/bin/env bash
# bench/duet: an A/A check of loadlab's two ways to compare builds, on this
# machine as it is. Two identical loadlab origins (latency 10-20 ms,
# uniform) are measured twice: in sequence (A for D seconds, then B for D
# seconds) and as one duet (loadlab attack -duet: requests alternating
# between A and B for D seconds). Both comparisons are printed by loadlab
# compare: a duet's B/A should be 1.00 within a narrow interval whatever
# the machine does; the sequential pair moves with the machine between
# the two runs. NEIGHBOUR=1 runs a busy loop (one core, nice 0) during
# the second half of the sequential B run and the second half of the duet:
# a noisy neighbour.
# Usage: bench/duet/run.sh [seconds]   (default 30; RATE default 200/s)
# Loopback only; ~2 x D + D seconds of load. For rates over many pairs
# (and a 5% difference, beside a real-time neighbour): go run ./bench/gate -compare.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../args.sh"
D=${1:-30}
RATE=${RATE:-200}
NEIGHBOUR=${NEIGHBOUR:-0}
[[ $D =~ ^[0-9]+$ ]] && ((D >= 4)) || bench_bad bench/duet seconds "want a whole number of seconds, 4 or more, got '$D'"
[[ $RATE =~ ^[0-9]+$ ]] && ((RATE >= 10)) || bench_bad bench/duet RATE "want a whole number of requests a second, 10 or more, got '$RATE'"
bench_oneof bench/duet NEIGHBOUR "$NEIGHBOUR" 0 1
command -v go >/dev/null || { echo "bench/duet: go not found" >&2; exit 2; }

work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
cd "$here/../.."
go build -o "$work/loadlab" ./cmd/loadlab
ll=$work/loadlab

origin() { # origin LOGFILE: starts an origin on a free port, prints its URL
	"$ll" origin -listen 127.0.0.1:0 >"$1" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do
		u=$(sed -n 's/^origin listening on //p' "$1")
		[ -n "$u" ] && { echo "$u"; return; }
		sleep 0.1
	done
	echo "bench/duet: the origin did not start" >&2
	exit 1
}
npid=
neighbour() { # neighbour SECONDS: a busy loop after SECONDS/2, until SECONDS
	npid=
	[ "$NEIGHBOUR" = 1 ] || return 0
	(sleep $(($1 / 2)); timeout $(($1 - $1 / 2)) sh -c 'while :; do :; done') &
	npid=$!
	pids+=("$npid")
}
neighbour_done() { [ -z "$npid" ] || wait "$npid" || true; }
a=$(origin "$work/a.log")
b=$(origin "$work/b.log")
echo "origins: A $a, B $b; $RATE/s for ${D}s; neighbour: $NEIGHBOUR; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "GET $a/?delay=10ms..20ms" >"$work/a.txt"
echo "GET $b/?delay=10ms..20ms" >"$work/b.txt"

"$ll" attack -quiet -targets "$work/a.txt" -rate "$RATE" -duration "${D}s" -output "$work/seq-a.lll"
neighbour "$D"
"$ll" attack -quiet -targets "$work/b.txt" -rate "$RATE" -duration "${D}s" -output "$work/seq-b.lll"
neighbour_done
neighbour "$D"
"$ll" attack -quiet -targets "$work/a.txt" -rate $((2 * RATE)) -duration "${D}s" -duet "${b}" -output "$work/duet.lll"
neighbour_done

echo
echo "== sequential: B after A =="
"$ll" compare "$work/seq-a.lll" "$work/seq-b.lll" || true
echo
echo "== duet: B alternating with A =="
"$ll" compare -duet "$work/duet.lll" || true
