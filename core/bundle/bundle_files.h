// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace paretune {

/// The files of a bundle held in memory: path relative to the bundle's root ("partitions/
/// 00_cpu.onnx", '/' separated) → bytes.
using BundleFileMap = std::map<std::string, std::string, std::less<>>;

/// Why a relative path taken from a bundle (a zip entry, a manifest field) is unsafe, or an
/// empty string when it is safe: it must be non-empty, relative, '/' separated, and have no
/// empty, "." or ".." component, no backslash and no control character, so that it can only
/// name something inside the bundle's folder.
std::string unsafeBundlePath(std::string_view path);

/// Reads a bundle: every regular file under a folder, or every entry of a zip archive (a
/// regular file that starts with a zip signature). Reading never writes anything, and nothing is
/// extracted or read before every entry passed these checks: at most 4096 files, 2 GiB per file
/// and 4 GiB in all (uncompressed); a zip entry over 1 MiB expands at most 100:1 and claims no
/// more compressed bytes than the archive has; a folder holds no sparse file.
/// Throws InputError naming the path, the entry and the limit: missing path; neither folder nor
/// zip; a zip entry whose name is unsafe (unsafeBundlePath: "..", absolute paths), a symbolic
/// link, encrypted or duplicated; a symbolic link or special file inside a folder; a limit above.
BundleFileMap readBundleFiles(const std::string& path);

/// Throws InputError unless `path` can be a new bundle: it must not exist (a bundle never
/// replaces anything) and its folder must. Lets a command fail before the work of building one.
void checkNewBundlePath(const std::string& path);

/// Writes `files` as a new folder `path`: into a temporary folder next to it, then renamed into
/// place, so that `path` either does not exist or is complete. Throws InputError when `path`
/// already exists (it is never replaced) or cannot be written; nothing is left behind then.
void writeBundleFolder(const std::string& path, const BundleFileMap& files);

/// Same for a zip archive at `path` (ONNX files stored, the rest deflated; temporary file, then
/// rename).
void writeBundleZip(const std::string& path, const BundleFileMap& files);

} // namespace paretune
