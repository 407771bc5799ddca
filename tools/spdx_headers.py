#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Gives every source file of Paretune its SPDX licence line (idempotent).

    tools/spdx_headers.py           add the line where it is missing, list what changed
    tools/spdx_headers.py --check   list the files without it; exit 1 when there are any

C++ sources and headers (core/ app/ widgets/ tests/ bench/ fuzz/, and the C++ templates that
CMake configures) get `// SPDX-License-Identifier: GPL-3.0-or-later` as their first line; shell
and Python scripts and CMake files get `# SPDX-License-Identifier: GPL-3.0-or-later`, after the
shebang when there is one. Files are those git knows (tracked, or new and not ignored); test
data, fuzz seeds and resources are left as they are.
"""
import argparse
import os
import subprocess
import sys

LICENSE = "GPL-3.0-or-later"
TAG = "SPDX-License-Identifier:"
CXX_FOLDERS = ("core/", "app/", "widgets/", "tests/", "bench/", "fuzz/")
CXX_SUFFIXES = (".cpp", ".h", ".hpp", ".cc", ".cu", ".cuh")
# C++ text that CMake configures into headers: a `#` line there would be a bad directive.
CXX_TEMPLATES = (".h.in", ".h.cmake")
SKIPPED_FOLDERS = ("tests/data/", "fuzz/seeds/", "resources/", "docs/", "translations/")


def repository_files(root):
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root, check=True, capture_output=True).stdout
    return sorted({p for p in out.decode().split("\0") if p})


def comment_style(path, first_line):
    """'//', '#' or None (not a file that takes the line)."""
    if path.startswith(SKIPPED_FOLDERS):
        return None
    if path.endswith(CXX_TEMPLATES):
        return "//"
    if path.endswith(CXX_SUFFIXES):
        return "//" if path.startswith(CXX_FOLDERS) else None
    name = os.path.basename(path)
    if name == "CMakeLists.txt" or path.endswith((".cmake", ".py", ".sh")):
        return "#"
    if first_line.startswith("#!") and any(
            shell in first_line for shell in ("sh", "bash", "python")):
        return "#"
    return None


def has_line(lines):
    return any(TAG in line for line in lines[:3])


def with_line(lines, style):
    line = f"{style} {TAG} {LICENSE}\n"
    if style == "#" and lines and lines[0].startswith("#!"):
        return lines[:1] + [line] + lines[1:]
    return [line] + lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="only list the files without the line (exit 1 when any)")
    args = parser.parse_args()
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], check=True,
                          capture_output=True, text=True,
                          cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    missing = []
    for path in repository_files(root):
        full = os.path.join(root, path)
        if not os.path.isfile(full) or os.path.islink(full):
            continue
        try:
            with open(full, encoding="utf-8", newline="") as f:
                lines = f.readlines()
        except UnicodeDecodeError:
            continue
        style = comment_style(path, lines[0] if lines else "")
        if style is None or has_line(lines):
            continue
        missing.append(path)
        if not args.check:
            mode = os.stat(full).st_mode
            with open(full, "w", encoding="utf-8", newline="") as f:
                f.writelines(with_line(lines, style))
            os.chmod(full, mode)
    verb = "lacks" if args.check else "given"
    for path in missing:
        print(f"{path}: {verb} the SPDX licence line")
    if args.check and missing:
        print(f"spdx_headers: {len(missing)} files without '{TAG} {LICENSE}'; "
              "run tools/spdx_headers.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
