#!/usr/bin/env bash
# Compare the GPU <-> pool transfers of two kvctl builds on one machine.
#
#   bench/transfer_ab.sh NEW OLD OUT     # NEW, OLD: kvctl binaries; OUT: a folder for the results
#
# Environment: DEVICE (default cuda; host for emulation), BYTES (per
# transfer, default 1GiB), PAGES (page sizes, default
# 4KiB,16KiB,64KiB,256KiB), REPEAT (timed transfers per configuration, of
# which each run reports the median, default 5), ROUNDS (default 2), TRACE
# (a trace that serve replays with 64 KiB pages, default
# testdata/trace-small.jsonl; none: skip), PROBES (a folder holding
# loadpaths.cu and stagedlimit.cu: built with nvcc and run first).
#
# The builds take turns: each round runs both builds' loads, then both
# builds' saves, staged and direct at every page size, so that a machine
# shared with other work slows them alike (on the H200 virtual machine a
# single transfer of a GiB strayed by up to 0.15 of the link from the
# next). Everything lands in OUT as JSON (load_new_1.json, ...) and
# /usr/bin/time output; with python3, a summary follows: per path and page
# size, each build's median ratio to the baseline over the rounds, and the
# range of every timed transfer, and the most cores other programs kept
# busy during either build's timed transfers (others_busy_cores) where the
# builds report it, and the most time the hypervisor gave other guests
# (steal_cores) where some run lost a twentieth of a core or more
# (cmd/bench_print.go, stealWarn).
set -euo pipefail

if [[ $# -ne 3 ]]; then
	sed -n '2,4p' "$0" >&2
	exit 2
fi
new=$1 old=$2 out=$3
root=$(cd "$(dirname "$0")/.." && pwd)
device=${DEVICE:-cuda}
bytes=${BYTES:-1GiB}
pages=${PAGES:-4KiB,16KiB,64KiB,256KiB}
repeat=${REPEAT:-5}
rounds=${ROUNDS:-2}
trace=${TRACE-$root/testdata/trace-small.jsonl}
mkdir -p "$out"

if [[ -n ${PROBES:-} ]]; then
	"$(dirname "$0")/probes.sh" "$PROBES" "$out"
fi

for round in $(seq "$rounds"); do
	for dir in load save; do
		for build in new old; do
			bin=$new
			[[ $build == old ]] && bin=$old
			"$bin" bench "$dir" --device "$device" --bytes "$bytes" --copy kernel --repeat "$repeat" \
				--sweep direct=false,true --sweep page-bytes="$pages" -q -o json >"$out/${dir}_${build}_$round.json"
		done
	done
done

if [[ -n $trace ]]; then
	for build in new old; do
		bin=$new
		[[ $build == old ]] && bin=$old
		/usr/bin/time -v "$bin" serve --single-rank --device "$device" --gpu-blocks 2048 --layer-group 0:64KiB \
			--trace "$trace" -q -o json >"$out/serve64k_$build.json" 2>"$out/serve64k_$build.time"
	done
fi

command -v python3 >/dev/null || exit 0
python3 - "$out" "$rounds" <<'EOF'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
STOLEN = 0.05  # cores, stealWarn of cmd/bench_print.go
for d in ("load", "save"):
    rows = {}
    for build in ("new", "old"):
        for r in range(1, rounds + 1):
            for run in json.load(open(f"{out}/{d}_{build}_{r}.json"))["runs"]:
                key = ("direct" if run["direct"] else "staged", run["page_bytes"])
                cell = rows.setdefault(key, {}).setdefault(build, {"median": [], "all": []})
                cell["median"].append(run["ratio_to_baseline"])
                cell["all"] += [run.get("ratio_min", run["ratio_to_baseline"]), run.get("ratio_max", run["ratio_to_baseline"])]
                if "others_busy_cores" in run:
                    cell.setdefault("others", []).append(run["others_busy_cores"])
                cell.setdefault("steal", []).append(run.get("steal_cores", 0))
    print(f"{d}: median ratio to the baseline over {rounds} rounds (range of every transfer), new / old")
    for (path, page), cells in sorted(rows.items()):
        fmt = lambda c: "%.2f (%.2f-%.2f)" % (statistics.median(c["median"]), min(c["all"]), max(c["all"]))
        others = [max(c["others"]) for c in (cells["new"], cells["old"]) if c.get("others")]
        busy = "  others busy up to %.2f cores" % max(others) if others else ""
        steal = max(max(c["steal"]) for c in (cells["new"], cells["old"]))
        busy += "  steal up to %.2f cores" % steal if steal >= STOLEN else ""
        print(f"  {path:6} {page // 1024:5d} KiB  {fmt(cells['new'])} / {fmt(cells['old'])}{busy}")
EOF
