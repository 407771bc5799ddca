#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes a help2man include file with a COMMANDS section: every subcommand's --help.

    installer/command_sections.py PROGRAM OUTPUT

help2man reads only the top-level --help, which lists the subcommands by name; this adds each
one's usage, description and options (CLI11's layout: "  NAME  DESCRIPTION" rows under
"Options:", "Positionals:" and "Subcommands:"), recursing into nested subcommands
(`bundle verify`).
"""
import os
import re
import subprocess
import sys

ROW = re.compile(r"^  (\S.*?)(?: {2,}(\S.*))?$")


def roff(text, minus=False):
    """Text safe in a roff line: backslashes escaped (hyphens too, as minus signs, in option
    names), no leading control character."""
    text = text.replace("\\", "\\e")
    if minus:
        text = text.replace("-", "\\-")
    return "\\&" + text if text.startswith((".", "'")) else text


def help_text(program, words):
    env = dict(os.environ, LC_ALL="C.UTF-8")
    return subprocess.run([program, *words, "--help"], check=True, capture_output=True,
                          text=True, env=env).stdout


def rows(section, text):
    """(name, description) rows of one section ("Options:") of a help text."""
    found, inside = [], False
    for line in text.splitlines():
        if not line.startswith(" "):
            inside = line.strip() == section
            continue
        match = ROW.match(line) if inside else None
        if match:
            found.append((match.group(1), match.group(2) or ""))
    return found


def command(program, words, out):
    text = help_text(program, words)
    lines = text.splitlines()
    usage_at = next((i for i, line in enumerate(lines) if line.startswith("Usage: ")), None)
    out.append(".SS " + roff("paretune " + " ".join(words)))
    if usage_at is not None:
        # "Usage: /path/to/paretune search [OPTIONS] model": the program named as installed.
        usage = lines[usage_at].split(" ", 2)
        out.append(".B " + roff("paretune " + (usage[2] if len(usage) > 2 else "")))
        description = " ".join(line.strip() for line in lines[:usage_at] if line.strip())
        if description:
            out.extend([".PP", roff(description)])
    for section in ("Positionals:", "Options:"):
        for name, what in rows(section, text):
            if name.startswith("-h,--help"):
                continue
            out.extend([".TP", ".B " + roff(name, minus=True), roff(what)])
    for name, _ in rows("Subcommands:", text):
        command(program, words + [name], out)


def main():
    program, output = sys.argv[1], sys.argv[2]
    out = ["[COMMANDS]"]
    for name, _ in rows("Subcommands:", help_text(program, [])):
        command(program, [name], out)
    with open(output, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
