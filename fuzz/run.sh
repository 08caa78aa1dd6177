#!/usr/bin/env bash
# Builds the libFuzzer targets from the package and runs each one for a while.
#
#   fuzz/run.sh [-t SECONDS] [-c debug|release] [-s] [TARGET...]
#
# TARGET is a folder name under fuzz/targets/ (default: every fuzz_* folder there). The
# targets are SwiftPM executables that exist only when PUSHBRIDGE_FUZZ is set (see the end of
# Package.swift); each links the whole PushBridge library, built with -sanitize=fuzzer,address
# into its own build path (.build/fuzz/build), so the normal .build is untouched. Work files
# live in .build/fuzz/: the growing corpus per target (seeded from fuzz/corpus/<target>/, and
# for fuzz_config from the repository's own YAML files), crash artifacts in
# .build/fuzz/artifacts/<target>/, and <target>.log. Each target first runs every input of its
# seed corpus, then fuzzes for SECONDS. Exits 1 when a target found a crash, leak, timeout or
# out-of-memory input (its log's end and the saved input are printed). -s (the smoke run of
# `make test`): start from the repository's seeds only, in a fresh .build/fuzz/smoke/<target>,
# so the run takes the same time however long the corpus has grown in earlier runs.
set -euo pipefail

cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=60
CONFIGURATION=debug
SMOKE=0
while getopts "t:c:s" opt; do
  case $opt in
    t) SECONDS_PER_TARGET=$OPTARG ;;
    c) CONFIGURATION=$OPTARG ;;
    s) SMOKE=1 ;;
    *) echo "usage: fuzz/run.sh [-t SECONDS] [-c debug|release] [-s] [TARGET...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
  for d in fuzz/targets/fuzz_*/; do TARGETS+=("$(basename "$d")"); done
fi

OUT=.build/fuzz
mkdir -p "$OUT"
BUILD_PATH=$OUT/build
SWIFT=${SWIFT:-swift}
flags=(--build-path "$BUILD_PATH" -c "$CONFIGURATION"
       -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address -Xswiftc -use-ld=lld)
# @testable import needs -enable-testing, which only debug builds have by default.
[ "$CONFIGURATION" = release ] && flags+=(-Xswiftc -enable-testing)
# Package.swift declares the targets named here (every folder, so the manifest stays the same
# whichever targets this run builds).
all=()
for d in fuzz/targets/fuzz_*/; do all+=("$(basename "$d")"); done
export PUSHBRIDGE_FUZZ="${all[*]}"

# libFuzzer and the sanitizer runtimes ship with the Swift toolchain (swift.org builds for
# Linux carry them under usr/lib/clang/<version>/lib/linux/); say so plainly when they do not.
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v "$SWIFT")")")")
if ! ls "$toolchain"/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 &&
   ! ls "$toolchain"/lib/swift/clang/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "fuzz/run.sh: the Swift toolchain in $toolchain has no libFuzzer runtime" \
       "(libclang_rt.fuzzer-x86_64.a); use a swift.org toolchain for Linux" >&2
  exit 1
fi
for target in "${TARGETS[@]}"; do
  [ -d "fuzz/targets/$target" ] || { echo "unknown target '$target' (see fuzz/targets/)" >&2; exit 2; }
  echo "== building $target ($CONFIGURATION, -sanitize=fuzzer,address)"
  if ! "$SWIFT" build "${flags[@]}" --product "$target" >"$OUT/build.log" 2>&1; then
    grep -E "error:" "$OUT/build.log" | head -20; tail -5 "$OUT/build.log"
    echo "building $target failed (log: $OUT/build.log)" >&2; exit 1
  fi
  grep -E "warning:" "$OUT/build.log" | grep -v "^/usr/bin/ld" | sort -u || true
done
BIN=$("$SWIFT" build "${flags[@]}" --show-bin-path)

status=0
for target in "${TARGETS[@]}"; do
  corpus="$OUT/corpus/$target"
  if [ "$SMOKE" = 1 ]; then corpus="$OUT/smoke/$target"; rm -rf "$corpus"; fi
  artifacts="$OUT/artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  seeds=()
  [ -d "fuzz/corpus/$target" ] && seeds=("fuzz/corpus/$target")
  # The repository's own files are seeds too: its configs, and the recipes' samples files.
  if [ "$target" = fuzz_config ]; then
    for f in bridge.yml examples/*/bridge.yml fuzz/recipes/*.yml; do cp "$f" "$corpus/seed-$(echo "$f" | tr / _)"; done
  fi
  if [ "$target" = fuzz_samples ]; then
    for f in examples/*/samples.tsv; do [ -f "$f" ] && cp "$f" "$corpus/seed-$(echo "$f" | tr / _)"; done
  fi
  dict=()
  [ -f "fuzz/dict/$target.dict" ] && dict=(-dict="fuzz/dict/$target.dict")
  echo "== running $target: its seeds, then ${SECONDS_PER_TARGET}s of fuzzing (log: $OUT/$target.log)"
  # LeakSanitizer reads the suppressions of make sanitize (Swift's tagged pointers it cannot follow).
  # Swift's own backtracer is off: under ASan it trips over its own memory reads on a trap,
  # and libFuzzer prints the stack of a crash anyway.
  if SWIFT_BACKTRACE=enable=no LSAN_OPTIONS="suppressions=$PWD/sanitize/leak.supp:print_suppressions=0" \
      "$BIN/$target" "$corpus" "${seeds[@]}" "${dict[@]}" \
      -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
      -artifact_prefix="$artifacts/" -print_final_stats=1 \
      >"$OUT/$target.log" 2>&1; then
    echo "   $(grep -E '^#[0-9]+' "$OUT/$target.log" | tail -1)"
  else
    status=1
    echo "   $target FAILED; from $OUT/$target.log:"
    { grep -m1 -B2 -A30 -E "Fatal error|ERROR: |deadly signal|timeout after|out-of-memory" "$OUT/$target.log" ||
      tail -40 "$OUT/$target.log"; } | sed 's/^/   /'
    grep -E "Test unit written" "$OUT/$target.log" | sed 's/^/   /' || true
    echo "   saved input(s) in $artifacts/ (reproduce: $BIN/$target FILE):"
    ls "$artifacts" | sed 's/^/     /'
  fi
done
exit $status
