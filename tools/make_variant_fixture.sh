#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Makes tests/data/samples/variant_library.sql: a real sample library with precision variants,
# measured once, that the predictor's variant tests train on (so their outcome does not depend
# on the machine that runs them, nor on its noise while they run).
#
#   tools/make_variant_fixture.sh [PARETUNE] [MODEL_DIR]
#
# PARETUNE defaults to build/dev/app/cli/paretune, MODEL_DIR to the test-model cache of
# scripts/dev. It profiles tiny_mlp, tiny_cnn and resnet18 on cpu:0 with 3 repeats and
# `--variants bf16,int8` into a fresh library (each lowerable node's bf16 and int8 forms with
# their conversions as samples of their own, stored with the graphs "NAME (bf16 FP12)" and
# "NAME (int8 FP12)"; the fusion groups as fused nodes; the sensitivity tables) and writes it
# as SQL text (python3's sqlite3 iterdump), headed by the machine and tool it was measured with.
# Run it on a quiet machine; commit the result.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
paretune=${1:-$root/build/dev/app/cli/paretune}
models=${2:-${PARETUNE_MODEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paretune/models}}
out=$root/tests/data/samples/variant_library.sql
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for m in tiny_mlp tiny_cnn resnet18; do
  "$paretune" profile "$models/$m.onnx" --device cpu:0 --db "$work/samples.db" --repeats 3 \
    --variants bf16,int8 >/dev/null
done

"$root/tools/dump_fixture_library.sh" "$work/samples.db" "$out" make_variant_fixture.sh "$paretune"
