#!/usr/bin/env bash
# The installed tree works without the source tree. Usage: install_test.sh MODE BUILD
#   prefix: cmake --install BUILD --prefix TMP, then TMP/bin/commlab-cli runs the installed
#           TMP/share/commlab/samples/quickstart.json
#   deb:    cpack builds the .deb, dpkg --root installs it into a fresh TMP/dpkg, dpkg-deb -x
#           unpacks it into TMP/root, and the same quickstart runs from TMP/root/usr (exit 77,
#           reported as skipped by ctest, without dpkg-deb or dpkg-shlibdeps)
# The quickstart is cut to 10 iterations on 2,000 rows with --set (the whole sample takes ~20 s);
# it still reads the real Fashion-MNIST files and writes the results folder.
set -euo pipefail
mode=$1
build=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/commlab_install_${mode}.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install_test ($mode): $*" >&2; exit 1; }

case $mode in
  prefix)
    cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
    root=$tmp/prefix ;;
  deb)
    for tool in dpkg-deb dpkg-shlibdeps; do  # dpkg-shlibdeps (dpkg-dev) finds the Depends
      command -v $tool >/dev/null || { echo "SKIPPED: $tool is not installed"; exit 77; }
    done
    (cd "$tmp" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg" >/dev/null)
    deb=$(ls "$tmp"/pkg/*.deb) || fail "cpack wrote no .deb"
    info=$(dpkg-deb -I "$deb")  # (grep -q in a pipe would end dpkg-deb with SIGPIPE)
    [[ $info == *"Depends: dataset-fashion-mnist"* ]] ||
      fail "$deb does not depend on dataset-fashion-mnist: $info"
    dpkg-deb -x "$deb" "$tmp/root"
    root=$tmp/root/usr
    # The issue's target: dpkg itself installs it into a fresh root (its libraries are the host's,
    # hence --force-depends) and records it as installed, with the same files.
    db=$tmp/dpkg/var/lib/dpkg
    mkdir -p "$db/info" "$db/updates" && touch "$db/status" "$db/available"
    dpkg --root="$tmp/dpkg" --force-depends --force-not-root --force-script-chrootless \
      -i "$deb" >/dev/null 2>&1 || fail "dpkg --root -i $deb failed"
    [[ $(dpkg --root="$tmp/dpkg" -s commlab) == *"Status: install ok installed"* ]] ||
      fail "dpkg --root does not list commlab as installed"
    cmp -s "$tmp/dpkg/usr/bin/commlab-cli" "$root/bin/commlab-cli" ||
      fail "dpkg --root installed another commlab-cli than the package holds" ;;
  *) fail "MODE must be prefix or deb" ;;
esac

share=$root/share/commlab
for f in bin/commlab-cli share/commlab/samples/quickstart.json share/commlab/docs/cli.md \
         share/man/man1/commlab-cli.1 share/man/man1/commlab-cli-run.1 \
         share/man/man1/commlab-cli-codec.1; do
  [ -f "$root/$f" ] || fail "missing $root/$f"
done
if [ -x "$build/app/commlab" ]; then  # the GUI was built: it and its desktop integration
  for f in bin/commlab share/man/man1/commlab.1 share/applications/io.commlab.CommLab.desktop \
           share/metainfo/io.commlab.CommLab.metainfo.xml \
           share/icons/hicolor/scalable/apps/io.commlab.CommLab.svg; do
    [ -f "$root/$f" ] || fail "missing $root/$f"
  done
fi
if compgen -G "$build/python/commlab/_commlab*.so" >/dev/null; then  # the Python module was built
  module=$(find "$root" -name '_commlab*.so' -path '*/commlab/*' | head -1)
  [ -n "$module" ] || fail "the Python module commlab is not installed under $root"
  [[ $module != */local/* ]] || fail "the Python module went to a /usr/local scheme: $module"
  site=$(dirname "$(dirname "$module")")
  (cd "$tmp" && PYTHONPATH=$site /usr/bin/python3 -c \
    'import commlab; assert commlab.__file__.startswith("'"$site"'"), commlab.__file__' 2>&1) ||
    fail "the installed module does not import from $site"
fi
grep -q '^\.SH OPTIONS' "$root/share/man/man1/commlab-cli-codec.1" || fail "codec man page has no OPTIONS"
grep -q 'safetensors' "$root/share/man/man1/commlab-cli-codec.1" || fail "codec man page is not from --help"

# Run from an empty directory so nothing relative to the working directory is found.
mkdir -p "$tmp/cwd" && cd "$tmp/cwd"
"$root/bin/commlab-cli" run "$share/samples/quickstart.json" --out "$tmp/out" --quiet \
  --set training.iterations=10 --set workload.max_train=2000 --set training.eval_rows=200 \
  --set training.eval_every=10 || fail "installed commlab-cli run exited $?"
[ -s "$tmp/out/summary.json" ] || fail "no $tmp/out/summary.json"
grep -q '"skipreduce-50"' "$tmp/out/summary.json" || fail "summary.json lacks the sample's runs"
echo "install_test ($mode): ok ($root)"
