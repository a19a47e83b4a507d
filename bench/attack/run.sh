#!/usr/bin/env bash
# bench/attack/run.sh: loadlab attack side by side with wrk (Debian), wrk2
# (the paced reference: taken from PATH or WRK2=, never downloaded), hey and
# vegeta (Go modules built into a scratch GOBIN), in one run so the ratios
# hold on a shared, noisy machine. (k6 is not used: its licence, the AGPL,
# keeps it out of this repository's tooling.)
#
# Target: nginx with one worker serving a 1 kB file (and, for the latency
# scenario, 100 ms responses from nginx's echo module, or loadlab origin
# with a 100 ms recipe without it), pinned to CPU $TGT_CPU; every
# generator pinned to CPU $GEN_CPU. CPU-seconds per 100k requests are the
# generator's task-clock from `perf stat` (the scheduler's exact run time of
# its threads); without perf, user + sys from /usr/bin/time. This kernel
# accounts user/sys time by sampling at each timer tick (HZ=250,
# TICK_CPU_ACCOUNTING), which charges a process that wakes a thousand times
# a second 10-15% more than it ran; both figures are printed per run below
# the table.
#
# Scenarios (issue 2's performance goals):
#   max    as fast as possible, 64 connections
#   paced  1,000, 5,000 and 20,000 requests/s (PACED_RATES): achieved rate,
#          drops, lag mean/p99 and latency p50 from the due time and from the
#          send, beside vegeta, wrk2 and hey
#   precision  the rows of the pacer's precision goal in a few minutes with
#          D=5s: paced at each rate by loadlab (its default pacer, precise,
#          and -pacer=batched), vegeta (loadlab's CPU as a multiple of
#          vegeta's) and wrk2 (latency from the intended send time, corrected
#          for coordinated omission, as loadlab's runs from the due time),
#          then max rate by loadlab and wrk
#   slow   2,000 requests/s against a 100 ms target (p99 from the due time)
#   rss    2,000 requests/s for D and 2D: memory must stay flat
# loadlab's paced rows split the due-based latency into lag (Sent - Due:
# the pacer and the generator's scheduling) and send latency (connection,
# target, reading the response). Each loadlab row of those two scenarios
# runs once with the defaults and once per opt-in/opt-out flag the binary
# has (-harvest=false, -pacer=batched; -precise for a binary from before
# the precise pacer was the default), back to back; VARIANTS="-pacer=batched"
# picks.
#
# wrk2 is not packaged in Debian. Build it once (the bench never downloads
# it): git clone https://github.com/giltene/wrk2 && make -C wrk2 (needs
# libssl-dev and zlib1g-dev), then WRK2=$PWD/wrk2/wrk. Without it the
# paced scenarios go without wrk2's rows and say so.
#
# Usage: bench/attack/run.sh            (D=10s per run)
#        WRK2=/path/to/wrk2 D=5s SCENARIOS=precision bench/attack/run.sh
#        D=5s SCENARIOS="max paced" bench/attack/run.sh
#        HEY=/path/to/hey D=5s bench/attack/run.sh   (reuse a built hey)
#        LL=/path/to/loadlab bench/attack/run.sh                (bench that binary)
# Prints a Markdown table on stdout; progress on stderr. Requests counted
# are successful (200) responses.
set -Eeuo pipefail

D=${D:-10s}
GEN_CPU=${GEN_CPU:-0}
TGT_CPU=${TGT_CPU:-1}
# This script's own work (the run-queue sampler below forks pgrep, cat and
# awk five times a second, the tables' python) stays off the generator's
# CPU: measured 2026-11-27, left free to land there it was what delayed
# 2% of -precise's requests by over 100 µs at 20,000/s (with it moved, the
# generator's CPU holds only the generator; bench/README.md).
taskset -pc "$TGT_CPU" $$ >/dev/null 2>&1 || true
SCENARIOS=${SCENARIOS:-"max paced slow rss"}
# shellcheck source=../args.sh
. "$(dirname "$0")/../args.sh"
bench_each bench/attack SCENARIOS "$SCENARIOS" max paced precision slow rss
PACED_RATES=${PACED_RATES:-"1000 5000 20000"}
HEY_VERSION=${HEY_VERSION:-v0.1.4}
VEGETA_VERSION=${VEGETA_VERSION:-v12.12.0}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/loadlab-bench-attack.XXXXXX)
PIDS=()

log() { echo "bench/attack: $*" >&2; }
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'log "failed at line $LINENO: $BASH_COMMAND"' ERR

secs() { # 10s -> 10
	local d=$1
	case $d in *ms) echo "scale=3; ${d%ms}/1000" | bc ;; *s) echo "${d%s}" ;; *m) echo $((${d%m} * 60)) ;; *) echo "$d" ;; esac
}
DSEC=$(secs "$D")

for tool in nginx wrk taskset bc python3; do
	if ! command -v "$tool" >/dev/null && [ ! -x /usr/sbin/$tool ]; then
		log "installing $tool"
		apt-get install -y "$(case $tool in taskset) echo util-linux ;; python3) echo python3 ;; *) echo "$tool" ;; esac)" >/dev/null
	fi
done
[ -x /usr/bin/time ] || apt-get install -y time >/dev/null
PERF=""
if command -v perf >/dev/null && perf stat -x, -e task-clock -o /dev/null true 2>/dev/null; then
	PERF=$(command -v perf)
fi

log "building loadlab and the Go tools in $WORK"
if [ -n "${LL:-}" ]; then # a loadlab binary given by the caller
	cp "$LL" "$WORK/loadlab"
else
	(cd "$ROOT" && go build -o "$WORK/loadlab" ./cmd/loadlab)
fi
export GOBIN=$WORK/bin
HEY_BIN=${HEY:-}
if [ -z "$HEY_BIN" ]; then
	go install "github.com/rakyll/hey@$HEY_VERSION" 2>/dev/null || log "hey build failed; skipping hey"
fi
VEGETA=${VEGETA:-}
if [ -z "$VEGETA" ] && [ -x "$HOME/.cache/loadlab/vegeta/vegeta" ]; then
	VEGETA=$HOME/.cache/loadlab/vegeta/vegeta # make vegeta's build
fi
if [ -z "$VEGETA" ]; then
	go install "github.com/tsenart/vegeta/v12@$VEGETA_VERSION" 2>/dev/null || log "vegeta build failed; skipping vegeta"
	VEGETA=$GOBIN/vegeta
fi
HEY=${HEY_BIN:-$GOBIN/hey}
WRK2=${WRK2:-$(command -v wrk2 || true)}
if [ -z "$WRK2" ] || [ ! -x "$WRK2" ]; then
	log "wrk2 not found (give WRK2=/path/to/wrk or put wrk2 on PATH): its paced rows are left out. It is not packaged in Debian; build it with: git clone https://github.com/giltene/wrk2 && make -C wrk2 (needs libssl-dev zlib1g-dev), then WRK2=\$PWD/wrk2/wrk"
	WRK2=""
fi
LL=$WORK/loadlab

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# nginx, one worker, 1 kB body
NPORT=$(free_port)
mkdir -p "$WORK/nginx/www"
head -c 1024 /dev/zero | tr '\0' 'a' >"$WORK/nginx/www/1k"
# The 100 ms target: nginx's echo module (echo_sleep) when installed
# (libnginx-mod-http-echo), else loadlab origin with a 100 ms recipe.
ECHO_MOD=/usr/lib/nginx/modules/ngx_http_echo_module.so
[ -f "$ECHO_MOD" ] || apt-get install -y libnginx-mod-http-echo >/dev/null 2>&1 || true
SLOW_CONF=""
LOAD_ECHO=""
if [ -f "$ECHO_MOD" ]; then
	LOAD_ECHO="load_module $ECHO_MOD;"
	SLOW_CONF="location /slow { echo_sleep 0.1; echo ok; }"
fi
cat >"$WORK/nginx/nginx.conf" <<EOF
$LOAD_ECHO
worker_processes 1;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  client_body_temp_path $WORK/nginx; proxy_temp_path $WORK/nginx; fastcgi_temp_path $WORK/nginx;
  uwsgi_temp_path $WORK/nginx; scgi_temp_path $WORK/nginx;
  server { listen 127.0.0.1:$NPORT; root $WORK/nginx/www; location / { } $SLOW_CONF }
}
EOF
chmod 755 "$WORK" && chmod -R a+rX "$WORK/nginx" # nginx's worker runs unprivileged
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
taskset -c "$TGT_CPU" "$NGINX" -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" &
PIDS+=($!)
URL=http://127.0.0.1:$NPORT/1k

if [ -n "$SLOW_CONF" ]; then
	SLOW_URL=http://127.0.0.1:$NPORT/slow
	SLOW_TARGET="nginx echo_sleep 0.1"
else # loadlab origin with a 100 ms recipe
	OPORT=$(free_port)
	printf '{"body":"ok","stages":[{"at":0,"status":200,"latency":"100ms"}]}' >"$WORK/slow.json"
	taskset -c "$TGT_CPU" "$LL" origin -quiet -seed 1 -recipe "$WORK/slow.json" -listen "127.0.0.1:$OPORT" &
	PIDS+=($!)
	SLOW_URL=http://127.0.0.1:$OPORT/slow
	SLOW_TARGET="loadlab origin, 100 ms recipe"
fi
for _ in $(seq 200); do
	curl -sf -o /dev/null "$URL" && curl -sf -o /dev/null "$SLOW_URL" && break
	sleep 0.1
done
curl -sf -o /dev/null "$URL" || { log "nginx does not answer on $URL"; cat "$WORK/nginx/error.log" >&2; exit 1; }
curl -sf -o /dev/null "$SLOW_URL" || { log "the 100 ms target ($SLOW_TARGET) does not answer on $SLOW_URL"; exit 1; }
echo "GET $URL" >"$WORK/t.txt"
echo "GET $SLOW_URL" >"$WORK/slow.txt"

# timed NAME CMD...: runs CMD pinned to GEN_CPU, keeping its output and times.
# It also records how long the generator and the target were runnable but
# waiting for their CPU (run-queue wait, from /proc/PID/task/*/schedstat):
# on a shared machine that is where latency tails come from.
rqwait() { # ms the threads of the given PIDs spent waiting for a CPU
	for p in "$@"; do cat /proc/"$p"/task/*/schedstat 2>/dev/null || true; done | awk '{s += $2} END {printf "%.0f", s / 1e6}'
}
TGT_PIDS=$(pgrep -P "${PIDS[0]}" | tr '\n' ' ') # nginx's worker
[ -n "${PIDS[1]:-}" ] && TGT_PIDS="$TGT_PIDS ${PIDS[1]}"
timed() {
	local name=$1
	shift
	log "$name"
	local t0 tp gp="" v last=0
	# shellcheck disable=SC2086
	t0=$(rqwait $TGT_PIDS)
	local perf=()
	if [ -n "$PERF" ]; then
		perf=("$PERF" stat -x, -e task-clock -o "$WORK/$name.perf")
	fi
	/usr/bin/time -o "$WORK/$name.time" -f "%e %U %S %M" "${perf[@]}" taskset -c "$GEN_CPU" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	tp=$!
	while kill -0 "$tp" 2>/dev/null; do
		if [ -z "$gp" ]; then
			gp=$(pgrep -P "$tp" | head -1 || true)
			if [ -n "$gp" ] && [ -n "$PERF" ]; then gp=$(pgrep -P "$gp" | head -1 || true); fi
		fi
		if [ -n "$gp" ]; then
			v=$(rqwait "$gp")
			if [ -n "$v" ] && [ "$v" -gt "$last" ]; then last=$v; fi
		fi
		sleep 0.2
	done
	wait "$tp" || true
	# shellcheck disable=SC2086
	echo "$last $(($(rqwait $TGT_PIDS) - t0))" >"$WORK/$name.rq"
}
rq() { awk '{printf "run-queue wait gen/target %d/%d ms", $1, $2}' "$WORK/$1.rq"; }
cpu() { # CPU-seconds of run $1: task-clock when perf measured it, else user + sys
	if [ -s "$WORK/$1.perf" ] && grep -q task-clock "$WORK/$1.perf"; then
		awk -F, '/task-clock/ {printf "%.3f", $1 / 1000}' "$WORK/$1.perf"
	else
		rusage "$1"
	fi
}
rusage() { awk '{printf "%.3f", $2 + $3}' "$WORK/$1.time"; }
rss() { awk '{printf "%.0f", $4 / 1024}' "$WORK/$1.time"; }
llstat() { # field of loadlab report -type json
	"$LL" report -type json "$WORK/$1.bin" | python3 -c "import json,sys; d=json.load(sys.stdin); print($2)"
}
vegstat() { # field of vegeta report -type json
	"$VEGETA" report -type json "$WORK/$1.bin" | python3 -c "import json,sys; d=json.load(sys.stdin); print(d$2)"
}
per100k() { echo "scale=2; $1 * 100000 / $2" | bc; }
lagsplit() { # "lag mean / p99 (µs)<TAB>notes": lag (Sent - Due) p50 and count over 100 µs, latency p50 from the due time and from the send, send-latency p99
	"$LL" encode -to json "$WORK/$1.bin" | python3 "$ROOT/bench/attack/lag.py"
}
# loadlab's paced and slow scenarios run once per variant: the defaults,
# then each opt-in or opt-out flag this binary has (VARIANTS="" keeps only
# the defaults).
LLHELP=$("$LL" attack -help 2>&1 || true)
VARIANTS_GIVEN=${VARIANTS+x}
if [ -z "$VARIANTS_GIVEN" ]; then
	VARIANTS=("")
	case $LLHELP in *-harvest*) VARIANTS+=("-harvest=false") ;; esac
	case $LLHELP in
	*-pacer*) VARIANTS+=("-pacer=batched") ;;
	*-precise*) VARIANTS+=("-precise") ;;
	esac
else
	read -r -a VARIANTS <<<"$VARIANTS"
	VARIANTS=("" "${VARIANTS[@]}")
fi
vname() { echo "$1" | tr -c 'a-z0-9\n' '-' | sed 's/-*$//'; }

# llvariants SCENARIO NAME RATE TARGETS: one paced loadlab run per variant,
# with the achieved rate, drops, p50/p99 from the due time and their split.
llvariants() {
	local sc=$1 base=$2 rate=$3 tf=$4 v name n want c vs ls
	want=$(echo "$rate * $DSEC" | bc | cut -d. -f1)
	for v in "${VARIANTS[@]}"; do
		name=$base$(vname "$v")
		# shellcheck disable=SC2086
		timed "$name" "$LL" attack $v -targets="$tf" -rate="$rate" -duration="$D" -output="$WORK/$name.bin"
		n=$(llstat "$name" 'd["status_codes"].get("200", 0)')
		c=$(per100k "$(cpu "$name")" "$n")
		vs=""
		if [ -n "${VEG_CPU:-}" ]; then vs="; **CPU $(echo "$c $VEG_CPU" | awk '{printf "%.2f", $1 / $2}')x vegeta's**"; fi
		ls=$(lagsplit "$name")
		# the pacer the attack ended with (precise, batched, or fell back), from its trailer
		pc=$("$LL" report "$WORK/$name.bin" 2>/dev/null | sed -n 's/^Machine .*pacer \([^;]*\).*/\1/p')
		row "$sc" "loadlab${v:+ $v}" "$n of $want" "$(echo "scale=2; 100 * $n / $want" | bc)%" "$c" "$(rss "$name")" \
			"pacer ${pc:-?}; dropped $(llstat "$name" 'd.get("dropped", 0)'), $(llstat "$name" '"p50 %.2fms, p99 %.2fms" % (d["latencies"]["50th"] / 1e6, d["latencies"]["99th"] / 1e6)') (from due time); ${ls#*"$TAB"}; $(rq "$name")$vs" \
			"${ls%%"$TAB"*}"
	done
}

# pacedrate RATE [hey]: vegeta, loadlab's variants, wrk2 (and hey) at RATE
# req/s against the 1 kB file; loadlab's and wrk2's notes carry their CPU
# as a multiple of vegeta's in the same run, loadlab's the lag split.
pacedrate() {
	local rate=$1 want n p50 p99
	want=$(echo "$rate * $DSEC" | bc | cut -d. -f1)
	VEG_CPU=""
	# vegeta pinned to one CPU does not reach 20,000/s (0.25-2.4% of it
	# answered in 2026-11-27's runs, the rest timed out)
	if [ -x "$VEGETA" ] && [ "$rate" -le "${VEGETA_MAX_RATE:-5000}" ]; then
		# -timeout: at rates one CPU cannot sustain, vegeta's requests time
		# out; 30 s of that would only lengthen the run
		timed "veg-paced$rate" "$VEGETA" attack -targets="$WORK/t.txt" -rate="$rate" -duration="$D" -timeout=2s -max-body=0 -output="$WORK/veg-paced$rate.bin"
		n=$(vegstat "veg-paced$rate" '["status_codes"].get("200", 0)')
		p99=$(vegstat "veg-paced$rate" '["latencies"]["99th"]' | awk '{printf "%.2fms", $1 / 1e6}')
		p50=$(vegstat "veg-paced$rate" '["latencies"]["50th"]' | awk '{printf "%.0f µs", $1 / 1e3}')
		# a CPU ratio to a vegeta that fell short of the rate would mean nothing
		if [ "$n" -ge $((want * 95 / 100)) ]; then VEG_CPU=$(per100k "$(cpu "veg-paced$rate")" "$n"); fi
		row "paced $rate/s" "vegeta" "$n of $want" "$(echo "scale=2; 100 * $n / $want" | bc)%" "$(per100k "$(cpu "veg-paced$rate")" "$((n > 0 ? n : 1))")" "$(rss "veg-paced$rate")" "latency p50 $p50, p99 $p99 (from send time)"
	fi
	llvariants "paced $rate/s" "ll-paced$rate" "$rate" "$WORK/t.txt"
	if [ -n "$WRK2" ]; then
		# wrk2 paces each connection (-R over -c) and records each latency
		# from the request's intended send time (coordinated omission
		# corrected): the same basis as loadlab's latency from due
		timed "wrk2-paced$rate" "$WRK2" -t1 -c"${WRK2_CONNS:-32}" -d"$D" -R"$rate" --latency "$URL"
		n=$(awk '/requests in/ {print $1}' "$WORK/wrk2-paced$rate.out")
		n=$((${n:-0} - $(awk '/Non-2xx/ {x = $NF} END {print x + 0}' "$WORK/wrk2-paced$rate.out")))
		c=$(per100k "$(cpu "wrk2-paced$rate")" "$((n > 0 ? n : 1))")
		vs=""
		if [ -n "${VEG_CPU:-}" ]; then vs="; **CPU $(echo "$c $VEG_CPU" | awk '{printf "%.2f", $1 / $2}')x vegeta's**"; fi
		row "paced $rate/s" "wrk2 (-c ${WRK2_CONNS:-32})" "$n of $want" "$(echo "scale=2; 100 * $n / $want" | bc)%" "$c" "$(rss "wrk2-paced$rate")" \
			"latency p50 $(wrk2q "wrk2-paced$rate" 50.000), p99 $(wrk2q "wrk2-paced$rate" 99.000) (from the intended send time); $(rq "wrk2-paced$rate")$vs"
	fi
	if [ "${2:-}" = hey ] && [ -x "$HEY" ]; then
		# hey paces per connection: -c 50 -q RATE/50
		timed "hey-paced$rate" "$HEY" -z "$D" -c 50 -q $((rate / 50)) -cpus 1 "$URL"
		n=$(awk '/\[200\]/ {s += $2} END {print s + 0}' "$WORK/hey-paced$rate.out")
		row "paced $rate/s" "hey (-c 50 -q $((rate / 50)))" "$n of $want" "$(echo "scale=2; 100 * $n / $want" | bc)%" "$(per100k "$(cpu "hey-paced$rate")" "$n")" "$(rss "hey-paced$rate")" "$(rq "hey-paced$rate")"
	fi
	VEG_CPU=""
}

# maxrate: loadlab and wrk as fast as possible over 64 connections (the
# precision scenario's CPU reference at max rate).
maxrate() {
	local n
	timed ll-max "$LL" attack -targets="$WORK/t.txt" -rate=0 -max-workers=64 -duration="$D" -output="$WORK/ll-max.bin"
	n=$(llstat ll-max 'd["status_codes"].get("200", 0)')
	LL_MAX=$(per100k "$(cpu ll-max)" "$n")
	row "max, 64 conns" "loadlab" "$n" "$(echo "scale=0; $n / $DSEC" | bc)/s" "$LL_MAX" "$(rss ll-max)" "results $(($(stat -c %s "$WORK/ll-max.bin") * 100 / n)) B/100 req"
	timed wrk-max wrk -t1 -c64 -d"$D" "$URL"
	n=$(awk '/requests in/ {print $1}' "$WORK/wrk-max.out")
	n=$((n - $(awk '/Non-2xx/ {x = $NF} END {print x + 0}' "$WORK/wrk-max.out")))
	WRK_MAX=$(per100k "$(cpu wrk-max)" "$n")
	row "max, 64 conns" "wrk" "$n" "$(echo "scale=0; $n / $DSEC" | bc)/s" "$WRK_MAX" "$(rss wrk-max)" ""
}

ROWS=()
TAB=$'\t'
# row SCENARIO TOOL REQUESTS RATE CPU RSS NOTES [LAG]: LAG is loadlab's
# "lag mean / p99" in µs (Sent - Due of every answered request).
row() { ROWS+=("| $1 | $2 | $3 | $4 | $5 | ${8:-} | $6 | $7 |"); }
WRK_MAX=""

wrk2q() { # wrk2q RUN PERCENT: wrk2's latency at PERCENT (its --latency table), in µs
	awk -v p="$2%" '$1 == p {v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
		printf "%.0f µs", v * (u == "s" ? 1e6 : u == "ms" ? 1e3 : u == "m" ? 6e7 : 1); exit}' "$WORK/$1.out"
}

for sc in $SCENARIOS; do
	case $sc in
	max)
		maxrate
		if [ -x "$VEGETA" ]; then
			timed veg-max "$VEGETA" attack -targets="$WORK/t.txt" -rate=0 -max-workers=64 -workers=64 -duration="$D" -max-body=0 -output="$WORK/veg-max.bin"
			n=$(vegstat veg-max '["status_codes"]["200"]')
			row "max, 64 conns" "vegeta" "$n" "$(echo "scale=0; $n / $DSEC" | bc)/s" "$(per100k "$(cpu veg-max)" "$n")" "$(rss veg-max)" ""
		fi
		if [ -x "$HEY" ]; then
			timed hey-max "$HEY" -z "$D" -c 64 -cpus 1 "$URL"
			n=$(awk '/\[200\]/ {s += $2} END {print s + 0}' "$WORK/hey-max.out")
			row "max, 64 conns" "hey" "$n" "$(echo "scale=0; $n / $DSEC" | bc)/s" "$(per100k "$(cpu hey-max)" "$n")" "$(rss hey-max)" ""
		fi
		;;
	paced)
		for rate in $PACED_RATES; do pacedrate "$rate" hey; done
		;;
	precision)
		saved=("${VARIANTS[@]}")
		if [ -z "$VARIANTS_GIVEN" ]; then
			case $LLHELP in *-pacer*) VARIANTS=("" -pacer=batched) ;; *) VARIANTS=("" -precise) ;; esac
		fi
		for rate in $PACED_RATES; do pacedrate "$rate"; done
		VARIANTS=("${saved[@]}")
		maxrate
		;;
	slow)
		want=$(echo "2000 * $DSEC" | bc | cut -d. -f1)
		llvariants "2000/s, 100 ms target" ll-slow 2000 "$WORK/slow.txt"
		if [ -x "$HEY" ]; then
			timed hey-slow "$HEY" -z "$D" -c 200 -q 10 -cpus 1 "$SLOW_URL"
			n=$(awk '/\[200\]/ {s += $2} END {print s + 0}' "$WORK/hey-slow.out")
			p50=$(awk '/50% in/ {printf "%.2fms", $3 * 1000}' "$WORK/hey-slow.out")
			p99=$(awk '/99% in/ {printf "%.2fms", $3 * 1000}' "$WORK/hey-slow.out")
			row "2000/s, 100 ms target" "hey (-c 200 -q 10)" "$n of $want" "$(echo "scale=2; 100 * $n / $want" | bc)%" "$(per100k "$(cpu hey-slow)" "$n")" "$(rss hey-slow)" "p50 $p50, p99 $p99 (from send time); $(rq hey-slow)"
		fi
		if [ -x "$VEGETA" ]; then
			timed veg-slow "$VEGETA" attack -targets="$WORK/slow.txt" -rate=2000 -duration="$D" -max-body=0 -output="$WORK/veg-slow.bin"
			n=$(vegstat veg-slow '["status_codes"]["200"]')
			p99=$(vegstat veg-slow '["latencies"]["99th"]' | awk '{printf "%.2fms", $1 / 1e6}')
			p50=$(vegstat veg-slow '["latencies"]["50th"]' | awk '{printf "%.2fms", $1 / 1e6}')
			row "2000/s, 100 ms target" "vegeta" "$n of $want" "$(echo "scale=2; 100 * $n / $want" | bc)%" "$(per100k "$(cpu veg-slow)" "$n")" "$(rss veg-slow)" "p50 $p50, p99 $p99 (from send time)"
		fi
		;;
	rss)
		for mult in 1 2; do
			d=$(echo "$DSEC * $mult" | bc | cut -d. -f1)s
			timed "ll-rss$mult" "$LL" attack -targets="$WORK/t.txt" -rate=2000 -duration="$d" -output="$WORK/ll-rss$mult.bin"
			n=$(llstat "ll-rss$mult" 'd["status_codes"].get("200", 0)')
			row "RSS, 2000/s for $d" "loadlab" "$n" "" "$(per100k "$(cpu "ll-rss$mult")" "$n")" "$(rss "ll-rss$mult")" "results $(($(stat -c %s "$WORK/ll-rss$mult.bin") * 100 / n)) B/100 req"
		done
		;;
	esac
done

# shellcheck source=../steal.sh
. "$ROOT/bench/steal.sh"
steal_mark
echo "Machine: $(nproc --all) cores, $(. /etc/os-release && echo "$PRETTY_NAME"), $(uname -r); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Date: $(date -u +%Y-%m-%dT%H:%MZ); $D per run; generator on CPU $GEN_CPU, target on CPU $TGT_CPU; 100 ms target: $SLOW_TARGET"
echo
echo "| scenario | tool | requests | rate | CPU-s/100k | lag mean / p99 µs | RSS MB | notes |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
echo
echo "CPU-seconds of each run: task-clock (perf stat; the table's figure when present) and user + sys (/usr/bin/time):"
echo
echo "| run | task-clock s | user + sys s |"
echo "|---|---|---|"
for f in "$WORK"/*.time; do
	r=$(basename "$f" .time)
	tc="-"
	if [ -s "$WORK/$r.perf" ]; then tc=$(awk -F, '/task-clock/ {printf "%.3f", $1 / 1000}' "$WORK/$r.perf"); fi
	echo "| $r | $tc | $(rusage "$r") |"
done
if [ -n "$WRK_MAX" ] && [ -n "${LL_MAX:-}" ]; then
	echo
	echo "loadlab / wrk CPU per request (max): $(echo "scale=2; $LL_MAX / $WRK_MAX" | bc)x"
fi
echo "Steal over the whole run: $(steal_since) of the machine's CPU time (a VM's host taking CPU for other guests; see bench/steal.sh)."
