// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace paretune {

/// Where Paretune's own data files (device catalogs, the sample model) are found. Installed,
/// they live in DATADIR/paretune (CMAKE_INSTALL_DATADIR, /usr/share/paretune in the package),
/// found relative to the running executable (BINDIR/../share/paretune), so that a package
/// unpacked anywhere finds its own files. A program run from its build folder also looks in the
/// source tree's resources/, after the installed folder.
///
/// The functions take the executable's path so that a test can pretend to be installed; the
/// default is this process's executable. They never throw except where documented.

/// This process's executable (/proc/self/exe), empty when it cannot be read.
std::filesystem::path runningExecutable();

/// The folders holding data of `kind` ("catalogs", "models"), best first: DATADIR/paretune/KIND
/// beside `executable`, then RESOURCES/KIND of the source tree when `executable` lies inside the
/// build folder. The folders need not exist.
std::vector<std::filesystem::path>
dataFolders(const std::string& kind, const std::filesystem::path& executable = runningExecutable());

/// The file a device catalog argument (`--catalog`) means. An explicit path wins: `nameOrPath`
/// itself when it names an existing file, or when it has a folder part (loading then reports a
/// missing file as before). A bare name ("cpu_cores" or "cpu_cores.json") is looked up as NAME
/// and NAME.json in dataFolders("catalogs"). Throws InputError listing where it looked when the
/// name is found nowhere.
std::string findDeviceCatalog(const std::string& nameOrPath,
                              const std::filesystem::path& executable = runningExecutable());

/// How a message names the bundled catalog `fileName` ("cpu_cores.json"): the path where it is
/// found, else the bare name.
std::string bundledCatalogText(const std::string& fileName,
                               const std::filesystem::path& executable = runningExecutable());

/// The sample model installed with the package (DATADIR/paretune/models/sample.onnx beside
/// `executable`), or nothing when it is not there (a program run from its build folder shows
/// its embedded copy instead).
std::optional<std::filesystem::path>
installedSampleModel(const std::filesystem::path& executable = runningExecutable());

} // namespace paretune
