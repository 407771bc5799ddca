#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Memory plans per model (issue 18): naive sum, planned arena and live lower bound; measured
peak against the planned figure for a validated plan. Prints JSON.

For each model: profile it on cpu:0 into one library (skipped when --no-profile), search on
cpu:0 with the cpu_cores catalog, and from the plans document take plan 0's memory plan per
device (naive_bytes: every buffer in its own block; arena_bytes: greedy by size; live_peak_bytes:
the most live at once, as the simulator counts). Then `paretune validate --plan 0` measures the
plan (LibTorch's CPU allocator peak per device + the weights and inputs its nodes read) and the
planned figure (arena + weights) is set against it.

usage: bench/memory_plans.py PARETUNE MODELS_DIR WORK_DIR [--models a,b] [--repeats N]
                             [--no-profile] [--no-validate]
"""
import argparse
import json
import os
import subprocess
import sys

CATALOG = os.path.join(os.path.dirname(__file__), "..", "resources", "catalogs", "cpu_cores.json")
MODELS = "resnet18,resnet50,mobilenet_v2,bert_base"
MIB = 1024.0 * 1024.0


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("failed: " + " ".join(cmd) + "\n" + done.stderr)
    return done.stdout


def model_figures(args, name):
    model = os.path.join(args.models_dir, name + ".onnx")
    db = os.path.join(args.work_dir, "library.db")
    plans = os.path.join(args.work_dir, name + "_plans.json")
    if not args.no_profile:
        run([args.paretune, "profile", model, "--device", "cpu:0", "--db", db])
    run([args.paretune, "search", model, "--devices", "cpu:0", "--catalog", CATALOG, "--db", db,
         "--out", plans])
    with open(plans) as f:
        doc = json.load(f)
    plan = doc["plans"][0]
    devices = {}
    for device, m in plan["memory"].items():
        devices[device] = {
            "naive_mb": m["naive_bytes"] / MIB,
            "arena_mb": m["arena_bytes"] / MIB,
            "live_peak_mb": m["live_peak_bytes"] / MIB,
            "weights_mb": m["weights_bytes"] / MIB,
            "workspace_mb": m["workspace_bytes"] / MIB,
            "in_place": m["in_place"],
            "arena_saving_vs_naive": 1.0 - m["arena_bytes"] / m["naive_bytes"]
            if m["naive_bytes"] else None,
            "arena_over_live_peak": m["arena_bytes"] / m["live_peak_bytes"]
            if m["live_peak_bytes"] else None,
        }
    result = {"model": name, "plan": 0, "planned_peak_mb": plan["peak_memory_mb"],
              "simulated_peak_mb": plan["simulated_peak_memory_mb"], "devices": devices}
    if not args.no_validate:
        out = json.loads(run([args.paretune, "validate", model, "--plans", plans, "--plan", "0",
                              "--db", db, "--catalog", CATALOG, "--repeats", str(args.repeats),
                              "--json"]))
        for d in out["devices"]:
            m = d["memory"]
            entry = devices.setdefault(d["id"], {})
            entry["measured_peak_mb"] = m["measured_peak_mb"]
            entry["measured_weights_mb"] = m["weights_mb"]
            entry["planned_peak_mb"] = m["planned_peak_mb"]
            entry["simulated_peak_mb"] = m["predicted_peak_mb"]
            entry["planned_error"] = m["error"]
            entry["simulated_error"] = m["simulated_error"]
        result["process_peak_mb"] = out["objectives"]["peak_memory_mb"]["process_peak_mb"]
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("paretune")
    parser.add_argument("models_dir")
    parser.add_argument("work_dir")
    parser.add_argument("--models", default=MODELS)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument("--no-validate", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    figures = [model_figures(args, name) for name in args.models.split(",")]
    print(json.dumps({"bench": "memory_plans", "devices": "cpu:0", "models": figures}, indent=2))


if __name__ == "__main__":
    main()
