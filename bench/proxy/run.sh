#!/usr/bin/env bash
# Benchmarks for loadlab proxy (issue 4), loopback only, ~2.5 min in all:
#   1. overhead: a 0 ms origin at 2,000 req/s over keep-alive, reached
#      directly, through loadlab proxy with the default manager (serial,
#      poolboy's single process), through loadlab proxy with `manager:
#      concurrent` (for reference), through the serial proxy on every core
#      (-procs 0; the default is 1) and through nginx (reverse proxy with
#      upstream keep-alive) with one worker (the CPU reference: loadlab
#      proxy runs on one thread by default) and with two; and the overflow churn: loadlab with only
#      overflow workers (a dial and a close per request) against nginx
#      without upstream keep-alive. Same generator (loadlab attack, open
#      loop), alternated ROUNDS times; overhead = p50/p99 minus the direct
#      figures, CPU per request from the processes' clock ticks; and the
#      floor references (bench/proxy/floor: the least a Go proxy can do
#      for this traffic: floor-relay on net.Conn, floor-relay-raw on
#      internal/rawconn, floor-epoll an nginx-like epoll loop, and
#      variants such as floor-relay-raw+manager+deadlines; see the
#      floor's start below), not in the default PATHS: e.g.
#      PATHS="direct loadlab-serial nginx-1w floor-relay floor-relay-raw
#      floor-epoll". PERF=stat adds, after the rounds, a run per path
#      under `perf stat` (system calls and context switches per request),
#      PERF=record one under `perf record -g` (where the CPU goes: each
#      sample's stack sorted into one place), PERF="stat record" both;
#      PERF_DIR keeps perf's files;
#   2. report 000's comparison, scaled down: a fixed pool and an overflow
#      pool of the same total W (L = 100 ms origin, W = 64, knee R = W/L =
#      640 req/s), all under `manager: serial`; the overflow pool with no
#      start cost (only the real loopback dial and close), with report
#      000's poolboy cost at this bench's scale (rates ~1.6x below the
#      report's: worker_start_cost 1200us, worker_stop_cost 300us, ~600
#      starts/s) and with the demo's scale-model cost (13ms / 3ms, made for
#      rates 16x below the report's: ~60 starts/s). Per run: success ratio,
#      latency, the manager's mailbox peak, workers started per second,
#      upstream connections opened, proxy CPU per request; at 0.2x, 0.5x,
#      0.9x and 1.1x the knee.
# Needs: go, nginx, curl, python3 (Debian: apt-get install -y nginx curl python3).
# Usage: bench/proxy/run.sh [overhead-seconds-per-run] [knee-seconds-per-run]
#   3. ONLY=ab AB_BIN=other-loadlab-binary: an interleaved A/B of CPU per
#      proxied request, this checkout's build (A) against AB_BIN (B): one
#      attack alternates its requests between the two proxies, both behind
#      the same 0 ms origin (600 B) and pinned to CPU 1 (origin and
#      generator on CPU 0), so both see the same machine at the same
#      moment: A/A runs gave 1.000-1.005, where the sequential rounds of
#      part 1 move by 5-15% on a shared machine. ROUNDS (default 4) rounds
#      of overhead-seconds (default 5 here) at RATE (default 4000 here)
#      in all; run it both ways round (AB_A=loadlab-binary makes A that
#      build instead of this checkout's). Needs taskset (util-linux).
#      AB_BIN=nginx makes B nginx with one worker (the CPU goal's
#      reference, upstream keep-alive 64, pinned to CPU 1 likewise): the
#      goal's ratio measured in one attack, request by request alternated,
#      instead of from sequential rounds; AB_BIN=floor-MODE[+OPTION...]
#      makes B that floor (as in PATHS below). AB_LATENCY (default 0s)
#      is the origin's latency: e.g. 20ms, a slow upstream, where every
#      request outlives the lean server's 10 ms watch delay and its
#      client is watched.
#   ONLY=overhead or ONLY=knee runs one part; ROUNDS, RATE, FACTORS
#   ("20 50 90 110", percent of the knee) override the defaults; PATHS
#   picks the overhead part's paths (direct first).
# A setting nothing matches (ONLY, PATHS, PERF, PERF_DIR) is refused
# before anything starts: one line naming it, exit 2.
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=../args.sh
. bench/args.sh
[ -z "${ONLY:-}" ] || bench_oneof bench/proxy ONLY "$ONLY" overhead knee ab
# check_floor SETTING floor-MODE[+OPTION...]: refuses an unknown mode or option.
check_floor() {
  local spec=${2#floor-} o opts
  case ${spec%%+*} in relay|relay-raw|epoll) ;; *) bench_bad bench/proxy "$1" "$2: unknown floor mode '${spec%%+*}' (want relay, relay-raw or epoll)" ;; esac
  IFS=+ read -ra opts <<<"$spec"
  for o in "${opts[@]:1}"; do
    case $o in manager|deadlines|rewrite|stamps|nodefer|watch) ;; *) bench_bad bench/proxy "$1" "$2: unknown floor option '$o' (want manager, deadlines, rewrite, stamps, nodefer or watch)" ;; esac
  done
}
KNOWN_PATHS="direct loadlab-serial nginx-1w nginx loadlab-concurrent loadlab-serial-allcores loadlab-churn nginx-noka"
if [ -n "${PATHS:-}" ]; then
  read -ra WANT <<<"$PATHS"
  [ "${WANT[0]}" = direct ] || bench_bad bench/proxy PATHS "must start with direct, the path every overhead is measured against (got '$PATHS')"
  for n in "${WANT[@]}"; do
    case " $KNOWN_PATHS " in *" $n "*) continue ;; esac
    case $n in
      floor-*) ;;
      *) bench_bad bench/proxy PATHS "unknown path '$n' (want $KNOWN_PATHS, or floor-MODE[+OPTION...])" ;;
    esac
    check_floor PATHS "$n"
  done
fi
if [ -n "${PERF:-}" ]; then
  bench_each bench/proxy PERF "$PERF" stat record
  command -v perf >/dev/null || bench_bad bench/proxy PERF "perf not found (apt-get install -y linux-perf)"
fi
if [ -n "${PERF_DIR:-}" ] && { [ ! -d "$PERF_DIR" ] || [ ! -w "$PERF_DIR" ]; }; then
  bench_bad bench/proxy PERF_DIR "'$PERF_DIR' is not a directory this user can write (perf's files would be lost)"
fi

OVH_DUR=${1:-2}
KNEE_DUR=${2:-5}
if [ "${ONLY:-}" = ab ]; then
  [[ ${AB_BIN:-} != floor-* ]] || check_floor AB_BIN "$AB_BIN"
  [[ ${AB_LATENCY:-0s} =~ ^[0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m)$ ]] || bench_bad bench/proxy AB_LATENCY "want a duration such as 20ms or 0s (got '${AB_LATENCY}')"
  [ "${AB_BIN:-}" = nginx ] || [[ ${AB_BIN:-} == floor-* ]] || [ -x "${AB_BIN:-}" ] || { echo "bench/proxy: ONLY=ab needs AB_BIN, an executable loadlab build, nginx or floor-MODE[+OPTION...] (got '${AB_BIN:-}')" >&2; exit 2; }
  [ -z "${AB_A:-}" ] || [ -x "$AB_A" ] || bench_bad bench/proxy AB_A "want an executable loadlab build (got '$AB_A')"
  command -v taskset >/dev/null || { echo "bench/proxy: taskset not found (apt-get install -y util-linux)" >&2; exit 2; }
  OVH_DUR=${1:-5}
  ROUNDS=${ROUNDS:-4}
  RATE=${RATE:-4000}
fi
ROUNDS=${ROUNDS:-6}
RATE=${RATE:-2000}
for t in nginx curl python3 go; do
  command -v "$t" >/dev/null || { echo "bench/proxy: $t not found (apt-get install -y nginx curl python3)" >&2; exit 2; }
done
ulimit -n 20000 2>/dev/null || true

WORK=$(mktemp -d)
chmod 755 "$WORK"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

go build -o "$WORK/loadlab" ./cmd/loadlab
go build -o "$WORK/floor" ./bench/proxy/floor
L="$WORK/loadlab"

# wait_url FILE: waits for "listening on http://..." in FILE, prints the URL.
wait_url() {
  for _ in $(seq 100); do
    if grep -q 'listening on' "$1" 2>/dev/null; then break; fi
    sleep 0.1
  done
  grep -o 'http://[0-9.:]*' "$1" | head -1
}

# start_origin LATENCY: sets ORIGIN_URL.
start_origin() {
  cat >"$WORK/recipe.json" <<J
{"body": "$(head -c 600 /dev/zero | tr '\0' x)", "headers": {"cache-control": "private, max-age=0"}, "stages": [{"at": 0, "status": 200, "latency": "$1"}]}
J
  "$L" origin -quiet -seed 1 -recipe "$WORK/recipe.json" -listen 127.0.0.1:0 >"$WORK/origin.out" 2>"$WORK/origin.err" &
  ORIGIN_PID=$!
  PIDS+=("$ORIGIN_PID")
  ORIGIN_URL=$(wait_url "$WORK/origin.out")
  [ -n "$ORIGIN_URL" ] || { cat "$WORK/origin.err" >&2; exit 1; }
}

# start_proxy CONFIG: sets PROXY_PID and PROXY_URL.
start_proxy() {
  "$L" proxy -config "$1" -listen 127.0.0.1:0 >"$WORK/proxy.out" 2>"$WORK/proxy.err" &
  PROXY_PID=$!
  PIDS+=("$PROXY_PID")
  PROXY_URL=$(wait_url "$WORK/proxy.out")
  [ -n "$PROXY_URL" ] || { cat "$WORK/proxy.err" >&2; exit 1; }
}

# cpu_ticks PID: user+system clock ticks of a process.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# attack URL RATE DUR NAME: writes $WORK/NAME.json (loadlab report -type json).
attack() {
  echo "GET $1" | "$L" attack -rate "$2/s" -duration "$3s" -timeout 10s -quiet -max-body 0 >"$WORK/$4.bin"
  "$L" report -type json "$WORK/$4.bin" >"$WORK/$4.json"
}

# shellcheck source=../steal.sh
. bench/steal.sh
steal_mark
echo "# loadlab proxy benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(. /etc/os-release; echo "$PRETTY_NAME"), $(nginx -v 2>&1), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
NGINX_PORT=$(free_port)
NGINX_NOKA_PORT=$(free_port)
# nginx_conf DIR WORKERS PORT NOKA_PORT: an nginx config in DIR.
nginx_conf() {
  mkdir -p "$1"
  cat >"$1/nginx.conf" <<N
worker_processes $2;
daemon off;
user root;
pid $1/nginx.pid;
error_log $1/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $1/body;
  proxy_temp_path $1/proxy;
  fastcgi_temp_path $1/fastcgi;
  uwsgi_temp_path $1/uwsgi;
  scgi_temp_path $1/scgi;
  upstream origin { server ${ORIGIN_URL#http://}; keepalive 64; }
  upstream origin_noka { server ${ORIGIN_URL#http://}; }
  server {
    listen 127.0.0.1:$3;
    keepalive_requests 100000;
    location / {
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering on;
    }
  }
  # Without upstream keep-alive: a connection per request, as overflow.
  server {
    listen 127.0.0.1:$4;
    keepalive_requests 100000;
    location / {
      proxy_pass http://origin_noka;
      proxy_buffering on;
    }
  }
}
N
}

# floor_args floor-MODE[+OPTION...]: sets args, the floor's flags.
floor_args() {
  local spec=${1#floor-} o opts
  args=(-mode "${spec%%+*}")
  IFS=+ read -ra opts <<<"$spec"
  for o in "${opts[@]:1}"; do
    case $o in # checked at the start
      manager|deadlines|rewrite|stamps|watch) args+=("-$o") ;;
      nodefer) args+=(-defer-answer=false) ;;
    esac
  done
}

# --- 1. overhead at 2,000 req/s, and overflow churn -------------------
if [ -z "${ONLY:-}" ] || [ "$ONLY" = overhead ]; then
start_origin 0s
# pool_yaml NAME POOL: a proxy config with one pool and one route.
pool_yaml() {
  cat >"$WORK/proxy-$1.yaml" <<Y
pools:
  default: $2
routes:
  - {name: all, path: "/*", upstream: "$ORIGIN_URL", request_timeout: 5s}
Y
}
# The same fixed pool of 64 under each manager; serial is the default, named
# here so the figures say what they measured. -procs 1 is the default; the
# serial proxy is also run on every core (-procs 0) to show what it saves.
pool_yaml serial "{size: 64, overflow: 0, checkout_timeout: 6s, manager: serial}"
pool_yaml concurrent "{size: 64, overflow: 0, checkout_timeout: 6s, manager: concurrent}"
# Overflow churn: no resident worker, so every request gets an overflow
# worker, which dials the origin and closes at checkin (no start cost).
pool_yaml churn "{size: 0, overflow: 64, checkout_timeout: 6s, manager: serial, worker_start_cost: 0s, worker_stop_cost: 0s}"
declare -A PID URL TICKS
for name in serial concurrent churn; do
  start_proxy "$WORK/proxy-$name.yaml"
  PID[loadlab-$name]=$PROXY_PID; URL[loadlab-$name]=$PROXY_URL
done
"$L" proxy -procs 0 -config "$WORK/proxy-serial.yaml" -listen 127.0.0.1:0 >"$WORK/proxy-all.out" 2>"$WORK/proxy-all.err" &
PID[loadlab-serial-allcores]=$!; PIDS+=("$!")
URL[loadlab-serial-allcores]=$(wait_url "$WORK/proxy-all.out")
# The floor references, the same pool of 64 (bench/proxy/floor), started
# for the floor paths in PATHS: floor-MODE[+OPTION...], MODE relay,
# relay-raw or epoll, OPTION manager, deadlines, rewrite, stamps, nodefer
# or watch (the floor's -manager, -deadlines, -rewrite, -stamps,
# -defer-answer=false, -watch), e.g.
# floor-relay-raw+manager.
FLOORS=()
for n in ${PATHS:-}; do
  case $n in floor-*) ;; *) continue ;; esac
  floor_args "$n"
  "$WORK/floor" "${args[@]}" -pool 64 -upstream "${ORIGIN_URL#http://}" -listen 127.0.0.1:0 -max-life 2h >"$WORK/$n.out" 2>"$WORK/$n.err" &
  PID[$n]=$!; PIDS+=("$!"); FLOORS+=("$n")
  URL[$n]=$(wait_url "$WORK/$n.out")
  [ -n "${URL[$n]}" ] || { cat "$WORK/$n.err" >&2; exit 2; }
done
# Two workers (as before) and one worker (a single-threaded proxy against
# a single-threaded proxy: loadlab runs on one P by default).
nginx_conf "$WORK/nginx" 2 "$NGINX_PORT" "$NGINX_NOKA_PORT"
nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" &
NGINX_PID=$!
PIDS+=("$NGINX_PID")
NGINX1_PORT=$(free_port)
NGINX1_NOKA_PORT=$(free_port)
nginx_conf "$WORK/nginx1" 1 "$NGINX1_PORT" "$NGINX1_NOKA_PORT"
nginx -c "$WORK/nginx1/nginx.conf" -p "$WORK/nginx1" &
NGINX1_PID=$!
PIDS+=("$NGINX1_PID")
for _ in $(seq 50); do curl -fs -o /dev/null "http://127.0.0.1:$NGINX_PORT/" && break; sleep 0.1; done
for _ in $(seq 50); do curl -fs -o /dev/null "http://127.0.0.1:$NGINX1_PORT/" && break; sleep 0.1; done
URL[nginx-1w]="http://127.0.0.1:$NGINX1_PORT"
URL[nginx]="http://127.0.0.1:$NGINX_PORT"; URL[nginx-noka]="http://127.0.0.1:$NGINX_NOKA_PORT"
URL[direct]=$ORIGIN_URL
for n in loadlab-serial loadlab-concurrent loadlab-churn loadlab-serial-allcores nginx-noka nginx-1w "${FLOORS[@]}"; do
  curl -fs -o /dev/null "${URL[$n]}/" || { echo "$n not answering" >&2; exit 1; }
done
# ticks NAME: CPU ticks of a path's proxy (nginx: master and workers).
ticks() {
  case $1 in
    direct) echo 0 ;;
    nginx|nginx-noka)
      local t=0 p
      for p in "$NGINX_PID" $(pgrep -P "$NGINX_PID"); do t=$((t + $(cpu_ticks "$p"))); done
      echo "$t" ;;
    nginx-1w)
      local t=0 p
      for p in "$NGINX1_PID" $(pgrep -P "$NGINX1_PID"); do t=$((t + $(cpu_ticks "$p"))); done
      echo "$t" ;;
    *) cpu_ticks "${PID[$1]}" ;;
  esac
}
# pids NAME: the processes of a path's proxy, comma-separated (for perf).
pids() {
  case $1 in
    nginx|nginx-noka) echo "$NGINX_PID$(pgrep -P "$NGINX_PID" | sed 's/^/,/' | tr -d '\n')" ;;
    nginx-1w) echo "$NGINX1_PID$(pgrep -P "$NGINX1_PID" | sed 's/^/,/' | tr -d '\n')" ;;
    *) echo "${PID[$1]}" ;;
  esac
}
# PATHS narrows the paths (direct first; nginx-1w is the reference when nginx
# is not run), e.g. PATHS="direct loadlab-serial nginx-1w nginx".
PATHS=${PATHS:-$KNOWN_PATHS}
echo "## Overhead at $RATE req/s, keep-alive from the client, ${OVH_DUR}s per run, $ROUNDS rounds alternated (0 ms origin: loadlab origin, 600 B body)"
for n in $PATHS; do TICKS[$n]=0; done
for r in $(seq "$ROUNDS"); do
  for n in $PATHS; do
    c0=$(ticks "$n")
    attack "${URL[$n]}/x" "$RATE" "$OVH_DUR" "$n-$r"
    TICKS[$n]=$((TICKS[$n] + $(ticks "$n") - c0))
  done
done
TCK=$(getconf CLK_TCK)
REQS=$((RATE * OVH_DUR * ROUNDS))
for n in $PATHS; do echo "$n ${TICKS[$n]}"; done >"$WORK/ticks"
python3 - "$WORK" "$ROUNDS" "$TCK" "$REQS" "$PATHS" <<'P2'
import json, sys, statistics as st
work, rounds, tck, reqs, paths = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5].split()
ticks = dict(l.split() for l in open(f"{work}/ticks"))
cpu = {n: int(ticks[n]) / tck / reqs * 1e6 for n in paths}
label = {"loadlab-serial": "loadlab, serial (default, -procs 1)", "loadlab-concurrent": "loadlab, concurrent (-procs 1)",
         "loadlab-serial-allcores": "loadlab, serial, -procs 0 (every core)", "nginx": "nginx, 2 workers (upstream keep-alive)",
         "nginx-1w": "nginx, 1 worker (upstream keep-alive)",
         "loadlab-churn": "loadlab, 0 + 64 overflow: dial + close per request", "nginx-noka": "nginx without upstream keep-alive",
         "floor-relay": "floor: relay on net.Conn", "floor-relay-raw": "floor: relay on rawconn",
         "floor-epoll": "floor: epoll loop, one thread"}
def load(name):
    return [json.load(open(f"{work}/{name}-{r}.json")) for r in range(1, rounds + 1)]
d = load("direct")
ms = lambda ns: f"{ns/1e6:.3f} ms"
print("| path | round | p50 | p99 | max | success | overhead p50 | overhead p99 |")
print("|---|---|---|---|---|---|---|---|")
for name in paths:
    for i, x in enumerate(load(name)):
        lat = x["latencies"]; base = d[i]["latencies"]
        print(f"| {name} | {i+1} | {ms(lat['50th'])} | {ms(lat['99th'])} | {ms(lat['max'])} | {x['success']*100:.2f}% "
              f"| {ms(lat['50th']-base['50th']) if name != 'direct' else '-'} | {ms(lat['99th']-base['99th']) if name != 'direct' else '-'} |")
print()
print("| path | overhead p50 (median of rounds) | overhead p99 (median of rounds) | CPU per request | vs nginx (1 worker) |")
print("|---|---:|---:|---:|---:|")
for name in paths[1:]:
    runs = load(name)
    o50 = st.median(x["latencies"]["50th"] - d[i]["latencies"]["50th"] for i, x in enumerate(runs)) / 1e6
    o99 = st.median(x["latencies"]["99th"] - d[i]["latencies"]["99th"] for i, x in enumerate(runs)) / 1e6
    ref = cpu.get("nginx-noka") if name in ("loadlab-churn", "nginx-noka") else cpu.get("nginx-1w", cpu.get("nginx"))
    vs = f"{cpu[name]/ref:.2f}×" if ref else "-"
    print(f"| {label.get(name, name)} | {o50:.3f} ms | {o99:.3f} ms | {cpu[name]:.0f} µs | {vs} |")
P2
# PERF: one more run per path under perf, at the same rate and length.
PERF_DIR=${PERF_DIR:-$WORK}
for what in ${PERF:-}; do # checked at the start
  [ "$what" = stat ] && { echo; echo "## perf stat: per request, over $((RATE * OVH_DUR)) requests (one more run per path)"; echo "| path | system calls | of which | context switches | CPU migrations |"; echo "|---|---:|---|---:|---:|"; }
  for n in $PATHS; do
    [ "$n" = direct ] && continue
    if [ "$what" = stat ]; then
      perf stat -x, -o "$PERF_DIR/$n.stat" -e 'syscalls:sys_enter_*' -e context-switches -e cpu-migrations -p "$(pids "$n")" &
    else
      perf record -q -g -o "$PERF_DIR/$n.perf" -p "$(pids "$n")" 2>/dev/null &
    fi
    PERF_PID=$!
    sleep 0.5
    attack "${URL[$n]}/x" "$RATE" "$OVH_DUR" "$n-perf"
    kill -INT "$PERF_PID"; wait "$PERF_PID" 2>/dev/null || true
    if [ "$what" = stat ]; then
      python3 - "$PERF_DIR/$n.stat" "$n" "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['requests'])" "$WORK/$n-perf.json")" <<'P3'
import sys
path, name, reqs = sys.argv[1], sys.argv[2], int(sys.argv[3])
count = {}
for line in open(path):
    f = line.strip().split(",")
    if len(f) > 2 and f[0].replace(".", "").isdigit():
        count[f[2]] = count.get(f[2], 0) + float(f[0])
sc = {k.split("sys_enter_")[1]: v for k, v in count.items() if "sys_enter_" in k and v > 0}
top = ", ".join(f"{k} {v/reqs:.2f}" for k, v in sorted(sc.items(), key=lambda kv: -kv[1]) if v / reqs >= 0.01)
print(f"| {name} | {sum(sc.values())/reqs:.2f} | {top} | {count.get('context-switches', 0)/reqs:.2f} | {count.get('cpu-migrations', 0)/reqs:.3f} |")
P3
    fi
  done
  [ "$what" = record ] || continue
  # Each sample's whole stack decides where it goes (the leaf alone
  # mostly says finish_task_switch: the kernel re-enabling interrupts
  # after a switch); µs per request from the samples at perf's 4 kHz.
  echo; echo "## perf record -g: where the CPU goes, µs per request (and share) from the samples (perf's unwinding adds a third or more)"
  for n in $PATHS; do
    [ "$n" = direct ] && continue
    echo "$n $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['requests'])" "$WORK/$n-perf.json")"
  done >"$WORK/perf-paths"
  python3 - "$PERF_DIR" "$WORK/perf-paths" <<'P4'
import collections, subprocess, sys
perf_dir, paths = sys.argv[1], [l.split() for l in open(sys.argv[2])]
WHOLE = [("Go sysmon thread", ("runtime.sysmon",)),
         ("allocation, GC", ("gcBgMarkWorker", "bgsweep", "bgscavenge", "gcStart", "markroot", "gcDrain")),
         ("scheduler, poller, waiting", ("runtime.findRunnable", "runtime.schedule", "runtime.netpoll", "runtime.park_m", "runtime.mcall", "epoll_wait"))]
USER = [("allocation, GC", ("runtime.mallocgc", "runtime.newobject", "runtime.makeslice", "runtime.growslice", "runtime.makemap",
                            "runtime.mapassign", "runtime.makechan", "runtime.memclrNoHeapPointers")),
        ("user: histograms", ("hdrhistogram", "internal/proxy/hist")), ("user: net/http, textproto, url", ("net/http.", "net/textproto.", "net/url.")),
        ("user: context", ("context.",)), ("user: lean server (internal/http1)", ("internal/http1.",)),
        ("user: pool (internal/proxy/pool)", ("internal/proxy/pool.",)), ("user: proxy (internal/proxy)", ("internal/proxy.",)),
        ("user: floor (main)", ("main.",)), ("user: nginx, libc", ("ngx_", "libc"))]
def stacks(path):
    out = subprocess.run(["perf", "script", "-i", path, "-F", "ip,sym,dso"], capture_output=True, text=True).stdout
    for block in out.split("\n\n"):
        st = [l.strip().split(None, 1)[1] for l in block.splitlines() if len(l.strip().split(None, 1)) == 2]
        if st:
            yield st
def where(st):
    whole, kernel = " ".join(st), "[kernel" in st[0]
    for name, keys in WHOLE:
        if any(k in whole for k in keys):
            return (name + ": kernel" if kernel else name) if name.startswith("sched") else name
    if kernel:
        return "kernel: context switch" if "finish_task_switch" in st[0] else "kernel: system calls, TCP"
    for frame in st:
        for name, keys in USER:
            if any(k in frame for k in keys):
                return name
    return "user: other"
got = {n: collections.Counter(where(st) for st in stacks(f"{perf_dir}/{n}.perf")) for n, _ in paths}
reqs = {n: int(r) for n, r in paths}
rows = sorted({k for c in got.values() for k in c})
print("| where | " + " | ".join(n for n, _ in paths) + " |")
print("|---|" + "---:|" * len(paths))
for k in rows + ["total"]:
    cells = []
    for n, _ in paths:
        c = got[n]; v = sum(c.values()) if k == "total" else c[k]
        cells.append(f"{v * 250 / reqs[n]:.1f} ({v * 100 / max(1, sum(c.values())):.0f}%)")
    print(f"| {k} | " + " | ".join(cells) + " |")
P4
done
for n in loadlab-serial loadlab-concurrent loadlab-churn loadlab-serial-allcores "${FLOORS[@]}"; do kill "${PID[$n]}" 2>/dev/null || true; done
kill "$ORIGIN_PID"; wait "$ORIGIN_PID" 2>/dev/null || true
nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" -s quit 2>/dev/null || true
nginx -c "$WORK/nginx1/nginx.conf" -p "$WORK/nginx1" -s quit 2>/dev/null || true
echo
fi

# --- 2. fixed vs overflow around the knee, serial manager -------------
if [ -z "${ONLY:-}" ] || [ "$ONLY" = knee ]; then
W=64
LAT_MS=100
KNEE=$((W * 1000 / LAT_MS))
start_origin "${LAT_MS}ms"
echo "## Fixed vs overflow pool, W = $W workers, manager: serial, ${LAT_MS} ms origin, knee $KNEE req/s, ${KNEE_DUR}s per run (checkout_timeout 300ms, request_timeout 5s)"
echo "| pool | start / stop cost | rate | success | p50 | p99 | mailbox peak | starts/s | upstream conns opened | proxy CPU | CPU per request |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
TCK=$(getconf CLK_TCK)
for factor in ${FACTORS:-20 50 90 110}; do
  RATE_K=$((KNEE * factor / 100))
  for kind in fixed overflow overflow-cost overflow-demo; do
    case $kind in
      fixed) POOL="{size: $W, overflow: 0, checkout_timeout: 300ms, manager: serial}"; COST="-" ;;
      overflow) POOL="{size: $((W / 8)), overflow: $((W - W / 8)), checkout_timeout: 300ms, manager: serial, worker_start_cost: 0s, worker_stop_cost: 0s}"; COST="0 / 0 (dial only)" ;;
      overflow-cost) POOL="{size: $((W / 8)), overflow: $((W - W / 8)), checkout_timeout: 300ms, manager: serial, worker_start_cost: 1200us, worker_stop_cost: 300us}"; COST="1.2 ms / 0.3 ms + dial" ;;
      overflow-demo) POOL="{size: $((W / 8)), overflow: $((W - W / 8)), checkout_timeout: 300ms, manager: serial, worker_start_cost: 13ms, worker_stop_cost: 3ms}"; COST="13 ms / 3 ms + dial" ;;
    esac
    cat >"$WORK/knee.yaml" <<Y
pools:
  default: $POOL
routes:
  - {name: all, path: "/*", upstream: "$ORIGIN_URL", request_timeout: 5s}
Y
    start_proxy "$WORK/knee.yaml"
    c0=$(cpu_ticks "$PROXY_PID")
    attack "$PROXY_URL/search" "$RATE_K" "$KNEE_DUR" "knee-$kind-$factor"
    c1=$(cpu_ticks "$PROXY_PID")
    curl -fs "$PROXY_URL/status" >"$WORK/knee-$kind-$factor.status"
    kill "$PROXY_PID"; wait "$PROXY_PID" 2>/dev/null || true
    python3 - "$WORK/knee-$kind-$factor" "$kind" "$RATE_K" "$c0" "$c1" "$TCK" "$COST" "$KNEE_DUR" "$W" <<'P'
import json, sys
base, kind, rate, c0, c1, tck, cost, dur, w = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7], float(sys.argv[8]), int(sys.argv[9])
r = json.load(open(base + ".json")); s = json.load(open(base + ".status"))
p = s["pools"][0]
cpu = (c1 - c0) / tck
n = r["requests"]
pool = f"{p['size']} fixed" if p["overflow"] == 0 else f"{p['size']} + {p['overflow']} overflow"
print(f"| {pool} | {cost} | {rate}/s | {r['success']*100:.2f}% | {r['latencies']['50th']/1e6:.1f} ms | {r['latencies']['99th']/1e6:.1f} ms "
      f"| {p['mailbox_peak']} | {p['overflow_opened']/dur:.0f} | {s['upstream_connections']['opened']} | {cpu:.2f} s | {cpu/n*1e6:.0f} µs |")
P
  done
done
fi

# --- 3. interleaved A/B of two builds (ONLY=ab) -----------------------
if [ "${ONLY:-}" = ab ]; then
cat >"$WORK/recipe.json" <<J
{"body": "$(head -c 600 /dev/zero | tr '\0' x)", "headers": {"cache-control": "private, max-age=0"}, "stages": [{"at": 0, "status": 200, "latency": "${AB_LATENCY:-0s}"}]}
J
taskset -c 0 "$L" origin -quiet -seed 1 -recipe "$WORK/recipe.json" -listen 127.0.0.1:0 >"$WORK/origin.out" 2>"$WORK/origin.err" &
PIDS+=($!)
ORIGIN_URL=$(wait_url "$WORK/origin.out")
[ -n "$ORIGIN_URL" ] || { cat "$WORK/origin.err" >&2; exit 1; }
cat >"$WORK/proxy-ab.yaml" <<Y
pools:
  default: {size: 64, overflow: 0, checkout_timeout: 6s, manager: serial}
routes:
  - {name: all, path: "/*", upstream: "$ORIGIN_URL", request_timeout: 5s}
Y
declare -A ABPID ABURL
for side in A B; do
  if [ "$side" = B ] && [[ $AB_BIN == floor-* ]]; then
    floor_args "$AB_BIN"
    taskset -c 1 "$WORK/floor" "${args[@]}" -pool 64 -upstream "${ORIGIN_URL#http://}" -listen 127.0.0.1:0 -max-life 2h >"$WORK/ab-B.out" 2>"$WORK/ab-B.err" &
    ABPID[B]=$!
    PIDS+=($!)
    ABURL[B]=$(wait_url "$WORK/ab-B.out")
    curl -fs -o /dev/null "${ABURL[B]}/" || { cat "$WORK/ab-B.err" >&2; exit 1; }
    continue
  fi
  if [ "$side" = B ] && [ "$AB_BIN" = nginx ]; then
    # nginx, one worker, as the overhead part's nginx-1w (its master only
    # waits: the worker's ticks are counted).
    nginx_conf "$WORK/nginx-ab" 1 "$NGINX_PORT" "$NGINX_NOKA_PORT"
    taskset -c 1 nginx -c "$WORK/nginx-ab/nginx.conf" -p "$WORK/nginx-ab" >"$WORK/ab-B.out" 2>"$WORK/ab-B.err" &
    PIDS+=($!)
    ABURL[B]="http://127.0.0.1:$NGINX_PORT"
    for _ in $(seq 50); do curl -fs -o /dev/null "${ABURL[B]}/" && break; sleep 0.1; done
    curl -fs -o /dev/null "${ABURL[B]}/" || { cat "$WORK/ab-B.err" "$WORK/nginx-ab/error.log" >&2; exit 1; }
    ABPID[B]=$(pgrep -P "$!" | head -1)
    [ -n "${ABPID[B]}" ] || { echo "bench/proxy: nginx's worker not found" >&2; exit 1; }
    continue
  fi
  bin=${AB_A:-$L}
  [ "$side" = B ] && bin=$AB_BIN
  taskset -c 1 "$bin" proxy -config "$WORK/proxy-ab.yaml" -listen 127.0.0.1:0 >"$WORK/ab-$side.out" 2>"$WORK/ab-$side.err" &
  ABPID[$side]=$!
  PIDS+=($!)
  ABURL[$side]=$(wait_url "$WORK/ab-$side.out")
  curl -fs -o /dev/null "${ABURL[$side]}/" || { cat "$WORK/ab-$side.err" >&2; exit 1; }
done
# utime_stime PID: user and system clock ticks of a process.
utime_stime() { awk '{print $14, $15}' "/proc/$1/stat"; }
echo "## Interleaved A/B: A = ${AB_A:-this checkout}, B = $AB_BIN; $ROUNDS rounds of ${OVH_DUR}s at $RATE req/s in all (half to each), origin latency ${AB_LATENCY:-0s}"
TOT=(0 0 0 0)
for r in $(seq "$ROUNDS"); do
  read -r au0 as0 < <(utime_stime "${ABPID[A]}")
  read -r bu0 bs0 < <(utime_stime "${ABPID[B]}")
  printf 'GET %s/x\nGET %s/x\n' "${ABURL[A]}" "${ABURL[B]}" |
    taskset -c 0 "$L" attack -rate "$RATE/s" -duration "${OVH_DUR}s" -timeout 10s -quiet -max-body 0 >"$WORK/ab-$r.bin"
  read -r au1 as1 < <(utime_stime "${ABPID[A]}")
  read -r bu1 bs1 < <(utime_stime "${ABPID[B]}")
  echo "round $r: A user $((au1 - au0)) system $((as1 - as0)) ticks, B user $((bu1 - bu0)) system $((bs1 - bs0)) ticks"
  TOT=($((TOT[0] + au1 - au0)) $((TOT[1] + as1 - as0)) $((TOT[2] + bu1 - bu0)) $((TOT[3] + bs1 - bs0)))
done
"$L" report -type json "$WORK/ab-1.bin" | python3 -c 'import json,sys; x=json.load(sys.stdin); print("round 1: success %.2f%%, p50 %.3f ms" % (x["success"]*100, x["latencies"]["50th"]/1e6))'
python3 - "${TOT[@]}" "$(getconf CLK_TCK)" "$((RATE * OVH_DUR * ROUNDS / 2))" <<'P'
import sys
au, asy, bu, bs, tck, n = map(int, sys.argv[1:])
us = lambda t: t / tck / n * 1e6
print(f"A: user {us(au):.1f} + system {us(asy):.1f} = {us(au+asy):.1f} µs per request")
print(f"B: user {us(bu):.1f} + system {us(bs):.1f} = {us(bu+bs):.1f} µs per request")
print(f"B/A: {(bu+bs)/(au+asy):.3f}")
P
fi
echo "Steal over the whole run: $(steal_since) of the machine's CPU time (a VM's host taking CPU for other guests; see bench/steal.sh)."
