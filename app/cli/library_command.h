// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace CLI {
class App;
}

namespace paretune::cli {

/// Registers `paretune library export --db A --out FILE` and `paretune library import FILE
/// --db B`: a library's samples, with their devices, models, signatures, micro-benchmarks and
/// contention, written to a file (store/library_file.h) and stored into another library, SQLite
/// or PostgreSQL either way. Importing is one transaction and idempotent.
void addLibraryCommand(CLI::App& app);

} // namespace paretune::cli
