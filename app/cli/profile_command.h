#pragma once

namespace CLI {
class App;
}

namespace paretune::cli {

/// Registers `paretune profile MODEL --device ID [--db PATH] [--catalog FILE] [--repeats N]
/// [--force] [--json]`: measures every compute node of the model on a real CPU device with the
/// LibTorch runner, stores the samples in the sample library and reuses those already measured
/// on the same device fingerprint.
void addProfileCommand(CLI::App& app);

} // namespace paretune::cli
