#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The tune loop's acceptance figures (issue 16), measured on this machine; prints JSON.

For each model and device set: profile the model on every device into one library (--force,
so the samples are from this run), then `paretune tune` and, from its plans document, every
round's prediction errors, the final validated plans (predicted vs measured, p10/p90), the
claims over the all-on-`cpu` baseline, and the fastest measured front plan against the fastest
measured baseline. Run it on a quiet machine: nothing else should compile or measure beside it.

usage: bench/tune_acceptance.py PARETUNE MODELS_DIR WORK_DIR [--repeats N] [--rounds R]
                               [--window S]
"""
import argparse
import json
import os
import subprocess
import sys

CATALOG = os.path.join(os.path.dirname(__file__), "..", "resources", "catalogs", "cpu_cores.json")


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("failed: " + " ".join(cmd) + "\n" + done.stderr)
    return done.stdout


def summarise(doc):
    rounds = []
    for r in doc["tune"]["rounds"]:
        rounds.append({
            "round": r["round"],
            "max_abs_error": r["max_abs_error"],
            "median_abs_error": r["median_abs_error"],
            "max_abs_error_new": r["max_abs_error_new"],
            "speed_change": r["speed_change"],
            "max_abs_error_at_speed": r["max_abs_error_at_speed"],
            "calibration": r["calibration"],
            "plans": [{"label": p["label"], "predicted_ms": p["predicted_us"] / 1e3,
                       "simulated_ms": p["simulated_us"] / 1e3,
                       "measured_ms": p["measured"]["median_us"] / 1e3,
                       "p10_ms": p["measured"]["p10_us"] / 1e3,
                       "p90_ms": p["measured"]["p90_us"] / 1e3,
                       "runs": p["measured"]["runs"], "error": p["error"],
                       "seen_before": p["seen_before"]} for p in r["validated"]],
        })
    last = doc["tune"]["rounds"][-1]["round"]
    measured = [p for p in doc["plans"]
                if p["measured"] is not None and p["measured"]["round"] == last]
    front = [p for p in measured if p["on_front"] and p["baseline"] is None]
    baselines = [p for p in measured if p["baseline"] is not None]
    fastest_front = min(front, key=lambda p: p["measured"]["median_us"], default=None)
    fastest_baseline = min(baselines, key=lambda p: p["measured"]["median_us"], default=None)
    # Every front plan on the final front (a baseline on the front included) against all:cpu.
    against_cpu = []
    for p in doc["plans"]:
        for c in p["claims"]:
            if c["baseline"] == "all:cpu" and "latency" in c["better"]:
                against_cpu.append({"plan": p["id"], "status": c["better"]["latency"]})
    return {
        "rounds": rounds,
        "converged": doc["tune"]["converged"],
        "final_within_10pct": all(abs(p["error"]) <= 0.10 for p in rounds[-1]["plans"]),
        "fastest_measured_front_plan": fastest_front and {
            "plan": fastest_front["id"], "ms": fastest_front["measured"]["median_us"] / 1e3},
        "fastest_measured_baseline": fastest_baseline and {
            "baseline": fastest_baseline["baseline"],
            "ms": fastest_baseline["measured"]["median_us"] / 1e3},
        "front_over_baseline": fastest_front and fastest_baseline and
        fastest_front["measured"]["median_us"] / fastest_baseline["measured"]["median_us"],
        "latency_claims_over_all_cpu": against_cpu,
        "contradicted_latency_claims_over_all_cpu":
            sum(1 for c in against_cpu if c["status"] == "contradicted"),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("paretune")
    parser.add_argument("models_dir")
    parser.add_argument("work")
    parser.add_argument("--repeats", default="20")
    parser.add_argument("--rounds", default="3")
    parser.add_argument("--window", help="seconds a round's timed runs last, at least "
                        "(paretune tune --window; its default when not given)")
    parser.add_argument("--models", default="resnet18,resnet50,mobilenet_v2")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    results = []
    for name in args.models.split(","):
        model = os.path.join(args.models_dir, name + ".onnx")
        db = os.path.join(args.work, name + ".db")
        for device in ("cpu:0", "cpu:1", "cpu"):
            run([args.paretune, "profile", model, "--device", device, "--db", db, "--force",
                 "--json"])
        for devices in ("cpu:0,cpu:1,cpu", "cpu:0,cpu:1"):
            out = os.path.join(args.work, name + "_" + devices.replace(":", "").replace(",", "_")
                               + ".json")
            run([args.paretune, "tune", model, "--devices", devices, "--catalog", CATALOG,
                 "--db", db, "--rounds", args.rounds, "--validate", "3", "--repeats",
                 args.repeats, "--population", "200", "--generations", "200", "--out", out]
                + (["--window", args.window] if args.window is not None else []))
            with open(out) as f:
                doc = json.load(f)
            results.append({"model": name, "devices": devices, **summarise(doc)})
    print(json.dumps({"bench": "tune_acceptance", "results": results}, indent=1))


if __name__ == "__main__":
    main()
