# bench/attack/lag.py: the lag split of a loadlab results file, read as
# `loadlab encode -to json FILE | python3 bench/attack/lag.py`: lag is
# Sent - Due of every answered request (the pacer and the generator's
# scheduling), send latency is the rest (connection, target, reading the
# answer). Prints "lag mean / p99 (µs)<TAB>notes"; run.sh's table and
# ab.sh's lines use it.
import json
import sys
from datetime import datetime


def ns(s):
    a, b = s.rstrip("Z").split(".") if "." in s else (s.rstrip("Z"), "0")
    return int(datetime.fromisoformat(a + "+00:00").timestamp()) * 10**9 + int(b.ljust(9, "0"))


lag, send, due = [], [], []
for line in sys.stdin:
    d = json.loads(line)
    if d["code"] == 0 or not d.get("due"):
        continue
    l = ns(d["timestamp"]) - ns(d["due"])
    lag.append(l)
    send.append(d["latency"])
    due.append(d["latency"] + l)
if not lag:
    print("-\tno answers")
    sys.exit()
mean = sum(lag) / len(lag) / 1e3
over = sum(1 for l in lag if l > 100_000)
lag.sort(); send.sort(); due.sort()
q = lambda a, p: a[min(len(a) - 1, int(p * len(a)))] / 1e3
print("%.0f / %.0f\tlag p50 %.0f µs, over 100 µs %d; latency p50 from due %.0f / from send %.0f µs; send p99 %.2f ms" % (
    mean, q(lag, .99), q(lag, .5), over, q(due, .5), q(send, .5), q(send, .99) / 1e3))
