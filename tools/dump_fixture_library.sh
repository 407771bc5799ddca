#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes a measured sample library as a test fixture: SQL text (python3's sqlite3 iterdump, plus
# the header fields that mark the file as a Paretune library), headed by the machine and tool it
# was measured with. Shared by tools/make_predictor_fixture.sh and make_variant_fixture.sh.
#
#   tools/dump_fixture_library.sh DB OUT MAKER PARETUNE
set -euo pipefail
db=$1 out=$2 maker=$3 paretune=$4
cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)
{
  echo "-- A Paretune sample library measured by tools/$maker; do not edit."
  echo "-- Measured on: $cpu, $(nproc) CPUs, $(uname -sr), $(date -u +%Y-%m-%d)"
  echo "-- Tool: $("$paretune" --version | head -n 1)"
  /usr/bin/python3 - "$db" <<'PY'
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
for line in con.iterdump():
    print(line)
# iterdump leaves out the header fields that mark the file as a Paretune library.
for pragma in ("application_id", "user_version"):
    print("PRAGMA %s = %d;" % (pragma, con.execute("PRAGMA " + pragma).fetchone()[0]))
PY
} > "$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out ($(wc -c < "$out") bytes)"
