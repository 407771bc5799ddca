#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Generate resources/models/sample.onnx, the GUI's bundled sample model.

A narrow residual CNN for [1, 3, 64, 64] inputs: stem conv, three residual
blocks (the last two downsample through a 1x1 conv shortcut),
GlobalAveragePool, Flatten and Gemm to 10 classes.  Opset 13, random but
deterministic weights with randomised BatchNorm statistics.  Exported in
TrainingMode.PRESERVE (the model is in eval mode) so that BatchNorm stays a
BatchNormalization node instead of being folded into the preceding Conv.

    python3 tools/make_sample_model.py [--out resources/models/sample.onnx]
"""

import argparse
import os
import sys
import warnings
from pathlib import Path

import torch
from torch import nn

from export_models import randomise_constants

SEED = 20240601
OPSET = 13
INPUT_SHAPE = (1, 3, 64, 64)
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "resources" / \
    "models" / "sample.onnx"


class ResidualBlock(nn.Module):
    """conv-bn-relu-conv-bn plus shortcut, then ReLU."""

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Identity()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False),
                nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + self.shortcut(x))


class SampleNet(nn.Module):
    """Stem, three residual stages (16, 32, 64 channels), classifier."""

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU())
        self.blocks = nn.Sequential(ResidualBlock(16, 16),
                                    ResidualBlock(16, 32, stride=2),
                                    ResidualBlock(32, 64, stride=2))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        x = self.pool(self.blocks(self.stem(x)))
        return self.fc(torch.flatten(x, 1))


def export(path):
    """Build, randomise and export the model to path atomically."""
    torch.manual_seed(SEED)
    model = SampleNet().eval()
    randomise_constants(model, SEED)
    example = torch.rand(INPUT_SHAPE, generator=torch.Generator()
                         .manual_seed(SEED))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with warnings.catch_warnings():
        # The advice is for models in training mode; this one is in eval.
        warnings.filterwarnings("ignore", "It is recommended that constant")
        torch.onnx.export(model, (example,), str(tmp), opset_version=OPSET,
                          do_constant_folding=True, input_names=["input"],
                          output_names=["logits"],
                          training=torch.onnx.TrainingMode.PRESERVE)
    os.replace(tmp, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    export(args.out)
    print(f"{args.out}: {args.out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
