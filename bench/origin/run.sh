#!/usr/bin/env bash
# Benchmarks for loadlab origin (issue 3), on loopback only, ~90 s in all:
#   1. a 1 s latency recipe at 5,000 requests/s, open loop (~5,000 in
#      flight): client-seen p50/p99 and the simulator's peak RSS;
#   2. 0 ms latency, 50 kB body: throughput of loadlab origin (-server std
#      and the default lean server) and of nginx serving the same bytes from
#      a file, same generator (wrk), alternated twice, side by side.
# A/B of part 1: LAT_B_BIN=other-loadlab-binary and/or LAT_B_ENV="VAR=v ..."
# run B right after A, LAT_PAIRS times (default 1), same generator binary.
# Needs: go, wrk, nginx, curl (Debian: apt-get install -y wrk nginx curl).
# Usage: bench/origin/run.sh [latency-seconds] [throughput-seconds]
# ONLY=lat or ONLY=tput runs one part; another value is refused before
# anything starts (one line, exit 2).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../args.sh
. bench/args.sh
[ -z "${ONLY:-}" ] || bench_oneof bench/origin ONLY "$ONLY" lat tput

LAT_DUR=${1:-20}
TPUT_DUR=${2:-10}
LAT_RATE=${LAT_RATE:-5000}
CONNS_TPUT=64
for t in wrk nginx curl go; do
  command -v "$t" >/dev/null || { echo "bench/origin: $t not found (apt-get install -y wrk nginx curl)" >&2; exit 2; }
done
ulimit -n 20000 2>/dev/null || true

WORK=$(mktemp -d)
chmod 755 "$WORK" # nginx workers read the file as another user
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

go build -o "$WORK/loadlab" ./cmd/loadlab
go build -o "$WORK/loadgen" ./bench/origin/loadgen

# LAT_SERVER=std runs part 1 with -server std (default: lean, the default).
# PRIO=-10 runs the simulator and the generator under that nice value, to
# measure them apart from the other jobs of a shared machine (root only).
NICE=()
if [ -n "${PRIO:-}" ]; then NICE=(nice -n "$PRIO"); fi
# RT=N runs them under the real-time FIFO policy at priority N (chrt -f,
# root only): woken, they run at once instead of queueing behind other jobs
# for a core, as on a machine with cores to spare. Use with PIN=1.
if [ -n "${RT:-}" ]; then NICE=(chrt -f "$RT"); fi
# PIN=1 pins the simulator to CPU 1 and the generator to CPU 0 (as
# bench/attack does), so they do not take turns on the same core.
ORIGIN_CPU=() GEN_CPU=()
if [ -n "${PIN:-}" ]; then ORIGIN_CPU=(taskset -c 1) GEN_CPU=(taskset -c 0); fi

# start_origin RECIPE [FLAG...]: starts loadlab origin ($BIN, default the
# fresh build, with $BENV in its environment) on a free loopback port; sets
# ORIGIN_PID and ORIGIN_URL.
start_origin() {
  local r=$1
  shift
  rm -f "$WORK/origin.out"
  # shellcheck disable=SC2086 # BENV is a list of VAR=value words
  env ${BENV:-} "${NICE[@]}" "${ORIGIN_CPU[@]}" "${BIN:-$WORK/loadlab}" origin -quiet -seed 1 -recipe "$r" -listen 127.0.0.1:0 "$@" >"$WORK/origin.out" 2>"$WORK/origin.err" &
  ORIGIN_PID=$!
  PIDS+=("$ORIGIN_PID")
  for _ in $(seq 100); do
    if grep -q 'listening on' "$WORK/origin.out" 2>/dev/null; then break; fi
    sleep 0.1
  done
  ORIGIN_URL=$(awk '/listening on/ {print $4}' "$WORK/origin.out")
  [ -n "$ORIGIN_URL" ] || { cat "$WORK/origin.err" >&2; exit 1; }
}
stop_origin() { kill -INT "$ORIGIN_PID"; wait "$ORIGIN_PID" 2>/dev/null || true; }


# shellcheck source=../steal.sh
. bench/steal.sh
steal_mark
echo "# loadlab origin benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(. /etc/os-release; echo "$PRETTY_NAME"), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# --- 1. 1 s latency at ~5,000 req/s -------------------------------------
if [ "${ONLY:-}" != tput ]; then
cat >"$WORK/lat.json" <<'J'
{"random_content": "1kb", "stages": [{"at": 0, "status": 200, "latency": "1s"}]}
J
echo "## 1 s latency (-server ${LAT_SERVER:-lean}) at $LAT_RATE req/s for ${LAT_DUR}s, open loop (bench/origin/loadgen), first 2 s left out${PRIO:+, nice $PRIO}${RT:+, real-time priority $RT}${PIN:+, simulator on CPU 1 and generator on CPU 0}"
echo
echo "| run | sent | rate/s | conns | ok | errors | max in flight | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | p50 from send ms | p99 from send ms | origin peak RSS MB | GC cycles | origin CPU s | on time (1 ms / 5 ms) | load |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
# lat_run LABEL: one part-1 run with the current BIN and BENV.
lat_run() {
  start_origin "$WORK/lat.json" -server "${LAT_SERVER:-lean}"
  local row rss_kb load ontime gcs cpu
  row=$("${NICE[@]}" "${GEN_CPU[@]}" "$WORK/loadgen" -url "$ORIGIN_URL/lat" -rate "$LAT_RATE" -duration "${LAT_DUR}s")
  rss_kb=$(awk '/VmHWM/ {print $2}' "/proc/$ORIGIN_PID/status")
  load=$(cut -d' ' -f1 /proc/loadavg)
  curl -sf "$ORIGIN_URL/_admin/metrics" >"$WORK/metrics.txt" || true
  stop_origin
  # Server side: share of answers started at most 1 ms / 5 ms after their latency.
  ontime=$(awk '/^loadlab_origin_overshoot_seconds_bucket\{le="0.001"\}/ {a=$2} /^loadlab_origin_overshoot_seconds_bucket\{le="0.005"\}/ {b=$2} /^loadlab_origin_overshoot_seconds_count/ {n=$2} END {if (n>0) printf "%.2f%% / %.2f%%", 100*a/n, 100*b/n}' "$WORK/metrics.txt")
  gcs=$(awk '/^go_gc_duration_seconds_count/ {print $2}' "$WORK/metrics.txt")
  cpu=$(awk '/^process_cpu_seconds_total/ {printf "%.1f", $2}' "$WORK/metrics.txt")
  echo "| $1 |${row#|} $((rss_kb / 1024)) | $gcs | $cpu | $ontime | $load |"
}
if [ -n "${LAT_B_BIN:-}${LAT_B_ENV:-}" ]; then
  for _ in $(seq "${LAT_PAIRS:-1}"); do
    BIN= BENV= lat_run A
    BIN=${LAT_B_BIN:-} BENV=${LAT_B_ENV:-} lat_run "B${LAT_B_ENV:+ $LAT_B_ENV}"
  done
  echo
  echo "A: this tree's build; B: ${LAT_B_BIN:-same binary}${LAT_B_ENV:+ with $LAT_B_ENV}."
else
  lat_run "${LAT_SERVER:-lean}"
fi
echo
echo "Latencies count from each request's scheduled send time (the goal's client-seen latency); \"from send\" counts from the generator's actual write, without its own dispatch delay (1 ms batches). On time: answers the simulator started within 1 ms / 5 ms of their drawn 1 s (loadlab_origin_overshoot_seconds, from the kernel's receive time on the lean server). GC cycles and CPU are the simulator's whole run."
echo
echo "Goal: client-seen p99 <= 1005 ms, RSS < 300 MB."
echo
if [ -z "${LAT_B_BIN:-}${LAT_B_ENV:-}" ] && "$WORK/loadlab" attack -help >/dev/null 2>&1; then
  # Cross-check with loadlab's own generator (connection ramp-up included).
  start_origin "$WORK/lat.json"
  echo "GET $ORIGIN_URL/lat" | "${NICE[@]}" "${GEN_CPU[@]}" "$WORK/loadlab" attack -rate="$LAT_RATE" -duration="${LAT_DUR}s" -quiet >"$WORK/attack.bin"
  stop_origin
  echo "Cross-check, \`loadlab attack -rate=$LAT_RATE -duration=${LAT_DUR}s\` then \`loadlab report\`:"
  echo
  echo '```'
  "$WORK/loadlab" report "$WORK/attack.bin" | grep -E '^(Requests|Latencies|Success|Schedule Lag)'
  echo '```'
  echo
fi
fi

# --- 2. 50 kB (or SIZE), 0 ms: loadlab origin vs nginx ------------------
# SIZE=1kb measures part 2 with that body size instead (a recipe's
# random_content size).
if [ "${ONLY:-}" != lat ]; then
SIZE=${SIZE:-50kb}
cat >"$WORK/tput.json" <<J
{"random_content": "$SIZE", "stages": [{"at": 0, "status": 200, "latency": 0}]}
J
start_origin "$WORK/tput.json"
LEAN_PID=$ORIGIN_PID
LEAN_URL=$ORIGIN_URL
# TPUT_B_BIN=other-loadlab-binary puts that binary's default (lean) server
# in the "std" column instead: an A/B of two builds, alternated with nginx.
if [ -n "${TPUT_B_BIN:-}" ]; then
  BIN=$TPUT_B_BIN start_origin "$WORK/tput.json"
  STD="B ($(basename "$TPUT_B_BIN"))"
else
  start_origin "$WORK/tput.json" -server std
  STD=std
fi
mkdir -p "$WORK/www"
chmod 755 "$WORK/www"
curl -sf "$ORIGIN_URL/payload" -o "$WORK/www/payload"
NGINX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$WORK/nginx.conf" <<N
worker_processes $(nproc);
daemon off;
pid $WORK/nginx.pid;
error_log $WORK/nginx.err warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  default_type text/html;
  client_body_temp_path $WORK/ngx_body;
  proxy_temp_path $WORK/ngx_proxy;
  fastcgi_temp_path $WORK/ngx_fcgi;
  uwsgi_temp_path $WORK/ngx_uwsgi;
  scgi_temp_path $WORK/ngx_scgi;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $WORK/www;
    location / { try_files /payload =404; }
  }
}
N
nginx -c "$WORK/nginx.conf" &
NGINX_PID=$!
PIDS+=("$NGINX_PID")
sleep 0.5
NGINX_URL="http://127.0.0.1:$NGINX_PORT"
OB=$(curl -s -o /dev/null -w '%{size_download}' "$ORIGIN_URL/payload")
LB=$(curl -s -o /dev/null -w '%{size_download}' "$LEAN_URL/payload")
NB=$(curl -s -o /dev/null -w '%{size_download}' "$NGINX_URL/payload")

# cpu_ticks PID...: user+system CPU ticks (1/100 s) used so far by PIDs.
cpu_ticks() { local t=0 p; for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo "$t"; }
# run_tput URL PID...: sets RPS (req/s) and US (CPU microseconds the
# server PIDs spent per answer: steadier than req/s on a shared machine).
run_tput() {
  local url=$1 t0 out n
  shift
  t0=$(cpu_ticks "$@")
  out=$(wrk -t2 -c"$CONNS_TPUT" -d"${TPUT_DUR}s" "$url/payload" 2>&1)
  n=$(echo "$out" | awk '/requests in/ {print $1}')
  RPS=$(echo "$out" | awk '/Requests\/sec/ {printf "%.0f", $2}')
  US=$(( ($(cpu_ticks "$@") - t0) * 10000 / (n > 0 ? n : 1) ))
}
NGINX_WORKERS=$(pgrep -P "$NGINX_PID" | tr '\n' ' ')
echo "## $SIZE body, 0 ms latency, $CONNS_TPUT connections, ${TPUT_DUR}s per run (wrk -t2 -c$CONNS_TPUT), alternated"
echo
echo "| round | origin $STD req/s | origin default (lean) req/s | nginx req/s | $STD/nginx | lean/nginx | $STD CPU µs/answer | lean CPU µs/answer | nginx CPU µs/answer |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
SUM_O=0
SUM_L=0
SUM_N=0
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }
for round in 1 2; do
  run_tput "$ORIGIN_URL" "$ORIGIN_PID"; O=$RPS; OU=$US
  run_tput "$LEAN_URL" "$LEAN_PID"; L=$RPS; LU=$US
  # shellcheck disable=SC2086 # one PID per word
  run_tput "$NGINX_URL" $NGINX_WORKERS; N=$RPS; NU=$US
  SUM_O=$((SUM_O + O))
  SUM_L=$((SUM_L + L))
  SUM_N=$((SUM_N + N))
  echo "| $round | $O | $L | $N | $(ratio "$O" "$N") | $(ratio "$L" "$N") | $OU | $LU | $NU |"
done
echo "| all | $((SUM_O / 2)) | $((SUM_L / 2)) | $((SUM_N / 2)) | $(ratio "$SUM_O" "$SUM_N") | $(ratio "$SUM_L" "$SUM_N") | | | |"
echo
echo "Body bytes: origin $STD $OB, lean $LB, nginx $NB. Goal: ratio >= 1.00, CPU per answer <= nginx's."
stop_origin
ORIGIN_PID=$LEAN_PID
stop_origin
fi
echo "Steal over the whole run: $(steal_since) of the machine's CPU time (a VM's host taking CPU for other guests; see bench/steal.sh)."
