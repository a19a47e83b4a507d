#!/usr/bin/env bash
# Benchmarks for loadlab proxy (issue 4), loopback only, ~2.5 min in all:
#   1. overhead: a 0 ms origin at 2,000 req/s over keep-alive, reached
#      directly, through loadlab proxy with the default manager (serial,
#      poolboy's single process), through loadlab proxy with `manager:
#      concurrent` (for reference) and through nginx (reverse proxy with
#      upstream keep-alive), same generator (loadlab attack, open loop),
#      alternated ROUNDS times; overhead = p50/p99 minus the direct figures;
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
#   ONLY=overhead or ONLY=knee runs one part; ROUNDS, RATE, FACTORS
#   ("20 50 90 110", percent of the knee) override the defaults.
set -euo pipefail
cd "$(dirname "$0")/../.."

OVH_DUR=${1:-2}
KNEE_DUR=${2:-5}
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

echo "# loadlab proxy benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(. /etc/os-release; echo "$PRETTY_NAME"), $(nginx -v 2>&1), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# --- 1. overhead at 2,000 req/s ---------------------------------------
if [ "${ONLY:-}" != knee ]; then
start_origin 0s
# The same fixed pool of 64 under each manager; serial is the default, named
# here so the figures say what they measured.
for mgr in serial concurrent; do
  cat >"$WORK/proxy-$mgr.yaml" <<Y
pools:
  default: {size: 64, overflow: 0, checkout_timeout: 6s, manager: $mgr}
routes:
  - {name: all, path: "/*", upstream: "$ORIGIN_URL", request_timeout: 5s}
Y
done
start_proxy "$WORK/proxy-serial.yaml"
SER_PID=$PROXY_PID; SER_URL=$PROXY_URL
start_proxy "$WORK/proxy-concurrent.yaml"
CON_PID=$PROXY_PID; CON_URL=$PROXY_URL
NGINX_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$WORK/nginx"
cat >"$WORK/nginx.conf" <<N
worker_processes 2;
daemon off;
user root;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/body;
  proxy_temp_path $WORK/nginx/proxy;
  fastcgi_temp_path $WORK/nginx/fastcgi;
  uwsgi_temp_path $WORK/nginx/uwsgi;
  scgi_temp_path $WORK/nginx/scgi;
  upstream origin { server ${ORIGIN_URL#http://}; keepalive 64; }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    keepalive_requests 100000;
    location / {
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering on;
    }
  }
}
N
nginx -c "$WORK/nginx.conf" -p "$WORK/nginx" &
NGINX_PID=$!
PIDS+=("$NGINX_PID")
for _ in $(seq 50); do curl -fs -o /dev/null "http://127.0.0.1:$NGINX_PORT/" && break; sleep 0.1; done
for u in "$SER_URL" "$CON_URL"; do curl -fs -o /dev/null "$u/" || { echo "proxy not answering" >&2; exit 1; }; done

echo "## Overhead at $RATE req/s, keep-alive, ${OVH_DUR}s per run, $ROUNDS rounds alternated (0 ms origin: loadlab origin, 600 B body)"
# nginx_ticks: CPU ticks of the nginx master and workers.
nginx_ticks() {
  local t=0 p
  for p in "$NGINX_PID" $(pgrep -P "$NGINX_PID"); do t=$((t + $(cpu_ticks "$p"))); done
  echo "$t"
}
SER_TICKS=0; CON_TICKS=0; NG_TICKS=0
for r in $(seq "$ROUNDS"); do
  attack "$ORIGIN_URL/x" "$RATE" "$OVH_DUR" "direct-$r"
  c0=$(cpu_ticks "$SER_PID")
  attack "$SER_URL/x" "$RATE" "$OVH_DUR" "loadlab-serial-$r"
  SER_TICKS=$((SER_TICKS + $(cpu_ticks "$SER_PID") - c0))
  c0=$(nginx_ticks)
  attack "http://127.0.0.1:$NGINX_PORT/x" "$RATE" "$OVH_DUR" "nginx-$r"
  NG_TICKS=$((NG_TICKS + $(nginx_ticks) - c0))
  c0=$(cpu_ticks "$CON_PID")
  attack "$CON_URL/x" "$RATE" "$OVH_DUR" "loadlab-concurrent-$r"
  CON_TICKS=$((CON_TICKS + $(cpu_ticks "$CON_PID") - c0))
done
TCK=$(getconf CLK_TCK)
REQS=$((RATE * OVH_DUR * ROUNDS))
us() { echo $(($1 * 1000000 / TCK / REQS)); }
echo "CPU per request: loadlab proxy (serial) $(us "$SER_TICKS") µs, loadlab proxy (concurrent) $(us "$CON_TICKS") µs, nginx $(us "$NG_TICKS") µs ($REQS requests each)"
echo
python3 - "$WORK" "$ROUNDS" <<'P'
import json, sys, statistics as st
work, rounds = sys.argv[1], int(sys.argv[2])
def load(name):
    return [json.load(open(f"{work}/{name}-{r}.json")) for r in range(1, rounds + 1)]
d = load("direct")
print(f"| path | round | p50 | p99 | max | success | overhead p50 | overhead p99 |")
print(f"|---|---|---|---|---|---|---|---|")
for name in ("direct", "loadlab-serial", "nginx", "loadlab-concurrent"):
    runs = load(name)
    for i, x in enumerate(runs):
        lat = x["latencies"]; base = d[i]["latencies"]
        ms = lambda ns: f"{ns/1e6:.3f} ms"
        print(f"| {name} | {i+1} | {ms(lat['50th'])} | {ms(lat['99th'])} | {ms(lat['max'])} | {x['success']*100:.2f}% "
              f"| {ms(lat['50th']-base['50th']) if name != 'direct' else '-'} | {ms(lat['99th']-base['99th']) if name != 'direct' else '-'} |")
print()
print("| path | median over rounds: overhead p50 | overhead p99 |")
print("|---|---|---|")
for name in ("loadlab-serial", "nginx", "loadlab-concurrent"):
    runs = load(name)
    o50 = st.median(x["latencies"]["50th"] - d[i]["latencies"]["50th"] for i, x in enumerate(runs)) / 1e6
    o99 = st.median(x["latencies"]["99th"] - d[i]["latencies"]["99th"] for i, x in enumerate(runs)) / 1e6
    print(f"| {name} | {o50:.3f} ms | {o99:.3f} ms |")
P
kill "$SER_PID" "$CON_PID" "$ORIGIN_PID"; wait "$SER_PID" "$CON_PID" "$ORIGIN_PID" 2>/dev/null || true
nginx -c "$WORK/nginx.conf" -p "$WORK/nginx" -s quit 2>/dev/null || true
echo
fi

# --- 2. fixed vs overflow around the knee, serial manager -------------
if [ "${ONLY:-}" != overhead ]; then
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
