#!/usr/bin/env bash
# The release build of pushbridge, with its flags in one place: `make release`, `make run`,
# bench/run.sh and the Dockerfile all call this script. Extra arguments are passed on
# (`scripts/swift-release.sh --show-bin-path`, `--product pushbridge`). `swift build` and
# `make test` (debug) do not use these flags.
#
# Why each flag (peak RSS of the bench's QoS 1 flood; bench/README.md has the figures):
#   --static-swift-stdlib   links the Swift runtime, Foundation, Dispatch and ICU into the
#                           binary instead of loading libswiftCore.so, libFoundation*.so,
#                           lib_FoundationICU.so: only the pages used are mapped (-4.4 MB).
#   -use-ld=lld             the toolchain's lld instead of gold: it supports the next flag
#                           (and does not print glibc's link-time mktemp warning that
#                           static Foundation triggers under gold).
#   -z pack-relative-relocs DT_RELR: the 1.7 MB of R_X86_64_RELATIVE entries the loader reads
#                           at every start shrink to 32 kB (needs glibc >= 2.36: Debian 12).
#   -function-sections      each function in a section of its own, so that lld can order them:
#   --symbol-ordering-file  scripts/pushbridge.order (made by scripts/symbol-order.py from a
#                           profile of a start and two floods) puts the functions a running bridge
#                           uses together: its resident text fell from ~8 MB to ~5 MB (peak RSS
#                           of the QoS 1 flood with the journal -4 MB). A name the code no longer
#                           has is ignored (--no-warn-symbol-ordering).
set -euo pipefail
cd "$(dirname "$0")/.."
order=()
if [ -f scripts/pushbridge.order ]; then
    order=(-Xlinker --symbol-ordering-file=scripts/pushbridge.order -Xlinker --no-warn-symbol-ordering)
fi
exec "${SWIFT:-swift}" build -c release --static-swift-stdlib \
    -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
    -Xswiftc -Xfrontend -Xswiftc -function-sections "${order[@]}" "$@"
