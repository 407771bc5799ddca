#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The predictor's network trained from PyTorch's Python API: the reference bench_train
compares the C++ (LibTorch) training against. Same architecture (op and device embeddings of
32, numeric projection to 32, 96 -> 128 -> 128 -> 2 heads), masked Huber loss, Adam lr 1e-3,
batch 128, one thread, batches drawn from contiguous tensors with index_select. Random data of
the same shapes as the C++ bench (the timing does not depend on the values).

Usage: /usr/bin/python3 tools/reference_train.py [--samples N] [--epochs N] [--ops N]
       [--devices N] [--numeric N]
Prints one JSON object: {"samples", "epochs", "seconds", "final_loss", "torch", "blas_core"}
(blas_core: the OpenBLAS kernel set in use, e.g. "Prescott" when OpenBLAS does not recognise
the CPU and falls back to its SSE3 kernels; set OPENBLAS_CORETYPE to choose another).
"""
import argparse
import ctypes
import json
import os
import time

# One thread: torch.set_num_threads does not reach OpenBLAS's own pool (Debian's torch calls
# the system BLAS), which reads this before it is loaded.
os.environ["OPENBLAS_NUM_THREADS"] = "1"
import torch  # noqa: E402


class Net(torch.nn.Module):
    def __init__(self, ops, devices, numeric):
        super().__init__()
        self.op_embedding = torch.nn.Parameter(torch.randn(ops, 32))
        self.device_embedding = torch.nn.Parameter(torch.randn(devices, 32))
        self.projection = torch.nn.Linear(numeric, 32)
        self.hidden1 = torch.nn.Linear(96, 128)
        self.hidden2 = torch.nn.Linear(128, 128)
        self.head = torch.nn.Linear(128, 2)

    def forward(self, op, device, numeric):
        h = torch.cat([self.op_embedding.index_select(0, op),
                       self.device_embedding.index_select(0, device),
                       torch.relu(self.projection(numeric))], 1)
        h = torch.relu(self.hidden1(h))
        h = torch.relu(self.hidden2(h))
        return self.head(h)


def blas_core():
    try:
        corename = ctypes.CDLL("libopenblas.so.0").openblas_get_corename
        corename.restype = ctypes.c_char_p
        return corename().decode()
    except (OSError, AttributeError):
        return "not OpenBLAS"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=50000)
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--ops", type=int, default=40)
    parser.add_argument("--devices", type=int, default=4)
    parser.add_argument("--numeric", type=int, default=29)
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(1)
    n = args.samples
    op = torch.randint(args.ops, (n,))
    device = torch.randint(args.devices, (n,))
    numeric = torch.randn(n, args.numeric)
    target = torch.randn(n, 2)
    mask = torch.ones(n, 2)
    start = time.perf_counter()
    net = Net(args.ops, args.devices, args.numeric)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    loss_value = 0.0
    for _ in range(args.epochs):
        order = torch.randperm(n)
        for begin in range(0, n, 128):
            index = order[begin:begin + 128]
            out = net(op.index_select(0, index), device.index_select(0, index),
                      numeric.index_select(0, index))
            w = mask.index_select(0, index)
            loss = (torch.nn.functional.huber_loss(out, target.index_select(0, index),
                                                   reduction="none", delta=1.0) * w).sum() \
                / w.sum().clamp_min(1.0)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss_value = loss.item()
    seconds = time.perf_counter() - start
    print(json.dumps({"samples": n, "epochs": args.epochs, "seconds": seconds,
                      "final_loss": loss_value, "torch": torch.__version__,
                      "blas_core": blas_core()}))


if __name__ == "__main__":
    main()
