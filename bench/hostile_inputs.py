#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Every hostile input the project keeps, through the real command line (issue 22).

Runs `paretune` on the regression corpus (tests/data/hostile, tests/data/errors, the catalogs,
plans files and bundle manifests of tests/data, and ../shared/hostile-examples when present),
on special files (FIFO, /dev/zero, /dev/urandom, /dev/null, a folder) given as model, catalog,
plans file, bundle and sample library, and on zip bombs made here. For each: exit code, wall
time, the child's peak resident memory (wait4's ru_maxrss) and the first line of its message.

  bench/hostile_inputs.py build/release/app/cli/paretune [--markdown]

Prints one JSON document (or a Markdown table). Nothing here is asserted: the tests assert the
exit codes and messages (tst_hostile, tst_errors, tst_catalog, tst_bundle, tst_librarysafety);
this measures time and memory, which a test must not.
"""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
SAMPLE = ROOT / "resources" / "models" / "sample.onnx"
TIMEOUT_S = 60


def run(cli, args, label, kind):
    started = time.monotonic()
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as out:
        child = subprocess.Popen([cli, *args], stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        deadline = started + TIMEOUT_S
        status = None
        while status is None:
            pid, raw, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                status = raw
                break
            if time.monotonic() > deadline:
                child.kill()
                pid, raw, usage = os.wait4(child.pid, 0)
                status = "timeout"
                break
            time.sleep(0.01)
        child.returncode = 0  # reaped by wait4 above
        seconds = time.monotonic() - started
        err.seek(0)
        message = err.read().decode("utf-8", "replace").strip().splitlines()
        out.seek(0)
        failed = [line for line in out.read().decode("utf-8", "replace").splitlines()
                  if line.startswith("FAILED")]
    if status == "timeout":
        code = "timeout"
    elif os.WIFSIGNALED(status):
        code = "signal " + signal.Signals(os.WTERMSIG(status)).name
    else:
        code = os.WEXITSTATUS(status)
    return {"kind": kind, "case": label, "command": " ".join(args[:2]), "exit": code,
            "seconds": round(seconds, 3), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "message": first_problem(message, failed)}


def first_problem(lines, failed):
    """The message's first line, and after a count ("verification failed (3 problems)") the
    first problem it counts (bundle verify prints them on stdout, "FAILED   ...")."""
    if not lines:
        return ""
    text = lines[0]
    if "verification failed" in text and failed:
        text += " / " + failed[0][len("FAILED"):].strip()
    return text[:240]


def bundle_folder(cli, work):
    """A real bundle of the sample model (plans searched on the example catalog's devices)."""
    with sqlite3.connect(work / "s.db") as db:  # a library of the checked-in samples
        db.executescript((DATA / "samples" / "predictor_library.sql").read_text())
    plans = work / "plans.json"
    subprocess.run([cli, "search", str(SAMPLE), "--devices", "gpu,npu", "--catalog", "example",
                    "--population", "16", "--generations", "4", "--db", str(work / "s.db"),
                    "--out", str(plans)], check=True, stdout=subprocess.DEVNULL)
    bundle = work / "bundle"
    subprocess.run([cli, "export", str(SAMPLE), "--plans", str(plans), "--plan", "0",
                    "--db", str(work / "s.db"), "--out", str(bundle)], check=True,
                   stdout=subprocess.DEVNULL)
    return plans, bundle


def zip_bombs(work):
    """A deflate bomb (two entries of 512 MiB of zeros) and an archive of 5,000 entries."""
    bomb = work / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        for name in ("manifest.json", "plan.json"):
            with z.open(name, "w", force_zip64=True) as f:
                block = bytes(1 << 20)
                for _ in range(512):
                    f.write(block)
    many = work / "entries.zip"
    with zipfile.ZipFile(many, "w", zipfile.ZIP_STORED) as z:
        for i in range(5000):
            z.writestr(f"f{i}", b"x")
    return [bomb, many]


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cli = str(Path(sys.argv[1]).resolve())
    markdown = "--markdown" in sys.argv[2:]
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env_db = ["--db", str(work / "s.db")]
        plans, bundle = bundle_folder(cli, work)
        models = sorted((DATA / "hostile").glob("*.onnx")) + sorted((DATA / "errors").glob("*.onnx"))
        shared = ROOT.parent / "shared" / "hostile-examples"
        if shared.is_dir():
            models += sorted(shared.glob("*.onnx"))
        for m in models:
            cases.append(run(cli, ["inspect", str(m)], m.relative_to(m.parent.parent).as_posix(),
                             "model"))
        for c in sorted((DATA / "catalogs").glob("*.json")):
            cases.append(run(cli, ["search", str(SAMPLE), "--devices", "gpu", "--catalog", str(c),
                                   *env_db], "catalogs/" + c.name, "catalog"))
        for p in sorted((DATA / "errors" / "plans").glob("*.json")):
            cases.append(run(cli, ["export", str(SAMPLE), "--plans", str(p), "--plan", "0",
                                   "--out", str(work / "never"), *env_db],
                             "errors/plans/" + p.name, "plans"))
        for m in sorted((DATA / "errors" / "manifests").glob("*.json")):
            copy = work / ("bundle-" + m.stem)
            subprocess.run(["cp", "-r", str(bundle), str(copy)], check=True)
            (copy / "manifest.json").write_bytes(m.read_bytes())
            cases.append(run(cli, ["bundle", "verify", str(copy)], "errors/manifests/" + m.name,
                             "manifest"))
        for z in zip_bombs(work):
            cases.append(run(cli, ["bundle", "verify", str(z)], z.name, "archive"))
        sparse = work / "sparse"
        subprocess.run(["cp", "-r", str(bundle), str(sparse)], check=True)
        with open(sparse / "manifest.json", "r+b") as f:
            f.truncate(5 << 30)
        cases.append(run(cli, ["bundle", "verify", str(sparse)], "5 GiB sparse manifest", "archive"))
        fifo = work / "fifo"
        os.mkfifo(fifo)
        folder = work / "a-folder"
        folder.mkdir()
        for special in (fifo, Path("/dev/zero"), Path("/dev/urandom"), Path("/dev/null"), folder):
            name = "FIFO" if special == fifo else ("a folder" if special == folder else str(special))
            s = str(special)
            for kind, args in (
                    ("model", ["inspect", s]),
                    ("catalog", ["search", str(SAMPLE), "--devices", "gpu", "--catalog", s,
                                 *env_db]),
                    ("plans", ["export", str(SAMPLE), "--plans", s, "--plan", "0", "--out",
                               str(work / "never"), *env_db]),
                    ("bundle", ["bundle", "verify", s]),
                    ("library", ["samples", "--db", s])):
                cases.append(run(cli, args, name, kind))
    summary = {
        "cases": len(cases),
        "exit_0": sum(1 for c in cases if c["exit"] == 0),
        "exit_2": sum(1 for c in cases if c["exit"] == 2),
        "other": [c["case"] + " " + c["kind"] + ": " + str(c["exit"]) for c in cases
                  if c["exit"] not in (0, 2)],
        "max_seconds": max(c["seconds"] for c in cases),
        "max_peak_rss_mb": max(c["peak_rss_mb"] for c in cases),
    }
    if markdown:
        print("| input | as | exit | s | peak MB | message |")
        print("|---|---|---|---|---|---|")
        for c in cases:
            print(f"| {c['case']} | {c['kind']} | {c['exit']} | {c['seconds']} | "
                  f"{c['peak_rss_mb']} | {c['message'].replace('|', '/')} |")
        print()
        print(json.dumps(summary))
    else:
        print(json.dumps({"benchmark": "hostile_inputs", "summary": summary, "runs": cases},
                         indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
