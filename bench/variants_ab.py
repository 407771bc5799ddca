#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Precision variants measured on this machine (issue 17); prints JSON.

For each model, on one real device (default cpu:0):

  profile   `paretune profile MODEL --device DEV --db DB --variants V`: every operator, every
            lowerable node in each precision of V (bf16, int8) with its conversions (timed beside
            its fp32 form) and the model's sensitivity tables (int8: after its activation
            ranges);
  search    `paretune search MODEL --devices DEV --catalog cpu_cores.json --db DB --variants V
            --objectives latency,accuracy`: the front, its all-fp32 plan (deviation 0), its
            fastest plan and how many nodes it lowers, per precision;
  validate  `paretune validate … --plan P --without-variants --repeats R --accuracy-sets S`: the
            fastest plan and the same placement in fp32, interleaved A/B in one process (R timed
            runs each): medians, p10/p90, the speed-up; the output deviation measured on S sets
            of seeded random inputs (relative L2, cosine, top-1 with the largest tie margin of a
            miss) against the search's estimate.

usage: bench/variants_ab.py PARETUNE MODELS_DIR WORK_DIR [--models resnet50,mobilenet_v2,bert_base]
       [--device cpu:0] [--repeats 20] [--accuracy-sets 200] [--variants bf16]
"""
import argparse
import json
import os
import subprocess
import sys


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(" ".join(cmd) + "\n" + done.stdout[-2000:] + done.stderr[-4000:])
        raise SystemExit(done.returncode)
    return done.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("paretune")
    parser.add_argument("models_dir")
    parser.add_argument("work_dir")
    parser.add_argument("--models", default="resnet50,mobilenet_v2,bert_base")
    parser.add_argument("--device", default="cpu:0")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--accuracy-sets", type=int, default=200)
    parser.add_argument("--generations", type=int, default=100)
    parser.add_argument("--variants", default="bf16")
    args = parser.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    catalog = os.path.join(root, "resources", "catalogs", "cpu_cores.json")
    db = os.path.join(args.work_dir, "variants.db")
    report = {"bench": "variants_ab", "device": args.device, "repeats": args.repeats,
              "accuracy_sets": args.accuracy_sets, "models": {}}
    for model in args.models.split(","):
        path = os.path.join(args.models_dir, model + ".onnx")
        profile = json.loads(run([args.paretune, "profile", path, "--device", args.device,
                                  "--db", db, "--variants", args.variants, "--json"]))
        entry = {"lowerable_nodes": len(profile["variants"]),
                 "variants_ok": sum(1 for v in profile["variants"] if v["status"] == "ok"),
                 "sensitivity_measured": profile["sensitivity_measured"]}
        out = os.path.join(args.work_dir, model + "-variants.json")
        run([args.paretune, "search", path, "--devices", args.device, "--catalog", catalog,
             "--db", db, "--variants", args.variants, "--objectives", "latency,accuracy",
             "--generations", str(args.generations), "--out", out, "--json"])
        with open(out) as f:
            plans = json.load(f)
        front = [p for p in plans["plans"] if p.get("on_front")] or plans["plans"]
        fastest = min(front, key=lambda p: p["latency_us"])
        fp32 = [p for p in front if not p.get("variants")]
        entry["front_size"] = len(front)
        entry["fp32_plan_on_front"] = bool(fp32)
        lowered = {}
        for precision in fastest.get("variants", {}).values():
            lowered[precision] = lowered.get(precision, 0) + 1
        entry["fastest"] = {"id": fastest["id"], "lowered_nodes": lowered,
                            "simulated_ms": fastest["latency_us"] / 1e3,
                            "estimated_deviation_pct": fastest.get("deviation_pct")}
        if fastest.get("variants"):
            validated = json.loads(run([args.paretune, "validate", path, "--plans", out, "--plan",
                                        str(fastest["id"]), "--db", db, "--catalog", catalog,
                                        "--repeats", str(args.repeats), "--without-variants",
                                        "--accuracy-sets", str(args.accuracy_sets), "--json"]))
            lat = validated["objectives"]["latency_us"]
            base = validated["without_variants"]["objectives"]["latency_us"]
            acc = validated["objectives"]["accuracy"]
            entry["measured"] = {
                "variants_ms": {k: lat["measured"][k] / 1e3 for k in ("median", "p10", "p90")},
                "fp32_ms": {k: base["measured"][k] / 1e3 for k in ("median", "p10", "p90")},
                "speedup": validated["without_variants"]["speedup"],
                "predicted_ms": lat["predicted"] / 1e3 if lat["predicted"] else None,
                "prediction_error": lat["error"],
                "deviation_pct": acc["deviation_pct"],
                "cosine_min": acc["cosine_min"], "cosine_mean": acc["cosine_mean"],
                "top1_agreement": acc["top1_agreement"], "top1_misses": acc["top1_misses"],
                "largest_miss_margin": acc["largest_miss_margin"],
                "median_top1_margin": acc.get("median_top1_margin"), "note": acc.get("note"),
                "source": "measured, interleaved A/B"}
        report["models"][model] = entry
        print(json.dumps({model: entry}), file=sys.stderr)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
