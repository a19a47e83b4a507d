#!/usr/bin/env bash
# bench/flow/run.sh: a user journey (POST a JSON login and capture its
# token, GET /home with the bearer header, GET a search with a query from a
# data file) against a loadlab origin with token routes (recipe.json), run
# by loadlab's flow, by a plain single-request loadlab attack at the same
# request rate, by Locust (FastHttpUser, PyPI) and by Artillery (npm), one
# after the other in one run so the ratios hold on a shared, noisy machine.
# (k6 is not used: its licence, the AGPL, keeps it out of this repository's
# tooling.) The four steps are three requests per session: the capture is
# part of the login step.
#
# Scenarios:
#   cpu       RATE sessions/s (1,000) for D seconds without think times:
#             requests the origin answered 200 (of those asked), the wall
#             time (start-up and the tail included), generator CPU (user + sys,
#             /usr/bin/time) per request, as a multiple of the plain
#             attack's, max RSS; loadlab's schedule lag (Sent - Due) for
#             the flow and the plain attack from their reports
#   inflight  RATE sessions/s with THINK_INFLIGHT seconds (5) before each
#             of the two later steps, for D_INFLIGHT seconds (30): about
#             RATE x 2 x THINK_INFLIGHT (10,000) sessions in flight; the
#             generator's max RSS and CPU
# Locust is closed-model: RATE x (session length) users, each paced to one
# journey per session length (constant_pacing), which is RATE sessions/s
# while it keeps up. Artillery arrives RATE virtual users a second.
# Requests are counted at the origin (/_admin/current_count), the same
# way for every generator. The generator runs on CPU GEN_CPU (0), the
# origin on TGT_CPU (1).
#
# loadlab's flow rows need `loadlab attack -flow`; with a loadlab without
# it the script says so and goes on with the other rows.
#
# Locust and Artillery are installed on first use into PEERS_DIR
# (~/.cache/loadlab-bench-flow): a venv (pip install locust==$LOCUST_VERSION)
# and an npm folder (npm install artillery@$ARTILLERY_VERSION, without a
# browser download). LOCUST=/path/to/locust and ARTILLERY=/path/to/artillery
# use installed ones.
#
# Usage: bench/flow/run.sh
#        D=10 SCENARIOS=cpu PEERS="loadlab locust" bench/flow/run.sh
#        LL=/path/to/loadlab bench/flow/run.sh
# Prints Markdown tables on stdout; progress on stderr.
set -Eeuo pipefail

D=${D:-20}
D_INFLIGHT=${D_INFLIGHT:-30}
RATE=${RATE:-1000}
THINK_INFLIGHT=${THINK_INFLIGHT:-5}
GEN_CPU=${GEN_CPU:-0}
TGT_CPU=${TGT_CPU:-1}
SCENARIOS=${SCENARIOS:-"cpu inflight"}
PEERS=${PEERS:-"loadlab locust artillery"}
LOCUST_VERSION=${LOCUST_VERSION:-2.47.0}
ARTILLERY_VERSION=${ARTILLERY_VERSION:-2.0.21}
PEERS_DIR=${PEERS_DIR:-$HOME/.cache/loadlab-bench-flow}
# shellcheck source=../args.sh
. "$(dirname "$0")/../args.sh"
bench_each bench/flow SCENARIOS "$SCENARIOS" cpu inflight
bench_each bench/flow PEERS "$PEERS" loadlab locust artillery
for v in D D_INFLIGHT RATE THINK_INFLIGHT; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || bench_bad bench/flow "$v" "want a whole number above 0, got '${!v}'"
done
# shellcheck source=../steal.sh
. "$(dirname "$0")/../steal.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
log() { echo "bench/flow: $*" >&2; }
for tool in curl python3 taskset /usr/bin/time; do
	command -v "$tool" >/dev/null || { log "$tool not found"; exit 2; }
done
WORK=$(mktemp -d /tmp/loadlab-bench-flow.XXXXXX)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
has() { case " $PEERS " in *" $1 "*) return 0 ;; esac; return 1; }

# --- the generators --------------------------------------------------------
if [ -z "${LL:-}" ]; then
	LL=$WORK/loadlab
	log "building loadlab"
	(cd "$ROOT" && go build -o "$LL" ./cmd/loadlab)
fi
FLOW=0
if "$LL" attack -help 2>&1 | grep -q -- '-flow'; then FLOW=1; fi
if has locust && [ -z "${LOCUST:-}" ]; then
	LOCUST=$PEERS_DIR/venv/bin/locust
	if [ ! -x "$LOCUST" ]; then
		log "installing locust $LOCUST_VERSION into $PEERS_DIR/venv"
		python3 -m venv "$PEERS_DIR/venv"
		"$PEERS_DIR/venv/bin/pip" install -q "locust==$LOCUST_VERSION" >&2
	fi
fi
if has artillery && [ -z "${ARTILLERY:-}" ]; then
	ARTILLERY=$PEERS_DIR/npm/node_modules/.bin/artillery
	if [ ! -x "$ARTILLERY" ]; then
		log "installing artillery $ARTILLERY_VERSION into $PEERS_DIR/npm"
		mkdir -p "$PEERS_DIR/npm"
		(cd "$PEERS_DIR/npm" && [ -f package.json ] || npm init -y >/dev/null)
		(cd "$PEERS_DIR/npm" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund "artillery@$ARTILLERY_VERSION" >&2)
	fi
fi
export ARTILLERY_DISABLE_TELEMETRY=true

# --- the origin and the data file ------------------------------------------
taskset -c "$TGT_CPU" "$LL" origin -recipe "$HERE/recipe.json" -listen 127.0.0.1:0 -seed 1 -quiet >"$WORK/origin.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -q 'listening on' "$WORK/origin.out" && break; sleep 0.1; done
ORIGIN=$(sed -n 's/^origin listening on //p' "$WORK/origin.out")
[ -n "$ORIGIN" ] || { log "the origin did not start: $(cat "$WORK/origin.out")"; exit 1; }
python3 - "$WORK/users.csv" <<'PY'
import sys
words = ["shoes", "boots", "socks", "hats", "coats", "bags", "belts", "scarves"]
with open(sys.argv[1], "w") as f:
    f.write("user,password,query\n")
    for i in range(1000):
        f.write(f"user-{i:04d},pw-{i:04d},{words[i % len(words)]}\n")
PY
TOKEN=$(curl -s -X POST "$ORIGIN/login" | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')

counted() { # prints the 200s the origin answered since the last clear
	curl -s "$ORIGIN/_admin/current_count" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("200", 0))'
}
clear_count() { curl -s "$ORIGIN/_admin/clear_current_count" >/dev/null; }

# run NAME CMD...: runs a generator on GEN_CPU, measured; prints
# "NAME ok200 cpu_seconds max_rss_kb elapsed" into $WORK/rows.
run() {
	local name=$1
	shift
	clear_count
	steal_mark
	log "$name: $*"
	if ! taskset -c "$GEN_CPU" /usr/bin/time -f "%U %S %M %e" -o "$WORK/$name.time" "$@" >"$WORK/$name.out" 2>&1; then
		log "$name failed: $(tail -n 5 "$WORK/$name.out")"
	fi
	local ok steal
	ok=$(counted)
	steal=$(steal_since)
	read -r u s m e <"$WORK/$name.time" || { u=0 s=0 m=0 e=0; }
	echo "$name $ok $(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}') $m $e ${steal#steal }" >>"$WORK/rows"
}

# lag FILE: loadlab's schedule lag "mean / p99" from its report.
lag() {
	"$LL" report "$1" 2>/dev/null | awk -F'  +' '/^Schedule Lag/ {split($NF, a, ", "); print a[2] " / " a[3]}'
}

table() { # $1: the requests asked for (3 per session)
	python3 - "$WORK/rows" "$1" "$WORK/lags" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
asked = int(sys.argv[2])
lags = dict(l.rstrip("\n").split(" ", 1) for l in open(sys.argv[3]))
base = None
for r in rows:
    if r[0] == "loadlab-plain" and int(r[1]) > 0:
        base = float(r[2]) / int(r[1])
print("| generator | requests answered 200 (of asked) | wall s | CPU s (user+sys) | CPU µs per request | × plain attack | max RSS MB | schedule lag mean / p99 | steal |")
print("|---|---|---|---|---|---|---|---|---|")
for name, ok, cpu, rss, el, steal in rows:
    ok, cpu = int(ok), float(cpu)
    per = cpu / ok * 1e6 if ok else float("nan")
    ratio = f"{cpu / ok / base:.2f}×" if ok and base else "—"
    print(f"| {name} | {ok:,} ({asked:,}) | {float(el):.1f} | {cpu:.2f} | {per:.1f} | {ratio} | {int(rss) / 1024:.0f} | {lags.get(name, '—')} | {steal} |")
PY
}

echo "bench/flow: $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs; generator on CPU $GEN_CPU, origin on CPU $TGT_CPU"
echo

sed -e "s#ORIGIN#$ORIGIN#g" "$HERE/flow.yaml" >"$WORK/flow-template.yaml"
flow_with_think() { # $1: think seconds (0: no think steps)
	if [ "$1" = 0 ]; then
		grep -v 'think: THINK' "$WORK/flow-template.yaml"
	else
		sed -e "s/think: THINK/think: ${1}s/" "$WORK/flow-template.yaml"
	fi
}
artillery_with() { # $1: duration, $2: think seconds
	sed -e "s/duration: 20/duration: $1/" -e "s/arrivalRate: 1000/arrivalRate: $RATE/" -e "s/think: 0/think: $2/" "$HERE/artillery.yml"
}

for scenario in $SCENARIOS; do
	: >"$WORK/rows"
	: >"$WORK/lags"
	case $scenario in
	cpu)
		echo "### cpu: $RATE sessions/s (3 requests each) for ${D}s, no think time"
		flow_with_think 0 >"$WORK/flow.yaml"
		artillery_with "$D" 0 >"$WORK/artillery.yml"
		if has loadlab; then
			run loadlab-plain sh -c "echo 'GET $ORIGIN/home' | '$LL' attack -rate $((3 * RATE))/s -duration ${D}s -header 'Authorization: Bearer $TOKEN' -output '$WORK/plain.lll'"
			echo "loadlab-plain $(lag "$WORK/plain.lll")" >>"$WORK/lags"
			if [ "$FLOW" = 1 ]; then
				run loadlab-flow "$LL" attack -flow "$WORK/flow.yaml" -rate "$RATE/s" -duration "${D}s" -output "$WORK/flow.lll"
				echo "loadlab-flow $(lag "$WORK/flow.lll")" >>"$WORK/lags"
			else
				log "loadlab-flow: skipped: $LL has no 'attack -flow' (the flow engine); the plain attack is measured alone"
			fi
		fi
		if has locust; then
			(cd "$WORK" && export USERS_CSV="$WORK/users.csv" PACING=1 THINK=0 && run locust "$LOCUST" -f "$HERE/locustfile.py" --headless -u "$RATE" -r "$RATE" -t "${D}s" -H "$ORIGIN" --only-summary --loglevel WARNING)
		fi
		if has artillery; then
			(cd "$WORK" && run artillery "$ARTILLERY" run --target "$ORIGIN" "$WORK/artillery.yml")
		fi
		table $((3 * RATE * D))
		;;
	inflight)
		# (not "n": steal.sh's steal_mark sets globals u, n, s, ...)
		inflight=$((RATE * 2 * THINK_INFLIGHT))
		echo "### inflight: $RATE sessions/s with ${THINK_INFLIGHT}s before each later step (about $inflight sessions in flight) for ${D_INFLIGHT}s"
		flow_with_think "$THINK_INFLIGHT" >"$WORK/flow.yaml"
		artillery_with "$D_INFLIGHT" "$THINK_INFLIGHT" >"$WORK/artillery.yml"
		if has loadlab; then
			if [ "$FLOW" = 1 ]; then
				run loadlab-flow "$LL" attack -flow "$WORK/flow.yaml" -rate "$RATE/s" -duration "${D_INFLIGHT}s" -output "$WORK/flow-inflight.lll"
				echo "loadlab-flow $(lag "$WORK/flow-inflight.lll")" >>"$WORK/lags"
			else
				log "loadlab-flow: skipped: $LL has no 'attack -flow' (the flow engine)"
			fi
		fi
		if has locust; then
			(cd "$WORK" && export USERS_CSV="$WORK/users.csv" PACING=$((2 * THINK_INFLIGHT)) THINK=$THINK_INFLIGHT && run locust "$LOCUST" -f "$HERE/locustfile.py" --headless -u "$inflight" -r "$RATE" -t "${D_INFLIGHT}s" -H "$ORIGIN" --only-summary --loglevel WARNING)
		fi
		if has artillery; then
			(cd "$WORK" && run artillery "$ARTILLERY" run --target "$ORIGIN" "$WORK/artillery.yml")
		fi
		table $((3 * RATE * D_INFLIGHT))
		;;
	esac
	for f in "$WORK"/*.out; do
		case $f in *origin.out) continue ;; esac
		{ echo "--- $(basename "$f") (last lines)"; tail -n 12 "$f"; } >&2
	done
	echo
done
