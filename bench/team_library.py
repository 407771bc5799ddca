#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A team's sample library on PostgreSQL (issue 20), measured on this machine; prints JSON.

Starts a throw-away PostgreSQL server (Debian's postgresql package: initdb into WORK_DIR, a free
loopback port, fsync on as a team's server would run; as root the server runs as the
`postgres` or `nobody` user), then:

  concurrent   four `paretune profile` processes, each a different model, into the server at
               once: every process's exit code, samples per model, duplicates;
  queue        20 profiling jobs queued (`profile --queue`), two `worker` processes draining
               them: jobs done, by whom, each exactly once, samples added, duplicates;
  sigkill      a worker killed with SIGKILL mid-job: the job is taken again by another worker
               after its lease, and done once;
  round_trip   `library export` from the server, `library import` into an SQLite file (twice:
               the second adds nothing), `train --seed 1` on both: the stored weights compared
               byte for byte;
  bad_input    an unreachable server, a wrong password, a database of another application and a
               library of a newer schema version: exit codes, messages, the password never
               printed.

usage: bench/team_library.py PARETUNE MODELS_DIR WORK_DIR [--parts a,b,...]
"""
import argparse
import hashlib
import json
import os
import pwd
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time

PASSWORD = "team-library-bench-password"
USER = "paretune"


def pg_bin():
    root = "/usr/lib/postgresql"
    for v in sorted(os.listdir(root), reverse=True) if os.path.isdir(root) else []:
        b = os.path.join(root, v, "bin")
        if os.path.exists(os.path.join(b, "initdb")):
            return b
    sys.exit("PostgreSQL is not installed (scripts/install-deps installs it)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """postgres in WORK_DIR/pg, as an unprivileged user when run as root."""

    def __init__(self, work):
        self.dir = os.path.join(work, "pg")
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.bin = pg_bin()
        self.port = free_port()
        self.user = None
        if os.geteuid() == 0:
            for name in ("postgres", "nobody"):
                try:
                    self.user = pwd.getpwnam(name)
                    break
                except KeyError:
                    pass
            os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)
        pwfile = os.path.join(self.dir, "pwfile")
        with open(pwfile, "w") as f:
            f.write(PASSWORD)
        if self.user:
            os.chown(pwfile, self.user.pw_uid, self.user.pw_gid)
        self.run([os.path.join(self.bin, "initdb"), "-D", self.data(), "-U", USER, "--pwfile",
                  pwfile, "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8",
                  "--locale=C", "--no-instructions"])
        log = open(os.path.join(self.dir, "server.log"), "w")
        self.proc = subprocess.Popen(
            self.as_user([os.path.join(self.bin, "postgres"), "-D", self.data(), "-p",
                          str(self.port), "-k", self.dir, "-c", "listen_addresses=127.0.0.1",
                          "-c", "max_connections=60"]),
            stdout=log, stderr=subprocess.STDOUT)
        for _ in range(300):
            if subprocess.run([os.path.join(self.bin, "pg_isready"), "-h", "127.0.0.1", "-p",
                               str(self.port)], capture_output=True).returncode == 0:
                return
            time.sleep(0.1)
        sys.exit("postgres did not start:\n" + open(os.path.join(self.dir, "server.log")).read())

    def data(self):
        return os.path.join(self.dir, "data")

    def as_user(self, cmd):
        if not self.user:
            return cmd
        return ["setpriv", "--reuid=%d" % self.user.pw_uid, "--regid=%d" % self.user.pw_gid,
                "--clear-groups"] + cmd

    def run(self, cmd):
        done = subprocess.run(self.as_user(cmd), capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit("failed: %s\n%s%s" % (" ".join(cmd), done.stdout, done.stderr))
        return done.stdout

    def sql(self, database, query):
        """Runs SQL over the socket as the superuser; returns the rows as lists of text."""
        out = self.run([os.path.join(self.bin, "psql"), "-h", self.dir, "-p", str(self.port),
                        "-U", USER, "-d", database, "-At", "-F", "\t", "-c", query])
        return [line.split("\t") for line in out.splitlines() if line]

    def create(self, database):
        self.sql("postgres", "CREATE DATABASE %s" % database)
        return "postgresql://%s@127.0.0.1:%d/%s" % (USER, self.port, database)

    def stop(self):
        self.proc.send_signal(signal.SIGINT)  # fast shutdown
        self.proc.wait(timeout=60)


def env():
    e = dict(os.environ)
    e["PGPASSWORD"] = PASSWORD
    return e


def paretune(args, cli, check=True, timeout=1800):
    done = subprocess.run([cli] + args, capture_output=True, text=True, env=env(),
                          timeout=timeout)
    if check and done.returncode != 0:
        sys.exit("failed (%d): paretune %s\n%s" % (done.returncode, " ".join(args), done.stderr))
    return done


def samples(cli, db):
    return json.loads(paretune(["samples", "--db", db, "--json"], cli).stdout)


def sample_rows(doc):
    return doc["samples"] if isinstance(doc, dict) else doc


def duplicates(rows):
    """Samples stored twice: the same model, device, operator, configuration and time."""
    keys = [(r.get("model_fingerprint"), r.get("device_fingerprint"), r.get("op_signature"),
             json.dumps(r.get("config"), sort_keys=True), r.get("sample_time")) for r in rows]
    return len(keys) - len(set(keys))


def per_model(rows):
    counts = {}
    for r in rows:
        counts[r.get("model_fingerprint", "?")[:12]] = counts.get(
            r.get("model_fingerprint", "?")[:12], 0) + 1
    return counts


def concurrent(cli, models, server):
    db = server.create("concurrent")
    chosen = ["tiny_cnn", "tiny_mlp", "resnet18", "mobilenet_v2"]
    start = time.time()
    procs = [subprocess.Popen([cli, "profile", os.path.join(models, m + ".onnx"), "--device",
                               "cpu:0", "--db", db], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env()) for m in chosen]
    outs = [p.communicate() for p in procs]
    rows = sample_rows(samples(cli, db))
    return {"models": chosen, "exit_codes": [p.returncode for p in procs],
            "seconds": time.time() - start, "samples": len(rows),
            "samples_per_model": per_model(rows), "duplicates": duplicates(rows),
            "stderr_tails": [o[1][-300:] for o, p in zip(outs, procs) if p.returncode != 0]}


def fingerprints(cli):
    devices = json.loads(paretune(["devices", "--json"], cli).stdout)
    rows = devices["devices"] if isinstance(devices, dict) else devices
    return {d["id"]: d["fingerprint"] for d in rows if "fingerprint" in d}


def queue_jobs(cli, db):
    return json.loads(paretune(["queue", "--db", db, "--json"], cli).stdout)["jobs"]


def queue(cli, models, server):
    """20 jobs for cpu:0, two workers for cpu:0 competing for them."""
    db = server.create("queue")
    device = fingerprints(cli)["cpu:0"]
    names = ["tiny_cnn", "tiny_mlp", "shufflenet_v2_x1_0", "mobilenet_v2"]
    for i in range(20):
        paretune(["profile", os.path.join(models, names[i % len(names)] + ".onnx"), "--device",
                  device, "--queue", "--db", db], cli)
    start = time.time()
    workers = [subprocess.Popen([cli, "worker", "--db", db, "--device", "cpu:0", "--idle-exit",
                                 "5", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env()) for _ in range(2)]
    outs = [w.communicate(timeout=3600) for w in workers]
    jobs = queue_jobs(cli, db)
    rows = sample_rows(samples(cli, db))
    by_worker = {}
    for j in jobs:
        by_worker[j.get("worker", "")] = by_worker.get(j.get("worker", ""), 0) + 1
    return {"jobs": len(jobs), "done": sum(j["state"] == "done" for j in jobs),
            "attempts": sorted({j["attempts"] for j in jobs}),
            "jobs_per_worker": by_worker, "worker_exit_codes": [w.returncode for w in workers],
            "seconds": time.time() - start, "samples": len(rows), "duplicates": duplicates(rows),
            "stderr_tails": [o[1][-300:] for o, w in zip(outs, workers) if w.returncode != 0]}


def sigkill(cli, models, server):
    """A worker killed mid-job: another takes the job once its lease ran out."""
    db = server.create("sigkill")
    device = fingerprints(cli)["cpu:0"]
    paretune(["profile", os.path.join(models, "resnet18.onnx"), "--device", device, "--queue",
              "--db", db], cli)
    first = subprocess.Popen([cli, "worker", "--db", db, "--device", "cpu:0", "--lease-seconds",
                              "3", "--once"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env())
    deadline = time.time() + 60
    while time.time() < deadline and queue_jobs(cli, db)[0]["state"] != "running":
        time.sleep(0.2)
    time.sleep(3)  # measuring
    first.send_signal(signal.SIGKILL)
    first.wait()
    killed_at = time.time()
    held = queue_jobs(cli, db)[0]
    second = subprocess.run([cli, "worker", "--db", db, "--device", "cpu:0", "--lease-seconds",
                             "3", "--idle-exit", "15"], capture_output=True, text=True,
                            env=env(), timeout=1800)
    job = queue_jobs(cli, db)[0]
    rows = sample_rows(samples(cli, db))
    return {"state_when_killed": held["state"], "worker_killed": held.get("worker"),
            "final_state": job["state"], "final_worker": job.get("worker"),
            "attempts": job["attempts"], "result": job.get("result"),
            "second_worker_exit": second.returncode,
            "seconds_from_kill_to_done": time.time() - killed_at,
            "samples": len(rows), "duplicates": duplicates(rows)}


def sha256(data):
    return hashlib.sha256(data if data is not None else b"").hexdigest()


def round_trip(cli, models, work, server):
    db = server.create("roundtrip")
    for m in ("tiny_cnn", "tiny_mlp"):
        for d in ("cpu:0", "cpu:1"):
            paretune(["profile", os.path.join(models, m + ".onnx"), "--device", d, "--db", db],
                     cli)
    exported = os.path.join(work, "library.export")
    copy = os.path.join(work, "copy.db")
    for f in (exported, copy):
        if os.path.exists(f):
            os.remove(f)
    paretune(["library", "export", "--db", db, "--out", exported], cli)
    first = paretune(["library", "import", exported, "--db", copy, "--json"], cli).stdout
    second = paretune(["library", "import", exported, "--db", copy, "--json"], cli).stdout
    server_rows, copy_rows = sample_rows(samples(cli, db)), sample_rows(samples(cli, copy))
    train = ["train", "--epochs", "20", "--members", "2", "--seed", "1", "--json"]
    on_server = json.loads(paretune(train + ["--db", db], cli).stdout)
    on_copy = json.loads(paretune(train + ["--db", copy], cli).stdout)
    server_weights = server.sql(
        "roundtrip", "SELECT encode(weights, 'hex') FROM predictors WHERE id = %d"
        % on_server["predictor_id"])[0][0]
    with sqlite3.connect(copy) as c:
        copy_weights = c.execute("SELECT weights FROM predictors WHERE id = ?",
                                 (on_copy["predictor_id"],)).fetchone()[0]
    return {"samples_on_server": len(server_rows), "samples_in_copy": len(copy_rows),
            "first_import": json.loads(first), "second_import": json.loads(second),
            "weights_bytes": len(copy_weights),
            "weights_sha256_server": sha256(bytes.fromhex(server_weights)),
            "weights_sha256_copy": sha256(copy_weights),
            "bit_identical": bytes.fromhex(server_weights) == copy_weights}


def bad_input(cli, work, server):
    good = server.create("badinput")
    other = "other_app"
    server.sql("postgres", "CREATE DATABASE %s" % other)
    server.sql(other, "CREATE TABLE invoices(id integer primary key, total numeric)")
    newer = server.create("newer")
    exported = os.path.join(work, "newer.export")
    copy = os.path.join(work, "newer_source.db")
    if os.path.exists(copy):
        os.remove(copy)
    paretune(["profile", os.path.join(os.environ["MODELS"], "tiny_mlp.onnx"), "--device", "cpu:0",
              "--db", copy], cli)
    paretune(["library", "export", "--db", copy, "--out", exported], cli)
    paretune(["library", "import", exported, "--db", newer], cli)  # a library, then newer
    server.sql("newer", "UPDATE paretune_library SET schema_version = 999")
    cases = {
        "unreachable server": "postgresql://%s@127.0.0.1:%d/x" % (USER, free_port()),
        "another application's database":
            "postgresql://%s@127.0.0.1:%d/%s" % (USER, server.port, other),
        "newer schema": newer,
    }
    out = {}
    for name, db in cases.items():
        done = paretune(["samples", "--db", db], cli, check=False)
        out[name] = {"exit": done.returncode, "message": done.stderr.strip()[-400:],
                     "password_printed": PASSWORD in done.stdout + done.stderr}
    wrong = dict(env())
    wrong["PGPASSWORD"] = "wrong-" + PASSWORD
    done = subprocess.run([cli, "samples", "--db", good], capture_output=True, text=True,
                          env=wrong)
    out["wrong password"] = {"exit": done.returncode, "message": done.stderr.strip()[-400:],
                             "password_printed": ("wrong-" + PASSWORD) in done.stderr}
    return out


def run_part(part, a, cli, server):
    work = os.path.abspath(a.work)
    parts = {
        "concurrent": lambda: concurrent(cli, a.models, server),
        "queue": lambda: queue(cli, a.models, server),
        "sigkill": lambda: sigkill(cli, a.models, server),
        "round_trip": lambda: round_trip(cli, a.models, work, server),
        "bad_input": lambda: bad_input(cli, work, server),
    }
    if part not in parts:
        sys.exit("unknown part %s (expected %s)" % (part, ", ".join(parts)))
    return parts[part]()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("paretune")
    p.add_argument("models")
    p.add_argument("work")
    p.add_argument("--parts", default="concurrent,queue,sigkill,round_trip,bad_input")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    os.environ["MODELS"] = a.models
    cli = os.path.abspath(a.paretune)
    server = Server(os.path.abspath(a.work))
    result = {"benchmark": "team_library", "server_port": server.port}
    try:
        for part in a.parts.split(","):
            t = time.time()
            try:
                result[part] = run_part(part, a, cli, server)
            except SystemExit as e:  # a command failed: say which, and go on
                result[part] = {"error": str(e)}
            result[part + "_seconds"] = time.time() - t
    finally:
        server.stop()
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
