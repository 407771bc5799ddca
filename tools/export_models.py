#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Export real network architectures with random weights to ONNX.

The exports form a cache folder for Paretune's integration tests:

    python3 tools/export_models.py --out DIR [--set tests|zoo|all]
        [--only name1,name2] [--opset 13] [--force] [--jobs N]
        [--max-memory-gb G]

The "tests" set goes to DIR, the "zoo" (all torchvision classification,
segmentation, video and optical-flow models) to DIR/zoo.  DIR/manifest.json
describes every model (file, opset, inputs, parameter count, op types,
export time, status) together with a "recipe" hash of this script, the
model name and the opset.  A model whose file exists and whose recipe
matches is not exported again.  Failed or skipped models are recorded with
their reason and are retried only with --force or when the recipe changes
(a worker that was killed is not recorded, so it is retried).  Each model
is exported in its own process; logs go to DIR/logs.

Weights are random (weights=None, no downloads) but deterministic: each
model is built under torch.manual_seed(seed of its architecture), so
re-running gives byte-identical files.  BatchNorm statistics and all-equal
tensors are randomised so that the exporter leaves no Identity nodes.
Needs torch, torchvision and onnx (Debian's /usr/bin/python3); nothing else.
"""

import argparse
import contextlib
import fcntl
import hashlib
import importlib
import inspect
import json
import math
import multiprocessing
import multiprocessing.connection
import os
import resource
import sys
import time
import traceback
import warnings
import zlib
from dataclasses import dataclass
from pathlib import Path

MANIFEST_NAME = "manifest.json"
MANIFEST_FORMAT = 1
# Protobuf refuses messages of 2 GiB or more; leave room for the graph.
MAX_MODEL_BYTES = 2**31 - 64 * 2**20
VIDEO_FRAMES = 16


@dataclass(frozen=True)
class InputSpec:
    """One graph input: name, fixed shape and dtype name."""

    name: str
    shape: tuple
    dtype: str = "float32"


@dataclass(frozen=True)
class ModelSpec:
    """What to export and how; picklable so worker processes can take it."""

    name: str
    group: str                      # "tests" or "zoo"
    builder: str                    # CUSTOM_BUILDERS key or torchvision name
    inputs: tuple = ()              # InputSpec per graph input
    outputs: tuple = ("output",)
    opset: int = 0                  # 0: the --opset of the command line
    fallback_opsets: tuple = ()     # tried in order when the export fails
    optional: bool = False          # a failure does not fail the run
    skip_reason: str = ""
    keep_shape_ops: bool = False    # keep runtime shape computations
    cost: float = 1.0               # rough export seconds, for scheduling

    @property
    def key(self):
        """Manifest key: the plain name for tests, zoo/<name> for the zoo."""
        return self.name if self.group == "tests" else "zoo/" + self.name

    @property
    def file(self):
        """File name relative to the output folder."""
        return self.key + ".onnx"


@dataclass(frozen=True)
class Task:
    """One export to run in a worker process."""

    spec: ModelSpec
    out_dir: Path
    opset: int
    recipe: str
    threads: int
    memory_limit: int               # bytes of address space; 0: no limit


def _image(name="input", size=224):
    """A single [1, 3, size, size] image input."""
    return (InputSpec(name, (1, 3, size, size)),)


TEST_SPECS = (
    ModelSpec("tiny_mlp", "tests", "tiny_mlp",
              (InputSpec("input", (1, 784)),), ("logits",), cost=0.1),
    ModelSpec("tiny_cnn", "tests", "tiny_cnn",
              (InputSpec("input", (1, 3, 32, 32)),), ("logits",), cost=0.1),
    ModelSpec("resnet18", "tests", "resnet18", _image(), cost=1),
    ModelSpec("resnet50", "tests", "resnet50", _image(), cost=2),
    ModelSpec("mobilenet_v2", "tests", "mobilenet_v2", _image(), cost=1),
    ModelSpec("vit_b_16", "tests", "vit_b_16", _image(), cost=20),
    ModelSpec("bert_base", "tests", "bert_base",
              (InputSpec("input_ids", (1, 128), "int64"),),
              ("last_hidden_state", "pooler_output"), keep_shape_ops=True,
              cost=17),
    ModelSpec("shufflenet_v2_x1_0", "tests", "shufflenet_v2_x1_0", _image(),
              cost=1),
    ModelSpec("efficientnet_b0", "tests", "efficientnet_b0", _image(),
              cost=2),
    ModelSpec("swin_t", "tests", "swin_t", _image(), fallback_opsets=(14, 17),
              optional=True, cost=15),
    ModelSpec("bert_base_opset17", "tests", "bert_base",
              (InputSpec("input_ids", (1, 128), "int64"),),
              ("last_hidden_state", "pooler_output"), opset=17,
              keep_shape_ops=True, cost=17),
    ModelSpec("vit_b_16_opset17", "tests", "vit_b_16", _image(), opset=17,
              cost=20),
)

# Zoo models that cannot be written as one protobuf file.
TOO_BIG = {
    "vit_h_14": "632M parameters: about 2.5 GB, over protobuf's 2 GB limit",
    "regnet_y_128gf": "645M parameters: about 2.6 GB, over protobuf's 2 GB "
                      "limit",
}
# Reference input sizes that differ from 224 (from the weights' transforms).
ZOO_IMAGE_SIZE = {
    "inception_v3": 299,
    "efficientnet_b1": 240, "efficientnet_b2": 288, "efficientnet_b3": 300,
    "efficientnet_b4": 380, "efficientnet_b5": 456, "efficientnet_b6": 528,
    "efficientnet_b7": 600, "efficientnet_v2_s": 384,
    "efficientnet_v2_m": 480, "efficientnet_v2_l": 480,
    "swin_v2_t": 256, "swin_v2_s": 256, "swin_v2_b": 256,
}
# A zoo model that fails at the requested opset is tried again at these
# (RAFT's grid_sample needs opset 16).
ZOO_FALLBACK_OPSETS = (17,)
SEGMENTATION_SIZE = 520
VIDEO_SIZE = {"s3d": 224, "mvit_v1_b": 224, "mvit_v2_s": 224}
FLOW_SIZE = 224
# Rough export seconds of the slow ones, so that they start first.
ZOO_COST = {
    "vit_l_16": 60, "vit_l_32": 60, "regnet_y_32gf": 40, "swin_b": 40,
    "swin_v2_b": 50, "swin_s": 30, "swin_v2_s": 35, "maxvit_t": 30,
    "raft_large": 60, "raft_small": 40, "mvit_v1_b": 40, "mvit_v2_s": 40,
    "vit_b_16": 20, "vit_b_32": 20, "swin_t": 15, "swin_v2_t": 20,
    "convnext_large": 20, "efficientnet_v2_l": 20, "efficientnet_b7": 20,
}


# --------------------------------------------------------------------------
# Model specs and the command line

def zoo_specs():
    """All torchvision 0.14 classification, segmentation, video and flow."""
    import torchvision.models as tvm

    specs = []
    for module in (tvm, tvm.segmentation, tvm.video, tvm.optical_flow):
        for name in sorted(_builder_names(tvm, module)):
            specs.append(_zoo_spec(name, module.__name__.rsplit(".", 1)[-1]))
    return specs


def _builder_names(tvm, module):
    """Names of the model builders in one torchvision module."""
    if hasattr(tvm, "list_models"):
        return tvm.list_models(module=module)
    # Older torchvision: lower-case callables with a "weights" keyword.
    names = []
    for name, obj in vars(module).items():
        if name.startswith("_") or not inspect.isfunction(obj):
            continue
        if "weights" in inspect.signature(obj).parameters:
            names.append(name)
    return names


def _zoo_spec(name, kind):
    """The ModelSpec of one zoo model; kind is its torchvision module."""
    common = {"cost": ZOO_COST.get(name, 5),
              "fallback_opsets": ZOO_FALLBACK_OPSETS}
    if kind == "segmentation":
        return ModelSpec(name, "zoo", "segmentation." + name,
                         _image(size=SEGMENTATION_SIZE), **common)
    if kind == "video":
        size = VIDEO_SIZE.get(name, 112)
        shape = (1, 3, VIDEO_FRAMES, size, size)
        return ModelSpec(name, "zoo", "video." + name,
                         (InputSpec("input", shape),), **common)
    if kind == "optical_flow":
        shape = (1, 3, FLOW_SIZE, FLOW_SIZE)
        inputs = (InputSpec("image1", shape), InputSpec("image2", shape))
        return ModelSpec(name, "zoo", "optical_flow." + name, inputs,
                         ("flow",), **common)
    return ModelSpec(name, "zoo", name,
                     _image(size=ZOO_IMAGE_SIZE.get(name, 224)),
                     skip_reason=TOO_BIG.get(name, ""), **common)


def select_specs(set_name, only):
    """The specs of a set, narrowed to the comma-separated names in only."""
    specs = []
    if set_name in ("tests", "all"):
        specs += TEST_SPECS
    if set_name in ("zoo", "all"):
        specs += zoo_specs()
    if not only:
        return specs
    wanted = [n.strip() for n in only.split(",") if n.strip()]
    known = {s.name for s in specs} | {s.key for s in specs}
    unknown = [n for n in wanted if n not in known]
    if unknown:
        sys.exit(f"unknown model(s) in set '{set_name}': {', '.join(unknown)}")
    return [s for s in specs if s.name in wanted or s.key in wanted]


def parse_args(argv):
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, type=Path,
                        help="cache folder (created if missing)")
    parser.add_argument("--set", default="tests",
                        choices=("tests", "zoo", "all"), dest="set_name")
    parser.add_argument("--only", default="",
                        help="comma-separated model names")
    parser.add_argument("--opset", type=int, default=13,
                        help="ONNX opset for models without a fixed one")
    parser.add_argument("--force", action="store_true",
                        help="export even if the cache is up to date")
    parser.add_argument("--jobs", type=int, default=1,
                        help="parallel export processes")
    parser.add_argument("--max-memory-gb", type=float, default=None,
                        help="address-space cap per export process "
                             "(default: 80%% of RAM / jobs, at least 4; "
                             "0: none)")
    args = parser.parse_args(argv)
    args.jobs = max(1, args.jobs)
    if args.max_memory_gb is None:
        args.max_memory_gb = max(4.0, 0.8 * physical_memory_gb() / args.jobs)
    return args


def physical_memory_gb():
    """Installed RAM in GiB."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30


# --------------------------------------------------------------------------
# Cache and manifest

def script_source():
    """The bytes of this script, part of every recipe."""
    return Path(__file__).resolve().read_bytes()


def recipe_hash(source, name, opset):
    """sha256 of the script source, the model name and the opset."""
    digest = hashlib.sha256(source)
    digest.update(b"\0" + name.encode() + b"\0" + str(opset).encode())
    return digest.hexdigest()


def requested_opset(spec, default_opset):
    """The opset a spec asks for."""
    return spec.opset or default_opset


@contextlib.contextmanager
def manifest_lock(out_dir):
    """Serialise manifest updates between concurrent runs on one folder."""
    with open(out_dir / ".manifest.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def read_manifest(out_dir):
    """The manifest's models, or an empty dict."""
    try:
        with open(out_dir / MANIFEST_NAME) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    if data.get("format") != MANIFEST_FORMAT:
        return {}
    return data.get("models", {})


def write_atomically(path, data):
    """Write bytes to path through a temporary file and os.replace."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def update_manifest(out_dir, entry):
    """Record one model's entry (read-modify-write under the lock)."""
    with manifest_lock(out_dir):
        models = read_manifest(out_dir)
        models[entry["key"]] = entry
        data = {"format": MANIFEST_FORMAT,
                "generator": "tools/export_models.py",
                "models": dict(sorted(models.items()))}
        text = json.dumps(data, indent=2, sort_keys=False) + "\n"
        write_atomically(out_dir / MANIFEST_NAME, text.encode())


def cached_entry(out_dir, manifest, spec, recipe):
    """The manifest entry if the spec's export is up to date, else None."""
    entry = manifest.get(spec.key)
    if not entry or entry.get("recipe") != recipe:
        return None
    if entry.get("status") == "exported":
        path = out_dir / entry["file"]
        return entry if path.is_file() and \
            path.stat().st_size == entry.get("size_bytes") else None
    return entry  # a recorded failure or skip of the same recipe


# --------------------------------------------------------------------------
# Hand-written models

def build_tiny_mlp(nn):
    """784 -> 256 -> 10 with ReLU."""
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))


def build_tiny_cnn(nn):
    """Conv/BN/ReLU/MaxPool, one residual block, GAP, Flatten, Gemm.

    The exporter folds a BatchNorm that follows a Conv into the Conv; the
    one after the residual Add stays a BatchNormalization node.
    """

    def conv_bn(cin, cout, stride=1):
        return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
                nn.BatchNorm2d(cout)]

    class TinyCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(*conv_bn(3, 16), nn.ReLU(),
                                      nn.MaxPool2d(2))
            self.block = nn.Sequential(*conv_bn(16, 16), nn.ReLU(),
                                       *conv_bn(16, 16))
            self.post_add_bn = nn.BatchNorm2d(16)
            self.down = nn.Sequential(*conv_bn(16, 32, 2), nn.ReLU())
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(32, 10)

        def forward(self, x):
            x = self.stem(x)
            x = self.post_add_bn(x + self.block(x)).relu()
            x = self.pool(self.down(x))
            return self.fc(x.flatten(1))

    return TinyCNN()


def build_bert_base(nn):
    """A BERT-base-like encoder in HuggingFace style (input_ids only)."""
    import torch

    hidden, heads, ffn, layers, vocab, max_pos = 768, 12, 3072, 12, 30522, 512

    class Embeddings(nn.Module):
        def __init__(self):
            super().__init__()
            self.word_embeddings = nn.Embedding(vocab, hidden)
            self.position_embeddings = nn.Embedding(max_pos, hidden)
            self.token_type_embeddings = nn.Embedding(2, hidden)
            self.LayerNorm = nn.LayerNorm(hidden, eps=1e-12)
            self.dropout = nn.Dropout(0.1)

        def forward(self, input_ids):
            seq_length = input_ids.size(1)
            position_ids = torch.arange(seq_length, dtype=torch.long,
                                        device=input_ids.device)
            position_ids = position_ids.unsqueeze(0).expand_as(input_ids)
            token_type_ids = torch.zeros_like(input_ids)
            x = (self.word_embeddings(input_ids)
                 + self.position_embeddings(position_ids)
                 + self.token_type_embeddings(token_type_ids))
            return self.dropout(self.LayerNorm(x))

    class SelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.num_attention_heads = heads
            self.attention_head_size = hidden // heads
            self.all_head_size = hidden
            self.query = nn.Linear(hidden, hidden)
            self.key = nn.Linear(hidden, hidden)
            self.value = nn.Linear(hidden, hidden)
            self.dropout = nn.Dropout(0.1)

        def transpose_for_scores(self, x):
            new_shape = x.size()[:-1] + (self.num_attention_heads,
                                         self.attention_head_size)
            return x.view(new_shape).permute(0, 2, 1, 3)

        def forward(self, hidden_states, attention_mask):
            q = self.transpose_for_scores(self.query(hidden_states))
            k = self.transpose_for_scores(self.key(hidden_states))
            v = self.transpose_for_scores(self.value(hidden_states))
            scores = torch.matmul(q, k.transpose(-1, -2))
            scores = scores / math.sqrt(self.attention_head_size)
            probs = self.dropout(nn.functional.softmax(scores + attention_mask,
                                                       dim=-1))
            context = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
            return context.view(context.size()[:-2] + (self.all_head_size,))

    class DenseNorm(nn.Module):
        """Dense, dropout, residual add and LayerNorm (BertSelfOutput)."""

        def __init__(self, n_in):
            super().__init__()
            self.dense = nn.Linear(n_in, hidden)
            self.LayerNorm = nn.LayerNorm(hidden, eps=1e-12)
            self.dropout = nn.Dropout(0.1)

        def forward(self, x, residual):
            return self.LayerNorm(self.dropout(self.dense(x)) + residual)

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.attention = SelfAttention()
            self.attention_output = DenseNorm(hidden)
            self.intermediate = nn.Sequential(nn.Linear(hidden, ffn),
                                              nn.GELU())
            self.output = DenseNorm(ffn)

        def forward(self, x, attention_mask):
            x = self.attention_output(self.attention(x, attention_mask), x)
            return self.output(self.intermediate(x), x)

    class Bert(nn.Module):
        def __init__(self):
            super().__init__()
            self.embeddings = Embeddings()
            self.layer = nn.ModuleList(Layer() for _ in range(layers))
            self.pooler = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh())

        def forward(self, input_ids):
            mask = torch.ones_like(input_ids)
            extended = mask[:, None, None, :].to(torch.float32)
            extended = (1.0 - extended) * -10000.0
            x = self.embeddings(input_ids)
            for layer in self.layer:
                x = layer(x, extended)
            return x, self.pooler(x[:, 0])

    return Bert()


CUSTOM_BUILDERS = {
    "tiny_mlp": build_tiny_mlp,
    "tiny_cnn": build_tiny_cnn,
    "bert_base": build_bert_base,
}


# --------------------------------------------------------------------------
# Building and exporting (runs in the worker processes)

def build_model(spec):
    """The torch module of a spec, ready for tracing."""
    import torch.nn as nn
    if spec.builder in CUSTOM_BUILDERS:
        return CUSTOM_BUILDERS[spec.builder](nn)
    import torchvision.models as tvm
    module_name, _, name = spec.builder.rpartition(".")
    module = getattr(tvm, module_name) if module_name else tvm
    builder = getattr(module, name)
    kwargs = {"weights": None}
    if "weights_backbone" in inspect.signature(builder).parameters:
        kwargs["weights_backbone"] = None  # segmentation: no backbone download
    model = builder(**kwargs)
    if module_name == "segmentation":
        return select_output(model, "out")
    if module_name == "optical_flow":
        return select_output(model, -1)  # the last flow refinement
    return model


def select_output(model, item):
    """Wrap a model so that it returns one item of its dict or list output."""
    import torch.nn as nn

    class OutputSelect(nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, *args):
            return self.model(*args)[item]

    return OutputSelect()


def model_seed(spec):
    """A fixed seed per architecture.

    Seeded by builder, not by name, so that bert_base and bert_base_opset17
    (or resnet18 and zoo/resnet18) carry the same weights.
    """
    return zlib.crc32(spec.builder.encode()) & 0x7FFFFFFF


def randomise_constants(model, seed):
    """Give BatchNorm statistics and all-equal tensors random values.

    Untrained models have identical BatchNorm statistics and constant
    tensors (ones, zeros) that the exporter folds or deduplicates into
    Identity nodes; real trained models have neither.
    """
    import torch
    gen = torch.Generator().manual_seed(seed)

    def uniform(t, low, high):
        t.copy_(torch.rand(t.shape, generator=gen) * (high - low) + low)

    def normal(t, std):
        t.copy_(torch.randn(t.shape, generator=gen) * std)

    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
                _randomise_batchnorm(module, uniform, normal)
        tensors = list(model.named_parameters()) + list(model.named_buffers())
        for _, t in tensors:
            if not t.is_floating_point() or t.numel() < 2:
                continue
            first = t.reshape(-1)[0].item()
            if not torch.all(t == first):
                continue
            if first == 0.0:
                normal(t, 0.02)
            else:
                t.mul_(torch.rand(t.shape, generator=gen) + 0.5)


def _randomise_batchnorm(bn, uniform, normal):
    if bn.running_mean is not None:
        normal(bn.running_mean, 0.1)
        uniform(bn.running_var, 0.5, 1.5)
    if bn.weight is not None:
        uniform(bn.weight, 0.5, 1.5)
        normal(bn.bias, 0.1)


def example_inputs(spec):
    """Random example tensors for the spec's inputs."""
    import torch
    gen = torch.Generator().manual_seed(model_seed(spec) + 1)
    tensors = []
    for inp in spec.inputs:
        if inp.dtype == "int64":
            tensors.append(torch.randint(0, 1000, inp.shape, generator=gen))
        else:
            tensors.append(torch.rand(inp.shape, generator=gen))
    return tuple(tensors)


def export_to(model, spec, inputs, path, opset):
    """torch.onnx.export with fixed shapes and constant folding.

    Not under torch.no_grad(): that would send nn.MultiheadAttention down
    its fused fast path, which has no ONNX export.  With keep_shape_ops the
    exporter's static shape inference is off (torch 1.13 has no public
    switch), so size()-based shape arithmetic stays in the graph as
    Shape/Gather/Unsqueeze/Concat/Range nodes instead of being folded.
    """
    import torch
    kwargs = dict(opset_version=opset, do_constant_folding=True,
                  input_names=[i.name for i in spec.inputs],
                  output_names=list(spec.outputs))
    if spec.keep_shape_ops:
        torch.onnx.utils._export(model, inputs, str(path),
                                 onnx_shape_inference=False, **kwargs)
    else:
        torch.onnx.export(model, inputs, str(path), **kwargs)


def describe_onnx(path):
    """Op-type counts and graph outputs of an exported file."""
    import onnx
    model = onnx.load(str(path), load_external_data=False)
    counts = {}
    for node in model.graph.node:
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    outputs = []
    for out in model.graph.output:
        dims = out.type.tensor_type.shape.dim
        outputs.append({"name": out.name,
                        "shape": [d.dim_value if d.HasField("dim_value")
                                  else d.dim_param for d in dims]})
    return {"nodes": len(model.graph.node),
            "initializers": len(model.graph.initializer),
            "identity_nodes": counts.get("Identity", 0),
            "op_types": dict(sorted(counts.items())),
            "outputs": outputs}


@contextlib.contextmanager
def redirect_output(log_path):
    """Send this process's stdout/stderr (C++ warnings too) to a log file."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(log_path, "w") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("always")
                yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def base_entry(task):
    """The manifest fields every outcome of a task shares."""
    spec = task.spec
    return {"key": spec.key, "name": spec.name, "set": spec.group,
            "file": spec.file, "requested_opset": task.opset,
            "recipe": task.recipe, "seed": model_seed(spec)}


def export_spec(task):
    """Export one model; returns its manifest entry (never raises)."""
    spec, entry = task.spec, base_entry(task)
    if spec.skip_reason:
        return dict(entry, status="skipped", reason=spec.skip_reason,
                    export_seconds=0.0)
    log_dir = task.out_dir / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    try:
        with redirect_output(log_dir / (spec.key.replace("/", "_") + ".log")):
            entry.update(_export_spec(spec, task.out_dir, task.opset,
                                      task.threads))
    except Exception as exc:  # any exporter error is recorded, not raised
        entry.update(status="export_failed",
                     reason=f"{type(exc).__name__}: {exc}".strip()[:2000],
                     traceback=traceback.format_exc()[-4000:])
    entry["export_seconds"] = round(time.monotonic() - start, 2)
    entry["peak_rss_mb"] = peak_rss_mb()
    return entry


def peak_rss_mb():
    """This process's peak resident memory in MiB (VmHWM), or None."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return None


def limit_memory(limit):
    """Cap this process's address space so that a runaway export fails with
    an allocation error instead of waking the kernel's OOM killer."""
    if limit > 0:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def forbid_downloads():
    """Make any attempt to fetch pretrained weights fail loudly."""
    import torch.hub

    def refuse(url, *args, **kwargs):
        raise RuntimeError(f"download refused (weights must be None): {url}")

    torch.hub.download_url_to_file = refuse


def _export_spec(spec, out_dir, opset, threads):
    """Build, randomise and export one model; returns manifest fields."""
    import torch
    forbid_downloads()
    torch.set_num_threads(threads)
    torch.manual_seed(model_seed(spec))
    model = build_model(spec).eval()
    randomise_constants(model, model_seed(spec))
    params = sum(p.numel() for p in model.parameters())
    info = {"params": params,
            "inputs": [{"name": i.name, "shape": list(i.shape),
                        "dtype": i.dtype} for i in spec.inputs]}
    size_estimate = 4 * (params + sum(b.numel() for b in model.buffers()))
    if size_estimate > MAX_MODEL_BYTES:
        return dict(info, status="skipped",
                    reason=f"about {size_estimate / 2**30:.1f} GiB of "
                           "weights, over protobuf's 2 GB limit")
    final = out_dir / spec.file
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.with_name(f".{final.name}.{os.getpid()}.tmp")
    try:
        info.update(_export_with_fallbacks(model, spec, tmp, opset))
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)
    return info


def _export_with_fallbacks(model, spec, tmp, opset):
    """Export to tmp at opset, then at each fallback opset until one works."""
    inputs = example_inputs(spec)
    attempts = []
    for candidate in dict.fromkeys((opset,) + spec.fallback_opsets):
        try:
            export_to(model, spec, inputs, tmp, candidate)
        except Exception as exc:  # unsupported operator, tracer error, ...
            attempts.append({"opset": candidate,
                             "error": f"{type(exc).__name__}: {exc}"[:1000]})
            continue
        info = dict(describe_onnx(tmp), opset=candidate,
                    size_bytes=tmp.stat().st_size, status="exported")
        if attempts:
            info["failed_opsets"] = attempts
        return info
    raise RuntimeError("; ".join(f"opset {a['opset']}: {a['error']}"
                                 for a in attempts))


# --------------------------------------------------------------------------
# Driver

def _child(conn, task):
    """Worker process body: export one model and send back its entry."""
    limit_memory(task.memory_limit)
    conn.send(export_spec(task))
    conn.close()


def _died_entry(task, exitcode):
    """The entry of a model whose worker process ended without an answer."""
    how = f"was killed by signal {-exitcode}" if exitcode < 0 \
        else f"exited with status {exitcode}"
    hint = " (out of memory?)" if exitcode == -9 else ""
    return dict(base_entry(task), status="export_failed",
                reason=f"worker process {how}{hint}")


def run_tasks(tasks, jobs):
    """Yield (spec, entry, persist) as exports finish.

    Every model is exported in a fresh process, at most jobs at a time, so
    that memory is returned after each model and a crash (e.g. the kernel's
    out-of-memory killer) costs only that model.  The processes fork from a
    server that has imported torch once.  persist is False when the worker
    died: that says nothing about the recipe, so the next run retries.
    """
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["torch", "torchvision", "onnx"])
    pending, running = list(tasks), {}
    while pending or running:
        while pending and len(running) < jobs:
            task = pending.pop(0)
            receiver, sender = ctx.Pipe(duplex=False)
            process = ctx.Process(target=_child, args=(sender, task))
            process.start()
            sender.close()
            running[receiver] = (process, task)
        for receiver in multiprocessing.connection.wait(list(running)):
            process, task = running.pop(receiver)
            try:
                entry, persist = receiver.recv(), True
            except EOFError:
                process.join()
                entry, persist = _died_entry(task, process.exitcode), False
            receiver.close()
            process.join()
            yield task.spec, entry, persist


def check_environment():
    """Exit early with a clear message if torch, torchvision or onnx fail."""
    try:
        for module in ("torch", "torchvision", "onnx"):
            importlib.import_module(module)
    except ImportError as exc:
        sys.exit(f"export_models.py needs torch, torchvision and onnx "
                 f"({exc}); on Debian use /usr/bin/python3")


def format_size(n):
    """Human-readable byte count."""
    if not n:
        return "-"
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def report_line(spec, entry, cached):
    """One line per model: name, status, seconds, file size."""
    status = {"exported": "exported", "export_failed": "failed",
              "skipped": "skipped"}.get(entry.get("status"), "?")
    if cached:
        status = "cached" if status == "exported" else f"cached-{status}"
    seconds = 0.0 if cached else entry.get("export_seconds", 0.0)
    line = (f"{spec.key:<36} {status:<16} {seconds:7.1f} s "
            f"{format_size(entry.get('size_bytes')):>9}")
    if entry.get("status") == "exported" and entry.get("opset") != \
            entry.get("requested_opset"):
        line += f"  (opset {entry['opset']})"
    if entry.get("reason"):
        line += "  " + entry["reason"].splitlines()[0][:120]
    return line


def plan(specs, out_dir, args):
    """Split specs into cached results and export tasks."""
    source = script_source()
    manifest = {} if args.force else read_manifest(out_dir)
    threads = max(1, (os.cpu_count() or 1) // max(1, args.jobs))
    memory_limit = int(args.max_memory_gb * 2**30)
    cached, tasks = [], []
    for spec in specs:
        opset = requested_opset(spec, args.opset)
        recipe = recipe_hash(source, spec.name, opset)
        entry = cached_entry(out_dir, manifest, spec, recipe)
        if entry is not None:
            cached.append((spec, entry))
        else:
            tasks.append(Task(spec, out_dir, opset, recipe, threads,
                              memory_limit))
    tasks.sort(key=lambda t: -t.spec.cost)  # longest first balances the jobs
    return cached, tasks


def main(argv=None):
    """Export what is missing or stale; print one line per model."""
    args = parse_args(argv)
    start = time.monotonic()
    out_dir = args.out.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    results, tasks = plan(select_specs(args.set_name, args.only), out_dir,
                          args)
    for spec, entry in results:
        print(report_line(spec, entry, cached=True), flush=True)
    if tasks:
        check_environment()
    for spec, entry, persist in run_tasks(tasks, args.jobs):
        if persist:
            update_manifest(out_dir, entry)
        print(report_line(spec, entry, cached=False), flush=True)
        results.append((spec, entry))
    return summarise(results, time.monotonic() - start)


def summarise(results, seconds):
    """Print totals; exit status 1 if a required model did not export."""
    failed = [s.key for s, e in results if e.get("status") == "export_failed"]
    required = [s.key for s, e in results
                if e.get("status") != "exported" and s.group == "tests"
                and not s.optional]
    exported = sum(1 for _, e in results if e.get("status") == "exported")
    print(f"{len(results)} models: {exported} available, "
          f"{len(failed)} failed, total {seconds:.1f} s", flush=True)
    if failed:
        print("failed: " + ", ".join(failed), flush=True)
    return 1 if required else 0


if __name__ == "__main__":
    sys.exit(main())
