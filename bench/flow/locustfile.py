# The benchmark's journey for Locust (bench/flow/run.sh): each user logs
# in, keeps the token, fetches /home and searches with a query from
# users.csv, paced to one journey per PACING seconds, with THINK seconds
# between the steps.
import csv
import itertools
import os

from locust import constant_pacing, task
from locust.contrib.fasthttp import FastHttpUser
import gevent

ROWS = itertools.cycle(list(csv.DictReader(open(os.environ["USERS_CSV"]))))
THINK = float(os.environ.get("THINK", "0"))


class Shopper(FastHttpUser):
    wait_time = constant_pacing(float(os.environ.get("PACING", "1")))

    @task
    def journey(self):
        row = next(ROWS)
        r = self.client.post("/login", json={"user": row["user"], "password": row["password"]})
        token = r.json()["token"]
        if THINK:
            gevent.sleep(THINK)
        auth = {"Authorization": "Bearer " + token}
        self.client.get("/home", headers=auth)
        if THINK:
            gevent.sleep(THINK)
        self.client.get("/search?q=" + row["query"], headers=auth, name="/search")
