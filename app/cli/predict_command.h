// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace CLI {
class App;
}

namespace paretune::cli {

/// Registers the learned-predictor commands:
///  * `paretune train [--db PATH] [--holdout-model NAME|FP] [--holdout-device FP] [--epochs N]
///    [--members N] [--target ratio|absolute] [--json]`: trains on the library's samples
///    (split by model and device pair), reports the evaluation beside the roofline baseline
///    and, with --holdout-device, the few-shot curve; stores the predictor in the library.
///  * `paretune predict MODEL --device ID [--db PATH] [--json]`: per-op latency, memory and
///    uncertainty from the newest predictor (measured where the library has the sample).
///  * `paretune adapt MODEL --device ID --budget N [--db PATH] [--repeats N] [--json]`: the
///    active loop: measures the N most uncertain operators, stores them and retrains.
void addPredictCommands(CLI::App& app);

} // namespace paretune::cli
