#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the Debian package from an existing build folder (no rebuild when it is up to date) and
# checks what it holds: the two programs in /usr/bin (stripped), the desktop entry, the icon, the
# AppStream metadata (validated), the ONNX MIME type, the catalogs and the sample model (found by
# the packaged programs), manual pages, copyright and changelog, library dependencies found by
# dpkg-shlibdeps and those declared; then lintian, which must report no error and no warning, and
# the SPDX licence line of every source file (tools/spdx_headers.py --check).
#
#   installer/check_package.sh BUILD_DIR     e.g. build/dev after scripts/dev test
set -euo pipefail

build=${1:?usage: installer/check_package.sh BUILD_DIR}
source=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "check_package: FAILED: $*" >&2
  exit 1
}

if ! (cd "$build" && cpack -G DEB -B "$work" >"$work/cpack.log" 2>&1); then
  cat "$work/cpack.log" >&2
  fail "cpack could not build the package"
fi
debs=("$work"/*.deb)
[ -f "${debs[0]}" ] || fail "cpack made no .deb (see $build)"
deb=${debs[0]}
echo "check_package: $(basename "$deb") ($(du -h "$deb" | cut -f1)," \
  "installed size $(dpkg-deb -f "$deb" Installed-Size) KiB)"

contents=$(dpkg-deb -c "$deb")
# The LibTorch module, private to the package: in the multiarch folder, which ldconfig does not
# serve (core/CMakeLists.txt).
module=usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/paretune/libparetune-torch.so
for path in \
  ./usr/bin/paretune \
  ./usr/bin/paretune-workbench \
  ./usr/share/applications/paretune-workbench.desktop \
  ./usr/share/icons/hicolor/scalable/apps/paretune.svg \
  ./usr/share/metainfo/io.github.paretune.Paretune.metainfo.xml \
  ./usr/share/paretune/catalogs/example.json \
  ./usr/share/paretune/catalogs/cpu_cores.json \
  ./usr/share/paretune/models/sample.onnx \
  ./usr/share/mime/packages/paretune.xml \
  ./usr/share/man/man1/paretune.1.gz \
  ./usr/share/man/man1/paretune-workbench.1.gz \
  ./usr/share/doc/paretune/copyright \
  ./usr/share/doc/paretune/changelog.Debian.gz \
  "./$module"; do
  grep -q " $path\$" <<<"$contents" || fail "the package lacks $path"
  echo "  has $path"
done
for program in paretune paretune-workbench; do
  grep -E "^-rwxr-xr-x .* \./usr/bin/$program\$" <<<"$contents" >/dev/null ||
    fail "/usr/bin/$program is not an executable file"
done

info=$(dpkg-deb -I "$deb")
depends=$(sed -n 's/^ Depends: //p' <<<"$info")
[ -n "$depends" ] || fail "the package declares no dependencies (dpkg-shlibdeps did not run?)"
# One library per dependency the programs cannot start without (names as in Debian 12).
for package in libc6 libstdc++6 libqt6widgets6 libqt6core6 libprotobuf libonnx libsqlite3 \
  libzip4 libcpuinfo libtorch qt6-qpa-plugins; do
  grep -q "$package" <<<"$depends" || fail "Depends lacks $package: $depends"
done
echo "  depends on: $depends"

# The files inside: the desktop entry launches what the package installs, with its icon.
dpkg-deb -x "$deb" "$work/root"
# Qt's SQL drivers are plugins no linker sees: a program using Qt SQL needs the SQLite driver
# declared. (Now none does: the sample library uses SQLite directly.)
if ldd "$work/root/usr/bin/paretune-workbench" | grep -q libQt6Sql; then
  grep -q libqt6sql6-sqlite <<<"$depends" ||
    fail "the workbench uses Qt SQL: Depends lacks libqt6sql6-sqlite"
fi
desktop=$work/root/usr/share/applications/paretune-workbench.desktop
grep -q '^Exec=paretune-workbench' "$desktop" || fail "the desktop entry does not run paretune-workbench"
grep -q '^Icon=paretune$' "$desktop" || fail "the desktop entry's icon is not 'paretune'"
metainfo=$work/root/usr/share/metainfo/io.github.paretune.Paretune.metainfo.xml
grep -q '<launchable type="desktop-id">paretune-workbench.desktop</launchable>' "$metainfo" ||
  fail "the AppStream metadata does not name the desktop entry"
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net "$metainfo" >"$work/appstream.log" 2>&1 ||
    { cat "$work/appstream.log" >&2; fail "appstreamcli rejects the metadata"; }
  echo "  AppStream metadata valid (appstreamcli)"
else
  xmllint --noout "$metainfo" "$work/root/usr/share/icons/hicolor/scalable/apps/paretune.svg" ||
    fail "the metadata or the icon is not well-formed XML"
  echo "  AppStream metadata well-formed (xmllint; appstreamcli not installed)"
fi
for package in libopenblas0-pthread fonts-noto-cjk; do
  grep -q "^ Recommends: .*$package" <<<"$info" || fail "the package does not recommend $package"
done
# The ONNX MIME type the desktop entry names, defined by the package.
mime=$work/root/usr/share/mime/packages/paretune.xml
xmllint --noout "$mime" || fail "the MIME definition is not well-formed XML"
grep -q '<mime-type type="application/x-onnx">' "$mime" ||
  fail "the MIME definition does not define application/x-onnx"
grep -q '<glob pattern="\*.onnx"/>' "$mime" || fail "the MIME definition has no *.onnx glob"
grep -q '^MimeType=application/x-onnx;$' "$desktop" || fail "the desktop entry opens no ONNX files"
if command -v update-mime-database >/dev/null; then
  mkdir -p "$work/mime/packages" && cp "$mime" "$work/mime/packages/"
  update-mime-database "$work/mime" >"$work/mime.log" 2>&1 ||
    { cat "$work/mime.log" >&2; fail "update-mime-database rejects the MIME definition"; }
  grep -q '^application/x-onnx:\*\.onnx$' "$work/mime/globs" || fail "no *.onnx glob after update"
fi
echo "  application/x-onnx defined for *.onnx"
# Licence, history and manual pages.
grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
  "$work/root/usr/share/doc/paretune/copyright" || fail "the copyright file is not machine-readable"
version=$(dpkg-deb -f "$deb" Version)
changelog=$(gzip -dc "$work/root/usr/share/doc/paretune/changelog.Debian.gz" | head -n 1)
[[ $changelog == "paretune ($version) "* ]] ||
  fail "the changelog's latest entry is not version $version: $changelog"
for page in paretune paretune-workbench; do
  text=$(MANWIDTH=80 man -l "$work/root/usr/share/man/man1/$page.1.gz" 2>&1) ||
    fail "man cannot show $page.1.gz"
  grep -q -- '--help' <<<"$text" || fail "the manual page of $page lists no options"
done
echo "  copyright, changelog $version and manual pages"
# Stripped: the debug information is most of an unstripped binary's size.
for binary in usr/bin/paretune usr/bin/paretune-workbench "$module"; do
  kind=$(file -b "$work/root/$binary")
  [[ $kind == *", stripped"* ]] || fail "/$binary is not stripped: $kind"
  echo "  /$binary stripped ($(du -h "$work/root/$binary" | cut -f1))"
done
# Libraries the programs load that no Debian package provides cannot be declared (dpkg-shlibdeps
# skips them): say which, so that a package built with them is known not to be self-contained.
unowned() { # the paths of the arguments that no installed package owns (one dpkg call)
  dpkg -S "$@" 2>&1 >/dev/null | sed -n 's/^dpkg-query: no path found matching pattern //p'
}
mapfile -t needed < <(ldd "$work/root/usr/bin/paretune" "$work/root/usr/bin/paretune-workbench" \
  "$work/root/$module" |
  awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u)
mapfile -t missing < <(unowned "${needed[@]}")
if [ ${#missing[@]} -gt 0 ]; then # /lib/x → /usr/lib/x and other links, then once more
  mapfile -t missing < <(for path in "${missing[@]}"; do realpath "$path"; done)
  mapfile -t missing < <(unowned "${missing[@]}")
fi
for path in "${missing[@]}"; do
  echo "  warning: the programs need $path, which no Debian package provides"
done
"$work/root/usr/bin/paretune" --version >/dev/null ||
  fail "the packaged paretune does not start"
# Both programs answer --help without a display (the manual pages are made from it).
env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$work/root/usr/bin/paretune-workbench" \
  --help >/dev/null || fail "the packaged paretune-workbench --help needs a display"
# Catalogs by name from the packaged data folder, not the source tree; a name found nowhere says
# where it was looked for.
packaged_catalogs=$work/root/usr/share/paretune/catalogs
(cd / && "$work/root/usr/bin/paretune" devices --catalog cpu_cores --json >"$work/devices.json") ||
  fail "the packaged paretune does not find the catalog cpu_cores"
if (cd / && "$work/root/usr/bin/paretune" devices --catalog nosuch 2>"$work/nosuch.log"); then
  fail "the packaged paretune accepts a catalog that does not exist"
fi
grep -qF "nosuch: no such device catalog (looked for nosuch or nosuch.json in the working folder, \
$packaged_catalogs)" "$work/nosuch.log" ||
  { cat "$work/nosuch.log" >&2; fail "the packaged paretune does not say where it looked"; }
echo "  the packaged paretune finds catalogs by name in /usr/share/paretune/catalogs"
# The packaged workbench, given no model, opens the packaged sample (its recent files say which).
(cd / && QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME=$work/config XDG_RUNTIME_DIR=$work \
  timeout 300 "$work/root/usr/bin/paretune-workbench" --screenshot "$work/sample.png" \
  >"$work/workbench.log" 2>&1) ||
  { cat "$work/workbench.log" >&2; fail "the packaged workbench cannot show the sample model"; }
grep -qxF "recentFiles=$work/root/usr/share/paretune/models/sample.onnx" \
  "$work/config/Paretune/Paretune Workbench.conf" ||
  fail "the packaged workbench did not open the packaged sample model"
echo "  the packaged workbench opens /usr/share/paretune/models/sample.onnx"
# The packaged paretune opens the packaged LibTorch module (beside it, not the build tree's) the
# first time a command needs it.
sample=$work/root/usr/share/paretune/models/sample.onnx
LD_DEBUG=files "$work/root/usr/bin/paretune" profile "$sample" --device cpu:0 --repeats 1 \
  --db "$work/samples.db" >"$work/profile.log" 2>&1 ||
  { tail -n 20 "$work/profile.log" >&2; fail "the packaged paretune cannot profile"; }
grep -qF "calling init: $work/root/usr/bin/../${module#usr/}" \
  "$work/profile.log" || fail "the packaged paretune did not load the packaged LibTorch module"
echo "  the packaged paretune loads the packaged LibTorch module"

# lintian, as a distribution would run it: no error, no warning. Overrides are a file the package
# installs (installer/lintian-overrides), each with a comment saying why; they are shown (O:).
# (lintian's --fail-on counts the shown overrides too: the verdict comes from its tags.)
lintian --display-info --show-overrides --tag-display-limit 0 --fail-on none "$deb" \
  >"$work/lintian.log" 2>&1 || { cat "$work/lintian.log" >&2; fail "lintian could not run"; }
if grep -qE '^[EW]: ' "$work/lintian.log"; then
  cat "$work/lintian.log" >&2
  fail "lintian reports errors or warnings"
fi
grep -v '^running with root privileges' "$work/lintian.log" | sed 's/^/  lintian: /' || true
echo "  lintian: no errors, no warnings"

# Every source file states its licence.
"$source/tools/spdx_headers.py" --check || fail "files without the SPDX licence line"
echo "  every source file has its SPDX licence line"

echo "check_package: ok"
