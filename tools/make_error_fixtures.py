#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Generate the broken model files under tests/data/errors/.

Every case is tiny and deterministic (opset 13); re-running rewrites the
same bytes.  The *.expected files next to them belong to the C++ tests and
are left alone.

    python3 tools/make_error_fixtures.py [--out tests/data/errors]
"""

import argparse
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / \
    "errors"
# Starts with 'N' (0x4E): as a protobuf tag that is wire type 6, which does
# not exist, so every protobuf parser fails on the first byte.
TEXT = (
    "Not an ONNX model. This is a plain English text file that was given\n"
    "the .onnx extension by mistake, so an importer must reject it with a\n"
    "clear message instead of crashing or reading garbage.\n"
)
SECRET = b"SECRET: this file lies outside the model folder; never read it.\n"


def make_model(nodes, inputs, outputs, initializers=(), value_info=()):
    """A ModelProto with the default-domain opset, without checking it."""
    graph = helper.make_graph(nodes, "fixture", inputs, outputs,
                              initializer=list(initializers),
                              value_info=list(value_info))
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="paretune-error-fixtures")


def vector(name, shape):
    """A float tensor value info."""
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def weights():
    """A deterministic 4x4 float weight initializer called W."""
    values = (np.arange(16, dtype=np.float32).reshape(4, 4) - 7.5) / 8.0
    return numpy_helper.from_array(values, "W")


def small_valid_model():
    """X[1,4] -> MatMul(W) -> Add(B) -> Relu -> Y[1,4]."""
    bias = numpy_helper.from_array(
        np.array([0.5, -0.25, 0.125, 0.0], dtype=np.float32), "B")
    nodes = [helper.make_node("MatMul", ["X", "W"], ["h"], name="matmul"),
             helper.make_node("Add", ["h", "B"], ["a"], name="add"),
             helper.make_node("Relu", ["a"], ["Y"], name="relu")]
    return make_model(nodes, [vector("X", [1, 4])], [vector("Y", [1, 4])],
                      [weights(), bias])


def truncated_bytes():
    """The small valid model cut near the middle, at a point that no longer
    parses (a cut that happens to end on a field boundary would)."""
    data = small_valid_model().SerializeToString()
    for cut in range(len(data) // 2, len(data)):
        try:
            onnx.load_from_string(data[:cut])
        except Exception:  # protobuf's DecodeError
            return data[:cut]
    raise RuntimeError("no truncation point fails to parse")


def cycle_model():
    """Add(X, r) -> a, Relu(a) -> r: r feeds back into the Add."""
    nodes = [helper.make_node("Add", ["X", "r"], ["a"], name="add"),
             helper.make_node("Relu", ["a"], ["r"], name="relu")]
    return make_model(nodes, [vector("X", [1, 4])], [vector("r", [1, 4])])


def unknown_op_model():
    """Relu -> FancyOp (default domain) -> Relu; FancyOp's output shape is
    declared in value_info."""
    nodes = [helper.make_node("Relu", ["X"], ["a"], name="relu_in"),
             helper.make_node("FancyOp", ["a"], ["b"], name="fancy"),
             helper.make_node("Relu", ["b"], ["Y"], name="relu_out")]
    return make_model(nodes, [vector("X", [1, 4])], [vector("Y", [1, 4])],
                      value_info=[vector("b", [1, 4])])


def bad_dim_model(dim):
    """X[1, dim] -> Relu -> Y[1, n]; only the input carries the bad dim."""
    nodes = [helper.make_node("Relu", ["X"], ["Y"], name="relu")]
    return make_model(nodes, [vector("X", [1, dim])], [vector("Y", [1, "n"])])


def external_model(location, length=64):
    """X[1,4] -> MatMul(W) -> Y with W (4x4 float) in external data."""
    tensor = weights()
    tensor.ClearField("raw_data")
    tensor.ClearField("float_data")
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", "0"),
                       ("length", str(length))):
        entry = tensor.external_data.add()
        entry.key = key
        entry.value = value
    nodes = [helper.make_node("MatMul", ["X", "W"], ["Y"], name="matmul")]
    return make_model(nodes, [vector("X", [1, 4])], [vector("Y", [1, 4])],
                      [tensor])


def external_budget_model():
    """X[1,65536] -> MatMul(W) -> Y with W (65536x65537 float, 16 GiB + 256 KiB) in external
    data: over the importer's 16 GiB budget. The test makes weights.bin as a sparse file."""
    rows, cols = 65536, 65537
    tensor = TensorProto(name="W", data_type=TensorProto.FLOAT, dims=[rows, cols])
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "weights.bin"), ("offset", "0"),
                       ("length", str(rows * cols * 4))):
        entry = tensor.external_data.add()
        entry.key = key
        entry.value = value
    nodes = [helper.make_node("MatMul", ["X", "W"], ["Y"], name="matmul")]
    return make_model(nodes, [vector("X", [1, rows])], [vector("Y", [1, cols])],
                      [tensor])


def write(path, data):
    """Write bytes (or a ModelProto) to path, creating folders."""
    if isinstance(data, onnx.ModelProto):
        data = data.SerializeToString()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    print(f"{path}: {len(data)} bytes")


def generate(out):
    """Write every fixture below out."""
    write(out / "empty.onnx", b"")
    write(out / "truncated.onnx", truncated_bytes())
    write(out / "text_file.onnx", TEXT.encode())
    write(out / "cycle.onnx", cycle_model())
    write(out / "unknown_op.onnx", unknown_op_model())
    write(out / "negative_dim.onnx", bad_dim_model(-5))
    write(out / "absurd_dim.onnx", bad_dim_model(10**12))
    # The file ../secret.bin exists, so only a path check can refuse it.
    write(out / "secret.bin", SECRET)
    write(out / "external_outside" / "model.onnx",
          external_model("../secret.bin"))
    write(out / "external_absolute" / "model.onnx",
          external_model("/etc/passwd"))
    write(out / "external_ok" / "model.onnx", external_model("weights.bin"))
    write(out / "external_ok" / "weights.bin",
          numpy_helper.to_array(weights()).tobytes())
    write(out / "external_budget" / "model.onnx", external_budget_model())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    generate(parser.parse_args(argv).out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
