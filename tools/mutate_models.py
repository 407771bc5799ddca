#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Protobuf-level mutation sweep of ONNX models through `paretune inspect`.

Each mutant changes one or a few fields of a real model the way a broken
exporter or an attacker would: an attribute set to 0, -1, a huge value or a
wrong length; an initializer's dims, data type or data cut short; a node's op
type swapped for another; inputs dropped, repeated or renamed; a value_info
rank changed; a few bytes of the serialised file flipped.  Every mutant must
end with exit 0 or 2 within the timeout.  Mutants that crash, hang or exit
with anything else are copied to --keep (for tests/data/hostile/) and listed.

    python3 tools/mutate_models.py --paretune build/dev/app/cli/paretune \\
        --count 300 resources/models/sample.onnx ~/.cache/paretune/models/tiny_cnn.onnx

Deterministic for a given --seed.
"""

import argparse
import collections
import copy
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import onnx
from onnx import AttributeProto, TensorProto

OPS = ["Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool", "Concat", "Split", "Gather",
       "Reshape", "Transpose", "Slice", "Div", "Mod", "Expand", "Tile", "Pad", "Resize", "Gemm",
       "MatMul", "Squeeze", "Unsqueeze", "ReduceSum", "Range", "Where", "Einsum", "Flatten",
       "GlobalAveragePool", "BatchNormalization", "Softmax", "TopK", "ScatterND", "CumSum",
       "DepthToSpace", "SpaceToDepth", "OneHot", "NonZero", "ConstantOfShape", "Cast", "Shape",
       "Size", "Loop", "If", "MaxUnpool", "MaxRoiPool", "RoiAlign", "LRN", "InstanceNormalization",
       "QLinearConv", "ConvInteger", "MatMulInteger", "QLinearMatMul", "GatherND", "GatherElements",
       "ScatterElements", "Compress", "Upsample", "ReverseSequence", "Trilu", "Unique"]
INTERESTING = [0, -1, 1, 2, -2 ** 63, 2 ** 63 - 1, 2 ** 31, -2 ** 31, 1 << 40, 3, 7, 1000000]
DTYPES = list(range(0, 17)) + [99, -3]


def pick_int(rng):
    return rng.choice(INTERESTING) if rng.random() < 0.8 else rng.randint(-10, 10)


def mutate_attribute(rng, node):
    if not node.attribute:
        a = node.attribute.add()
        a.name = rng.choice(["strides", "kernel_shape", "pads", "axis", "perm", "axes", "split",
                             "dilations", "group", "to", "keepdims", "mode"])
        a.type = AttributeProto.INTS if rng.random() < 0.5 else AttributeProto.INT
        if a.type == AttributeProto.INTS:
            a.ints.extend(pick_int(rng) for _ in range(rng.randint(0, 5)))
        else:
            a.i = pick_int(rng)
        return
    a = rng.choice(node.attribute)
    choice = rng.random()
    if a.type == AttributeProto.INTS and a.ints:
        if choice < 0.5:
            a.ints[rng.randrange(len(a.ints))] = pick_int(rng)
        elif choice < 0.7:
            a.ints.append(pick_int(rng))
        elif choice < 0.85:
            del a.ints[rng.randrange(len(a.ints))]
        else:
            del a.ints[:]
    elif a.type == AttributeProto.INT:
        a.i = pick_int(rng)
    elif a.type == AttributeProto.FLOAT:
        a.f = rng.choice([0.0, -1.0, float("inf"), float("nan"), 1e30])
    elif a.type == AttributeProto.STRING:
        a.s = rng.choice([b"", b"SAME_UPPER", b"\xff\xfe", b"VALID", b"bogus"])
    elif a.type == AttributeProto.TENSOR:
        mutate_tensor(rng, a.t)
    elif a.type == AttributeProto.GRAPH and a.g.node:
        mutate_node(rng, rng.choice(a.g.node), a.g)
    else:
        a.type = rng.choice([AttributeProto.INT, AttributeProto.INTS, AttributeProto.FLOAT])


def mutate_tensor(rng, t):
    choice = rng.random()
    if choice < 0.3 and t.dims:
        t.dims[rng.randrange(len(t.dims))] = rng.choice([0, 1, -1, 1 << 20, 1 << 40, 3])
    elif choice < 0.45:
        t.dims.append(rng.choice([1, 2, 0, 1 << 20]))
    elif choice < 0.55 and t.dims:
        del t.dims[rng.randrange(len(t.dims))]
    elif choice < 0.7:
        t.data_type = rng.choice(DTYPES)
    elif choice < 0.85:
        if t.raw_data:
            t.raw_data = t.raw_data[: rng.randrange(len(t.raw_data) + 1)]
        else:
            for field in (t.float_data, t.int64_data, t.int32_data, t.double_data):
                if len(field):
                    del field[rng.randrange(len(field)):]
    else:
        if t.raw_data:
            raw = bytearray(t.raw_data)
            for _ in range(rng.randint(1, 4)):
                raw[rng.randrange(len(raw))] = rng.randrange(256)
            t.raw_data = bytes(raw)
        else:
            t.int64_data.extend(pick_int(rng) for _ in range(rng.randint(1, 3)))


def mutate_node(rng, node, graph):
    choice = rng.random()
    names = [v.name for v in graph.input] + [i.name for i in graph.initializer]
    names += [o for n in graph.node for o in n.output]
    if choice < 0.45:
        mutate_attribute(rng, node)
    elif choice < 0.6:
        node.op_type = rng.choice(OPS)
    elif choice < 0.7 and node.input:
        del node.input[rng.randrange(len(node.input))]
    elif choice < 0.8 and names:
        node.input.append(rng.choice(names))
    elif choice < 0.9 and node.input and names:
        node.input[rng.randrange(len(node.input))] = rng.choice(names + [""])
    else:
        node.output.append(node.output[0] + "_extra" if node.output else "y")


def mutate_value_info(rng, v):
    shape = v.type.tensor_type.shape
    choice = rng.random()
    if choice < 0.4 and shape.dim:
        shape.dim[rng.randrange(len(shape.dim))].dim_value = rng.choice([0, 1, 2, 1 << 33, 7])
    elif choice < 0.6:
        shape.dim.add().dim_value = rng.choice([1, 2, 3])
    elif choice < 0.8 and shape.dim:
        del shape.dim[rng.randrange(len(shape.dim))]
    else:
        v.type.tensor_type.elem_type = rng.choice(DTYPES)


def mutate(rng, base):
    m = copy.deepcopy(base)
    g = m.graph
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        target = rng.random()
        if target < 0.5 and g.node:
            mutate_node(rng, rng.choice(g.node), g)
        elif target < 0.75 and g.initializer:
            mutate_tensor(rng, rng.choice(g.initializer))
        elif target < 0.9:
            infos = list(g.input) + list(g.value_info) + list(g.output)
            if infos:
                mutate_value_info(rng, rng.choice(infos))
        else:
            m.opset_import[0].version = rng.choice([1, 6, 9, 11, 13, 17, 18, 100])
    data = m.SerializeToString()
    if rng.random() < 0.1:
        raw = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            raw[rng.randrange(len(raw))] = rng.randrange(256)
        data = bytes(raw)
    return data


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", type=Path)
    parser.add_argument("--paretune", type=Path, required=True)
    parser.add_argument("--count", type=int, default=200, help="mutants per model")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--keep", type=Path, help="folder for mutants that fail the contract")
    args = parser.parse_args()
    outcomes = collections.Counter()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for model_path in args.models:
            base = onnx.load(str(model_path), load_external_data=False)
            rng = random.Random(f"{args.seed}:{model_path.name}")
            for k in range(args.count):
                data = mutate(rng, base)
                path = Path(tmp) / f"{model_path.stem}_m{k:04d}.onnx"
                path.write_bytes(data)
                try:
                    run = subprocess.run([str(args.paretune), "inspect", "--json", str(path)],
                                         capture_output=True, timeout=args.timeout)
                    code = run.returncode
                    tail = run.stderr.decode(errors="replace").strip().splitlines()[-1:]
                except subprocess.TimeoutExpired:
                    code, tail = "timeout", []
                outcomes[code] += 1
                if code not in (0, 2):
                    failures.append((path.name, code, tail))
                    if args.keep:
                        args.keep.mkdir(parents=True, exist_ok=True)
                        (args.keep / f"mutant_{path.name}").write_bytes(data)
    total = sum(outcomes.values())
    print(f"{total} mutants: " + ", ".join(f"exit {c}: {n}" for c, n in sorted(
        outcomes.items(), key=lambda kv: str(kv[0]))))
    for name, code, tail in failures:
        print(f"FAIL {name}: {code} {tail}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
