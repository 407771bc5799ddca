#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fusion groups measured on this machine (issue 18); prints JSON.

For each model, on one real device (default cpu:0):

  profile   `paretune profile MODEL --device DEV --db DB`: every operator and, as fused nodes,
            every fusion group (their own samples);
  search    `paretune search MODEL --devices DEV --catalog cpu_cores.json --db DB` with fusion
            (the default) and with --no-fusion: the front's fastest plan of each, its fusion
            groups and their patterns;
  validate  `paretune validate MODEL --plans … --plan P --without-fusion --repeats R`: the fused
            plan and the same placement without its groups, run in interleaved A/B rounds in one
            process (R timed runs each): medians, p10/p90, the speed-up, and the measured
            against predicted latency of the fused plan.

usage: bench/fusion_ab.py PARETUNE MODELS_DIR WORK_DIR [--models resnet50,mobilenet_v2,bert_base]
       [--device cpu:0] [--repeats 20]
"""
import argparse
import json
import os
import subprocess
import sys
from collections import Counter


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(" ".join(cmd) + "\n" + done.stdout[-2000:] + done.stderr[-4000:])
        raise SystemExit(done.returncode)
    return done.stdout


def fastest(plans):
    front = [p for p in plans["plans"] if p.get("on_front")]
    return min(front or plans["plans"], key=lambda p: p["latency_us"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("paretune")
    parser.add_argument("models_dir")
    parser.add_argument("work_dir")
    parser.add_argument("--models", default="resnet50,mobilenet_v2,bert_base")
    parser.add_argument("--device", default="cpu:0")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--catalog", default=None)
    args = parser.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    catalog = args.catalog or os.path.join(root, "resources", "catalogs", "cpu_cores.json")
    db = os.path.join(args.work_dir, "library.db")  # shared with bench/memory_plans.py
    report = {"bench": "fusion_ab", "device": args.device, "repeats": args.repeats,
              "models": {}}
    for model in args.models.split(","):
        path = os.path.join(args.models_dir, model + ".onnx")
        profile = json.loads(run([args.paretune, "profile", path, "--device", args.device,
                                  "--db", db, "--json"]))
        entry = {"fusion_groups_profiled": len(profile.get("fusion_groups", [])),
                 "fusion_groups_ok": sum(1 for g in profile.get("fusion_groups", [])
                                         if g["status"] == "ok")}
        plans = {}
        for label, extra in (("fused", []), ("unfused", ["--no-fusion"])):
            out = os.path.join(args.work_dir, model + "-" + label + ".json")
            run([args.paretune, "search", path, "--devices", args.device, "--catalog", catalog,
                 "--db", db, "--out", out, "--json", "--generations", "50"] + extra)
            with open(out) as f:
                plans[label] = json.load(f)
        best = fastest(plans["fused"])
        entry["groups_offered"] = plans["fused"].get("fusion_groups_offered")
        entry["groups_taken"] = len(best.get("fusion_groups", []))
        entry["patterns_taken"] = dict(Counter(g["pattern"] for g in best.get("fusion_groups", [])))
        entry["simulated_ms"] = {"fused": best["latency_us"] / 1e3,
                                 "unfused_search": fastest(plans["unfused"])["latency_us"] / 1e3}
        if entry["groups_taken"] > 0:
            out = os.path.join(args.work_dir, model + "-fused.json")
            validated = json.loads(run([args.paretune, "validate", path, "--plans", out,
                                        "--plan", str(best["id"]), "--db", db, "--repeats",
                                        str(args.repeats), "--without-fusion", "--json"]))
            fused = validated["objectives"]["latency_us"]
            unfused = validated["without_fusion"]["objectives"]["latency_us"]
            entry["measured_ms"] = {
                "fused": {"median": fused["measured"]["median"] / 1e3,
                          "p10": fused["measured"]["p10"] / 1e3,
                          "p90": fused["measured"]["p90"] / 1e3},
                "unfused": {"median": unfused["measured"]["median"] / 1e3,
                            "p10": unfused["measured"]["p10"] / 1e3,
                            "p90": unfused["measured"]["p90"] / 1e3},
                "speedup": validated["without_fusion"]["speedup"],
                "source": "measured, interleaved A/B in one process",
            }
            entry["fused_prediction"] = {"predicted_ms": (fused["predicted"] or 0) / 1e3,
                                         "error": fused["error"]}
        report["models"][model] = entry
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
