#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Makes tests/data/samples/predictor_library.sql: a real sample library, measured once, that the
# predictor's accuracy tests train on (so their outcome does not depend on the machine that runs
# them, nor on its noise while they run).
#
#   tools/make_predictor_fixture.sh [PARETUNE] [MODEL_DIR]
#
# PARETUNE defaults to build/dev/app/cli/paretune, MODEL_DIR to the test-model cache of
# scripts/dev. It profiles tiny_mlp, tiny_cnn, resnet18 and shufflenet_v2_x1_0 on cpu:0 with 3
# repeats into a fresh library and writes it as SQL text (python3's sqlite3 iterdump), headed by
# the machine and tool it was measured with. Run it on a quiet machine; commit the result.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
paretune=${1:-$root/build/dev/app/cli/paretune}
models=${2:-${PARETUNE_MODEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/paretune/models}}
out=$root/tests/data/samples/predictor_library.sql
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for m in tiny_mlp tiny_cnn resnet18 shufflenet_v2_x1_0; do
  "$paretune" profile "$models/$m.onnx" --device cpu:0 --db "$work/samples.db" --repeats 3 >/dev/null
done

"$root/tools/dump_fixture_library.sh" "$work/samples.db" "$out" make_predictor_fixture.sh "$paretune"
