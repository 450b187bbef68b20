#!/bin/sh
# The runtime as an embedder gets it: builds runtime/ alone, installs it into a temporary prefix,
# checks what the shared library exports (drape_* only) and its SONAME, then builds
# samples/hello_cloth.c against the installed package twice (a plain cc with pkg-config, and a
# CMake project with find_package, shared and static) and runs each on a real cloth.
# Usage: run.sh SOURCE_DIR BUILD_DIR FILE.drcloth
set -eu
src=$1; build=$2; cloth=$3
rm -rf "$build"; mkdir -p "$build"
prefix="$build/prefix"
launcher=""
if command -v ccache >/dev/null 2>&1; then
  launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
fi
step() { echo "== $*"; }
fail() { echo "FAILED: $*"; exit 1; }

step "cmake -S runtime, build, install"
cmake -S "$src/runtime" -B "$build/runtime" -G Ninja -DCMAKE_BUILD_TYPE=Release $launcher > "$build/configure.log" 2>&1 \
  || { cat "$build/configure.log"; fail "configure"; }
cmake --build "$build/runtime" -j2 > "$build/build.log" 2>&1 || { cat "$build/build.log"; fail "build"; }
cmake --install "$build/runtime" --prefix "$prefix" > "$build/install.log" 2>&1 || { cat "$build/install.log"; fail "install"; }
libdir="$prefix/lib"
[ -d "$libdir" ] || libdir=$(dirname "$(find "$prefix" -name libdrape_runtime.so | head -n 1)")
for f in "$prefix/include/drape/runtime.h" "$libdir/libdrape_runtime.so" "$libdir/libdrape_runtime.a" \
         "$libdir/pkgconfig/drape-runtime.pc" "$libdir/cmake/drape_runtime/drape_runtimeConfig.cmake"; do
  [ -e "$f" ] || fail "not installed: $f"
done

step "exports and SONAME"
others=$(nm -D --defined-only "$libdir/libdrape_runtime.so" | awk '{print $3}' | grep -v '^drape_' || true)
[ -z "$others" ] || { echo "$others"; fail "the shared library exports symbols other than drape_*"; }
echo "$(nm -D --defined-only "$libdir/libdrape_runtime.so" | wc -l) symbols, all drape_*"
readelf -d "$libdir/libdrape_runtime.so" | grep -q 'SONAME.*\[libdrape_runtime\.so\.2\]' || fail "SONAME is not libdrape_runtime.so.2"

step "cc with pkg-config"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
flags=$(pkg-config --cflags --libs drape-runtime) || fail "pkg-config drape-runtime"
echo "pkg-config: $flags"
# shellcheck disable=SC2086
cc -std=c99 -Wall -Wextra -Werror "$src/samples/hello_cloth.c" $flags -lm -o "$build/hello_cloth" || fail "cc hello_cloth.c"
LD_LIBRARY_PATH="$libdir" "$build/hello_cloth" "$cloth" > "$build/pkgconfig.out" 2>&1 || { cat "$build/pkgconfig.out"; fail "hello_cloth (pkg-config)"; }
cat "$build/pkgconfig.out"
LD_LIBRARY_PATH="$libdir" ldd "$build/hello_cloth" | grep -q "libdrape_runtime.so.2 => $libdir" || { LD_LIBRARY_PATH="$libdir" ldd "$build/hello_cloth"; fail "hello_cloth does not load the installed shared library"; }

step "CMake find_package(drape_runtime)"
cmake -S "$src/tests/package" -B "$build/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" > "$build/consumer.log" 2>&1 \
  || { cat "$build/consumer.log"; fail "configure the consumer"; }
cmake --build "$build/consumer" >> "$build/consumer.log" 2>&1 || { cat "$build/consumer.log"; fail "build the consumer"; }
for kind in shared static; do
  "$build/consumer/hello_cloth_$kind" "$cloth" > "$build/$kind.out" 2>&1 || { cat "$build/$kind.out"; fail "hello_cloth_$kind"; }
  cmp -s "$build/pkgconfig.out" "$build/$kind.out" || { diff "$build/pkgconfig.out" "$build/$kind.out"; fail "hello_cloth_$kind printed other figures"; }
done
echo "the runtime package works"
