#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Generate the hand-made hostile models under tests/data/hostile/.

Each model is tiny and deterministic (opset 13) and breaks one promise the
importer's shape rules rely on: a stride or kernel of 0, a rank that does not
fit the operator, a tensor whose data falls short of its dims, an integer
division that overflows, Concat inputs that disagree.  Every file must give a
clear error (exit 2) or import (exit 0); tests/tst_hostile.cpp replays the
whole folder.  Next to a file, `<file>.expected` holds the text its error must
contain; this script writes both.  The five t_*.onnx files came from the
tester of issue 22 and are not written here.

    python3 tools/make_hostile_models.py [--out tests/data/hostile]
"""

import argparse
import struct
from pathlib import Path

import onnx
from onnx import TensorProto, helper

OPSET = 13
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "hostile"
INT64_MIN = -(2 ** 63)


def model(nodes, inputs, outputs, initializers=()):
    for value in list(inputs) + list(outputs):
        # The checker wants a shape on graph inputs and outputs; an empty one means "rank 0"
        # to it and nothing to the importer, whose inference replaces it.
        value.type.tensor_type.shape.SetInParent()
    graph = helper.make_graph(nodes, "hostile", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                             producer_name="paretune-hostile-fixtures")


def tensor_input(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def floats(name, dims, fill=0.5):
    count = 1
    for d in dims:
        count *= d
    return helper.make_tensor(name, TensorProto.FLOAT, dims, [fill] * count)


def ints(name, values, elem=TensorProto.INT64, dims=None):
    return helper.make_tensor(name, elem, [len(values)] if dims is None else dims, values)


def window_model(op, x_shape, w_dims=None, inputs_extra=(), **attrs):
    """X -> op(X[, W]) -> Y; W an initializer of float ones."""
    node_inputs = ["X"]
    inits = []
    if w_dims is not None:
        node_inputs.append("W")
        inits.append(floats("W", w_dims))
    node_inputs += [name for name, _ in inputs_extra]
    node = helper.make_node(op, node_inputs, ["Y"], name="window", **attrs)
    extra = [tensor_input(name, TensorProto.FLOAT, shape) for name, shape in inputs_extra]
    return model([node], [tensor_input("X", TensorProto.FLOAT, x_shape)] + extra,
                 [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], inits)


def constant_binary(op, a, b, elem=TensorProto.INT64, **attrs):
    node = helper.make_node(op, ["A", "B"], ["Y"], name="fold", **attrs)
    return model([node], [], [helper.make_tensor_value_info("Y", elem, None)],
                 [ints("A", a, elem), ints("B", b, elem)])


def short_float_raw():
    t = TensorProto()
    t.name = "W"
    t.data_type = TensorProto.FLOAT
    t.dims.extend([4, 4])
    t.raw_data = struct.pack("<3f", 1.0, 2.0, 3.0)
    node = helper.make_node("Add", ["X", "W"], ["Y"], name="add")
    return model([node], [tensor_input("X", TensorProto.FLOAT, [4, 4])],
                 [tensor_input("Y", TensorProto.FLOAT, [4, 4])], [t])


def short_constant_attribute():
    t = TensorProto()
    t.data_type = TensorProto.INT32
    t.dims.extend([1 << 20])
    t.int32_data.extend([7])
    node = helper.make_node("Constant", [], ["Y"], name="const", value=t)
    return model([node], [], [helper.make_tensor_value_info("Y", TensorProto.INT32, None)])


def maxunpool_rank1_indices():
    # ONNX's rule reads dimension 1 of the indices without looking at their rank.
    node = helper.make_node("MaxUnpool", ["X", "I"], ["Y"], name="unpool", kernel_shape=[2, 2])
    i = helper.make_tensor_value_info("I", TensorProto.INT64, [4])
    return model([node], [tensor_input("X", TensorProto.FLOAT, [1, 1, 2, 2]), i],
                 [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])


def expand_absurd():
    node = helper.make_node("Expand", ["X", "S"], ["Y"], name="expand")
    return model([node], [tensor_input("X", TensorProto.FLOAT, [1])],
                 [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
                 [ints("S", [1 << 40, 1 << 40])])


def transpose_repeated_perm():
    node = helper.make_node("Transpose", ["A"], ["Y"], name="transpose", perm=[0, 0])
    return model([node], [], [helper.make_tensor_value_info("Y", TensorProto.INT64, None)],
                 [ints("A", list(range(6)), dims=[2, 3])])


def qlinearconv_strides0():
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"], ["Y"],
                            name="qconv", strides=[0, 0])
    inits = [helper.make_tensor("xs", TensorProto.FLOAT, [], [0.1]),
             helper.make_tensor("xz", TensorProto.UINT8, [], [0]),
             helper.make_tensor("w", TensorProto.UINT8, [1, 1, 2, 2], [1, 1, 1, 1]),
             helper.make_tensor("ws", TensorProto.FLOAT, [], [0.1]),
             helper.make_tensor("wz", TensorProto.UINT8, [], [0]),
             helper.make_tensor("ys", TensorProto.FLOAT, [], [0.1]),
             helper.make_tensor("yz", TensorProto.UINT8, [], [0])]
    return model([node], [tensor_input("x", TensorProto.UINT8, [1, 1, 4, 4])],
                 [helper.make_tensor_value_info("Y", TensorProto.UINT8, None)], inits)


def convinteger_strides0():
    node = helper.make_node("ConvInteger", ["x", "w"], ["Y"], name="iconv", strides=[0, 0])
    w = helper.make_tensor("w", TensorProto.UINT8, [1, 1, 2, 2], [1, 1, 1, 1])
    return model([node], [tensor_input("x", TensorProto.UINT8, [1, 1, 4, 4])],
                 [helper.make_tensor_value_info("Y", TensorProto.INT32, None)], [w])


def fold_many_adds():
    """700 Adds of 2^20-element int64 constants: 5.9 GB before the importer had a budget."""
    nodes = [helper.make_node("ConstantOfShape", ["S"], ["c0"], name="fill",
                              value=helper.make_tensor("v", TensorProto.INT64, [1], [1]))]
    for i in range(700):
        nodes.append(helper.make_node("Add", [f"c{i}", "c0"], [f"c{i + 1}"], name=f"add{i}"))
    nodes.append(helper.make_node("Identity", ["c700"], ["Y"], name="out"))
    return model(nodes, [], [helper.make_tensor_value_info("Y", TensorProto.INT64, None)],
                 [ints("S", [1 << 20])])


def nested_loops():
    """Three nested Loops of 4096 trips each: minutes of unrolling before the budget."""
    def loop(depth, init, result, inner):
        # Each Loop carries one float tensor; the body runs the next Loop on it.
        trips = helper.make_tensor(f"trips{depth}", TensorProto.INT64, [], [4096])
        carried = f"v{depth}"
        body_nodes = [helper.make_node("Identity", [f"c{depth}"], [f"co{depth}"])]
        if inner is None:
            body_nodes.append(helper.make_node("Relu", [carried], [f"vo{depth}"]))
        else:
            body_nodes += inner(carried, f"vo{depth}")
        body = helper.make_graph(
            body_nodes, f"body{depth}",
            [helper.make_tensor_value_info(f"i{depth}", TensorProto.INT64, []),
             helper.make_tensor_value_info(f"c{depth}", TensorProto.BOOL, []),
             helper.make_tensor_value_info(carried, TensorProto.FLOAT, [1])],
            [helper.make_tensor_value_info(f"co{depth}", TensorProto.BOOL, []),
             helper.make_tensor_value_info(f"vo{depth}", TensorProto.FLOAT, [1])])
        return [helper.make_node("Constant", [], [f"n{depth}"], value=trips),
                helper.make_node("Loop", [f"n{depth}", "", init], [result], name=f"loop{depth}",
                                 body=body)]
    def level2(init, result):
        return loop(2, init, result, None)
    def level1(init, result):
        return loop(1, init, result, level2)
    return model(loop(0, "X", "Y", level1), [tensor_input("X", TensorProto.FLOAT, [1])],
                 [tensor_input("Y", TensorProto.FLOAT, [1])])


def cases():
    x4 = [1, 2, 5, 5]
    w4 = [2, 2, 3, 3]
    yield ("conv_kernel_shape0", window_model("Conv", x4, w4, kernel_shape=[0, 0]),
           "attribute 'kernel_shape' is [0,0]: each value must be at least 1")
    yield ("conv_dilations0", window_model("Conv", x4, w4, dilations=[1, 0]),
           "attribute 'dilations' is [1,0]: each value must be at least 1")
    yield ("conv_pads_negative", window_model("Conv", x4, w4, pads=[0, 0, -4, 0]),
           "attribute 'pads' is [0,0,-4,0]: each value must be at least 0")
    yield ("conv_strides_length", window_model("Conv", x4, w4, strides=[1]),
           "attribute 'strides' has 1 value, expected 2")
    yield ("conv_x_rank2", window_model("Conv", [1, 2], w4),
           "input 0 'X' has rank 2, expected at least 3")
    yield ("conv_x_rank3_w_rank4", window_model("Conv", [1, 2, 5], w4),
           "input 1 'W' has rank 4, expected 3 like input 0 'X'")
    yield ("conv_w_rank6", window_model("Conv", x4, [2, 2, 1, 1, 1, 1]),
           "input 1 'W' has rank 6, expected 4")
    yield ("conv_w_kernel_axis0", window_model("Conv", x4, [2, 2, 0, 3]),
           "a kernel axis of size 0")
    yield ("conv_group0", window_model("Conv", x4, w4, group=0),
           "attribute 'group' is 0, expected at least 1")
    yield ("convtranspose_strides0", window_model("ConvTranspose", x4, w4, strides=[0, 0]),
           "attribute 'strides' is [0,0]: each value must be at least 1")
    yield ("convtranspose_w_rank1", window_model("ConvTranspose", x4, [2]),
           "input 1 'W' has rank 1, expected at least 3")
    for op in ("MaxPool", "AveragePool", "LpPool"):
        name = op.lower()
        yield (name + "_strides0", window_model(op, x4, kernel_shape=[2, 2], strides=[0, 0]),
               "attribute 'strides' is [0,0]: each value must be at least 1")
        yield (name + "_kernel0", window_model(op, x4, kernel_shape=[0, 2]),
               "attribute 'kernel_shape' is [0,2]: each value must be at least 1")
        yield (name + "_x_rank2", window_model(op, [1, 2], kernel_shape=[2, 2]),
               "input 0 'X' has rank 2, expected at least 3")
    yield ("maxpool_kernel_length", window_model("MaxPool", x4, kernel_shape=[2, 2, 2]),
           "attribute 'kernel_shape' has 3 values, expected 2")
    yield ("maxunpool_rank1_indices", maxunpool_rank1_indices(), None)
    yield ("maxroipool_rank3",
           window_model("MaxRoiPool", [1, 2, 5], inputs_extra=[("R", [1, 5])], pooled_shape=[2]),
           "attribute 'pooled_shape' must hold 2 values")
    yield ("qlinearconv_strides0", qlinearconv_strides0(),
           "attribute 'strides' is [0,0]: each value must be at least 1")
    yield ("convinteger_strides0", convinteger_strides0(),
           "attribute 'strides' is [0,0]")
    yield ("mod_int64min_by_m1_fmod0", constant_binary("Mod", [INT64_MIN], [-1], fmod=0), None)
    yield ("mod_int64min_by_m1_fmod1", constant_binary("Mod", [INT64_MIN], [-1], fmod=1), None)
    yield ("div_int64_by_zero", constant_binary("Div", [7], [0]), "integer division by zero")
    yield ("mod_int64_by_zero", constant_binary("Mod", [7], [0]), "integer modulo by zero")
    yield ("div_int32min_by_m1", constant_binary("Div", [-(2 ** 31)], [-1], TensorProto.INT32),
           "-2147483648 / -1 does not fit int32")
    yield ("div_uint64_by_zero", constant_binary("Div", [2 ** 64 - 1], [0], TensorProto.UINT64),
           "integer division by zero")
    yield ("div_uint64_large", constant_binary("Div", [2 ** 64 - 1], [2 ** 64 - 1],
                                               TensorProto.UINT64), None)
    yield ("concat_rank_mismatch",
           model([helper.make_node("Concat", ["A", "B"], ["Y"], name="concat", axis=0)], [],
                 [helper.make_tensor_value_info("Y", TensorProto.INT64, None)],
                 [ints("A", [1, 2], dims=[2]), ints("B", [1, 2], dims=[1, 2])]),
           "Concat inputs must have the same rank")
    yield ("split_sum_mismatch",
           model([helper.make_node("Split", ["A", "S"], ["Y", "Z"], name="split", axis=0)], [],
                 [helper.make_tensor_value_info("Y", TensorProto.INT64, None),
                  helper.make_tensor_value_info("Z", TensorProto.INT64, None)],
                 [ints("A", [1, 2, 3]), ints("S", [1, 1])]),
           "adding up to 2, but input 0 'A' (shape [3]) has 3 along axis 0")
    yield ("transpose_repeated_perm", transpose_repeated_perm(), "names an axis twice")
    yield ("float_raw_data_short", short_float_raw(),
           "initializer 'W' has dims [4,4] promising 16 float32 values (64 bytes), but its "
           "raw_data holds 12 bytes")
    yield ("constant_attribute_short", short_constant_attribute(),
           "attribute 'value' has dims [1048576] promising 1048576 int32 values, but stores 1")
    yield ("expand_absurd", expand_absurd(), "an absurd size")
    yield ("fold_700_adds_of_1M", fold_many_adds(), None)
    yield ("loop_nested_3x4096", nested_loops(), None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, m, message in cases():
        path = args.out / (name + ".onnx")
        path.write_bytes(m.SerializeToString())
        expected = args.out / (name + ".onnx.expected")
        if message is None:
            expected.write_text("ok\n")
        else:
            expected.write_text("error: " + message + "\n")
        print(path)


if __name__ == "__main__":
    main()
