#!/usr/bin/env bash
# Build and run the physical-limit probes beside a kvctl measurement.
#
#   bench/probes.sh PROBES OUT   # PROBES: a folder holding loadpaths.cu and stagedlimit.cu
#
# Builds both with nvcc (sm_90), writes OUT/loadpaths.txt and
# OUT/stagedlimit16.txt (16 host threads), and removes the binaries.
# bench/transfer_ab.sh and bench/goals.sh call it when PROBES is set.
set -euo pipefail

if [[ $# -ne 2 ]]; then
	sed -n '4p' "$0" >&2
	exit 2
fi
probes=$1 out=$2
mkdir -p "$out"
for p in loadpaths stagedlimit; do
	nvcc -O3 -arch=sm_90 -o "$out/$p" "$probes/$p.cu"
done
"$out/loadpaths" >"$out/loadpaths.txt"
"$out/stagedlimit" 16 >"$out/stagedlimit16.txt"
rm -f "$out/loadpaths" "$out/stagedlimit"
