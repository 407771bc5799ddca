// SPDX-License-Identifier: GPL-3.0-or-later
// paretune: command-line front end. Exit codes: 0 ok, 1 internal error, 2 bad input.
#include "bundle_command.h"
#include "common/host_memory.h"
#include "common/input_error.h"
#include "device/cuda_devices.h"
#include "devices_command.h"
#include "inspect_command.h"
#include "interrupt.h"
#include "library_command.h"
#include "paretune/config.h"
#include "samples_command.h"
#include "store/library_location.h"
#if PARETUNE_WITH_TORCH
#include "predict_command.h"
#include "profile_command.h"
#endif
#if PARETUNE_WITH_TORCH
#include "tune_command.h"
#include "validate_command.h"
#include "worker_command.h"
#endif
#include "search_command.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>

namespace {

constexpr int kExitInternal = 1;
constexpr int kExitBadInput = 2;

void printVersion() {
    std::cout << "paretune " << PARETUNE_VERSION << "\n"
              << "  torch: " << (PARETUNE_WITH_TORCH ? "yes" : "no") << "\n"
              << "  cuda:  " << (PARETUNE_WITH_CUDA ? "yes" : "no") << "\n"
              << "  gui:   " << (PARETUNE_WITH_GUI ? "yes" : "no") << "\n";
}

/// Whether everything written to stdout reached it (a full disk or a closed pipe is an error,
/// not a success: `paretune inspect m.onnx > /dev/full` must not exit 0).
bool standardOutputWritten() {
    std::cout.flush();
    if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout.good()) {
        return true;
    }
    std::fprintf(stderr, "paretune: error: writing to standard output failed: %s\n",
                 std::strerror(errno));
    return false;
}

/// A PostgreSQL connection string among the arguments that holds a password, without it; empty
/// when there is none. Such an argument is refused before anything could repeat it.
std::string connectionStringWithPassword(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        std::string_view arg = argv[i];
        if (arg.substr(0, 2) == "--" && arg.find('=') != std::string_view::npos) {
            arg.remove_prefix(arg.find('=') + 1); // --db=postgresql://…
        }
        if (paretune::isServerLibrary(arg) && paretune::libraryLabel(arg) != arg) {
            return paretune::libraryLabel(arg);
        }
    }
    return {};
}

} // namespace

int main(int argc, char** argv) {
    // Before any thread allocates (the device benchmarks start some before LibTorch is loaded):
    // glibc fixes a thread's malloc arena then, and the measurements run with one for all.
    paretune::keepFreedHostMemory();
    if (const std::string label = connectionStringWithPassword(argc, argv); !label.empty()) {
        std::cerr << "paretune: error: " << label
                  << ": the connection string holds a password; give it in PGPASSWORD or "
                     "~/.pgpass instead, so that it stays out of command lines and logs\n";
        return kExitBadInput;
    }
    CLI::App app{"Paretune: profile, predict and place neural-network operators on the devices "
                 "of a machine"};
    app.require_subcommand(0, 1);
    bool version = false;
    app.add_flag("--version", version, "Print the version and build options");
    paretune::cli::addInspectCommand(app);
    paretune::cli::addSearchCommand(app);
    paretune::cli::addDevicesCommand(app);
    paretune::cli::addSamplesCommand(app);
    paretune::cli::addLibraryCommand(app);
    paretune::cli::addExportCommand(app);
    paretune::cli::addBundleCommand(app);
#if PARETUNE_WITH_TORCH
    paretune::cli::addProfileCommand(app);
    paretune::cli::addPredictCommands(app);
#endif
#if PARETUNE_WITH_TORCH
    paretune::cli::addValidateCommand(app);
    paretune::cli::addTuneCommand(app);
    paretune::cli::addWorkerCommands(app);
#endif
    try {
        app.parse(argc, argv);
        if (version) {
            printVersion();
            return 0;
        }
        if (app.get_subcommands().empty()) {
            std::cout << app.help();
            return kExitBadInput;
        }
        return standardOutputWritten() ? 0 : kExitInternal;
    } catch (const paretune::cli::Interrupted& e) {
        return 128 + e.signal;
    } catch (const CLI::Success& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return kExitBadInput;
    } catch (const paretune::InputError& e) {
        // A core setting is this program's option of the same name.
        if (!e.setting().empty()) {
            std::cerr << "paretune: error: --" << e.setting() << ": " << e.problem() << "\n";
        } else {
            std::cerr << "paretune: error: " << e.what() << "\n";
        }
        return kExitBadInput;
    } catch (const std::exception& e) {
        std::cerr << "paretune: internal error: " << e.what() << "\n";
        return kExitInternal;
    }
}
