#!/bin/sh
# Builds tests/determinism three ways (g++ -O0, g++ -O3, clang++ -O2; each the runtime alone, as
# an embedder builds it) and checks that 300 steps of a real cloth hash to the same bits.
# Usage: run.sh SOURCE_DIR BUILD_DIR FILE.drcloth
set -eu
src=$1/tests/determinism; build=$2; cloth=$3
mkdir -p "$build"
hashes=""
# ccache only where it is installed (a fresh machine has none: `make deps-test` does not install it).
launcher=""
if command -v ccache >/dev/null 2>&1; then
  launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
fi
for cfg in "g++ gcc -O0" "g++ gcc -O3" "clang++ clang -O2"; do
  set -- $cfg
  dir="$build/$1$3"
  cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Custom -DCMAKE_CXX_COMPILER=$1 -DCMAKE_C_COMPILER=$2 \
        -DCMAKE_CXX_FLAGS="$3" -DCMAKE_C_FLAGS="$3" $launcher > "$dir.log" 2>&1 \
    || { cat "$dir.log"; exit 1; }
  ninja -C "$dir" -j2 runtime_hash >> "$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
  h=$("$dir/runtime_hash" "$cloth" 300 2>&1) || { echo "$h"; exit 1; }
  echo "$1 $3: $h"
  hashes="$hashes$h
"
done
n=$(printf "%s" "$hashes" | sort -u | wc -l)
if [ "$n" -ne 1 ]; then echo "the three builds differ"; exit 1; fi
echo "bit-identical"
