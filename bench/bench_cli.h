// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The benchmarks' shared command line: --help, unknown options, the number of arguments, numbers
// that must be positive, and exceptions. Every benchmark's main() is
//
//     return paretune::bench::run(argc, argv, usage, body);
//
// --help or -h prints the usage on stdout and exits 0; an unknown option or a wrong number of
// arguments prints the problem and the usage on stderr and exits 2; an InputError from the body
// exits 2 and any other exception 1, each with its message. Nothing escapes main().
#include "common/input_error.h"

#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace paretune::bench {

struct Usage {
    const char* name;     ///< the executable, e.g. "bench_import"
    const char* synopsis; ///< its arguments, e.g. "MODEL_DIR [REPEATS]"
    const char* about;    ///< what it measures and prints (lines end with \n)
    int minArgs = 0;      ///< positional arguments, flags not counted
    int maxArgs = 0;
    std::vector<std::string> flags = {}; ///< options it accepts, e.g. "--reference"
};

/// A positional argument that must be a positive integer (InputError naming it otherwise).
inline int positiveInt(const std::string& text, const char* what) {
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value < 1 || value > 1000000000) {
        throw InputError(std::string(what) + " '" + text + "': expected a positive integer");
    }
    return static_cast<int>(value);
}

inline void printUsage(std::ostream& out, const Usage& usage) {
    out << "usage: " << usage.name << " " << usage.synopsis << "\n" << usage.about;
}

inline int run(int argc, char** argv, const Usage& usage,
               const std::function<int(int, char**)>& body) {
    int positional = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            printUsage(std::cout, usage);
            return 0;
        }
        if (arg.size() > 1 && arg[0] == '-') {
            bool known = false;
            for (const std::string& flag : usage.flags) {
                known = known || flag == arg;
            }
            if (!known) {
                std::cerr << usage.name << ": unknown option " << arg << "\n";
                printUsage(std::cerr, usage);
                return 2;
            }
            continue;
        }
        ++positional;
    }
    if (positional < usage.minArgs || positional > usage.maxArgs) {
        std::cerr << usage.name << ": expected " << usage.minArgs
                  << (usage.maxArgs > usage.minArgs ? " to " + std::to_string(usage.maxArgs)
                                                    : std::string())
                  << " arguments, got " << positional << "\n";
        printUsage(std::cerr, usage);
        return 2;
    }
    try {
        return body(argc, argv);
    } catch (const InputError& e) {
        std::cerr << usage.name << ": error: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << usage.name << ": internal error: " << e.what() << "\n";
        return 1;
    }
}

} // namespace paretune::bench
