// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/data_folders.h"

#include "common/input_error.h"

#include <system_error>

// PARETUNE_DATA_INSTALL_REL: DATADIR/paretune relative to BINDIR ("../share/paretune"), or
// absolute when CMAKE_INSTALL_DATADIR is. PARETUNE_BUILD_DIR and PARETUNE_RESOURCES_DIR: the
// build folder and the source tree's resources/ (core/CMakeLists.txt).
#ifndef PARETUNE_DATA_INSTALL_REL
#define PARETUNE_DATA_INSTALL_REL "../share/paretune"
#endif

namespace paretune {

namespace fs = std::filesystem;

namespace {

/// True when `path` (absolute, resolved) lies inside `folder`.
[[maybe_unused]] bool isInside(const fs::path& path, const fs::path& folder) {
    std::error_code ec;
    const fs::path resolved = fs::weakly_canonical(folder, ec);
    const fs::path relative = path.lexically_normal().lexically_relative(ec ? folder : resolved);
    return !relative.empty() && *relative.begin() != "..";
}

bool isFile(const fs::path& path) {
    std::error_code ec;
    return fs::exists(path, ec) && !fs::is_directory(path, ec);
}

} // namespace

fs::path runningExecutable() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe;
}

std::vector<fs::path> dataFolders(const std::string& kind, const fs::path& executable) {
    std::vector<fs::path> folders;
    if (executable.empty()) {
        return folders;
    }
    folders.push_back(
        (executable.parent_path() / PARETUNE_DATA_INSTALL_REL / kind).lexically_normal());
#if defined(PARETUNE_BUILD_DIR) && defined(PARETUNE_RESOURCES_DIR)
    if (isInside(executable, PARETUNE_BUILD_DIR)) {
        folders.push_back(fs::path(PARETUNE_RESOURCES_DIR) / kind);
    }
#endif
    return folders;
}

std::string findDeviceCatalog(const std::string& nameOrPath, const fs::path& executable) {
    const fs::path given(nameOrPath);
    if (nameOrPath.empty() || given.has_parent_path() || isFile(given)) {
        return nameOrPath;
    }
    std::vector<std::string> names{nameOrPath};
    if (given.extension() != ".json") {
        names.push_back(nameOrPath + ".json");
    }
    const std::vector<fs::path> folders = dataFolders("catalogs", executable);
    for (const fs::path& folder : folders) {
        for (const std::string& name : names) {
            if (isFile(folder / name)) {
                return (folder / name).string();
            }
        }
    }
    std::string looked = "the working folder";
    for (const fs::path& folder : folders) {
        looked += ", " + folder.string();
    }
    std::string tried = names.front();
    if (names.size() > 1) {
        tried += " or " + names.back();
    }
    throw InputError(nameOrPath + ": no such device catalog (looked for " + tried + " in " +
                     looked + ")");
}

std::string bundledCatalogText(const std::string& fileName, const fs::path& executable) {
    for (const fs::path& folder : dataFolders("catalogs", executable)) {
        if (isFile(folder / fileName)) {
            return (folder / fileName).string();
        }
    }
    return fileName;
}

std::optional<fs::path> installedSampleModel(const fs::path& executable) {
    const std::vector<fs::path> folders = dataFolders("models", executable);
    if (folders.empty() || !isFile(folders.front() / "sample.onnx")) {
        return std::nullopt;
    }
    return folders.front() / "sample.onnx";
}

} // namespace paretune
