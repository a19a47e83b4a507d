# bench/attack/duty.py SECONDS [BUSY_MS PERIOD_MS]: a competitor for the
# generator's CPU: busy BUSY_MS (2) of every PERIOD_MS (20), i.e. 10% of a
# CPU in bursts, like a background process; ends by itself after SECONDS.
import sys
import time

end = time.monotonic() + float(sys.argv[1])
busy = float(sys.argv[2]) / 1e3 if len(sys.argv) > 2 else 0.002
period = float(sys.argv[3]) / 1e3 if len(sys.argv) > 3 else 0.020
while time.monotonic() < end:
    t = time.monotonic()
    while time.monotonic() - t < busy:
        pass
    time.sleep(max(0.0, period - busy))
