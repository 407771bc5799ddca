#!/usr/bin/env bash
# Builds the Debian package from an existing build folder (no rebuild when it is up to date) and
# checks what it holds: the two programs in /usr/bin, the desktop entry, the icon and the AppStream
# metadata (validated), the example catalog, and library dependencies found by dpkg-shlibdeps.
#
#   installer/check_package.sh BUILD_DIR     e.g. build/dev after scripts/dev test
set -euo pipefail

build=${1:?usage: installer/check_package.sh BUILD_DIR}
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
echo "check_package: $(basename "$deb") ($(du -h "$deb" | cut -f1))"

contents=$(dpkg-deb -c "$deb")
for path in \
  ./usr/bin/paretune \
  ./usr/bin/paretune-workbench \
  ./usr/share/applications/paretune-workbench.desktop \
  ./usr/share/icons/hicolor/scalable/apps/paretune.svg \
  ./usr/share/metainfo/io.github.paretune.Paretune.metainfo.xml \
  ./usr/share/paretune/catalogs/example.json \
  ./usr/share/paretune/catalogs/cpu_cores.json \
  ./usr/lib/paretune/libparetune-torch.so; do
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
  libzip4 libcpuinfo libtorch; do
  grep -q "$package" <<<"$depends" || fail "Depends lacks $package: $depends"
done
echo "  depends on: $depends"

# The files inside: the desktop entry launches what the package installs, with its icon.
dpkg-deb -x "$deb" "$work/root"
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
grep -q '^ Recommends: .*libopenblas0-pthread' <<<"$info" ||
  fail "the package does not recommend libopenblas0-pthread"
# Libraries the programs load that no Debian package provides cannot be declared (dpkg-shlibdeps
# skips them): say which, so that a package built with them is known not to be self-contained.
unowned() { # the paths of the arguments that no installed package owns (one dpkg call)
  dpkg -S "$@" 2>&1 >/dev/null | sed -n 's/^dpkg-query: no path found matching pattern //p'
}
mapfile -t needed < <(ldd "$work/root/usr/bin/paretune" "$work/root/usr/bin/paretune-workbench" \
  "$work/root/usr/lib/paretune/libparetune-torch.so" |
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
# The packaged paretune opens the packaged LibTorch module (beside it, not the build tree's) the
# first time a command needs it.
sample=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/resources/models/sample.onnx
LD_DEBUG=files "$work/root/usr/bin/paretune" profile "$sample" --device cpu:0 --repeats 1 \
  --db "$work/samples.db" >"$work/profile.log" 2>&1 ||
  { tail -n 20 "$work/profile.log" >&2; fail "the packaged paretune cannot profile"; }
grep -qF "calling init: $work/root/usr/bin/../lib/paretune/libparetune-torch.so" \
  "$work/profile.log" || fail "the packaged paretune did not load the packaged LibTorch module"
echo "  the packaged paretune loads the packaged LibTorch module"
echo "check_package: ok"
