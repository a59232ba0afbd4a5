#!/usr/bin/env bash
# Measure issue 16's transfer goals with one kvctl build and print each
# against its bar.
#
#   bench/goals.sh KVCTL OUT     # KVCTL: a kvctl binary; OUT: a folder for the results
#
# Goals (ratios to the same run's baseline, one contiguous pinned copy):
#   1. staged loads and saves >= 0.80 at 4, 16 and 64 KiB, >= 0.85 from 256 KiB;
#   2. direct loads >= 0.90 from 4 KiB; direct saves >= 0.80 at 4 KiB, >= 0.88 from 16 KiB;
#   3. direct loads with --copy batch >= 0.90 at 64 KiB (one and two regions a page);
#   4. async direct loads of 64 KiB pages: one worker >= 0.6, four >= 0.9.
# Every transfer is verified; --copy kernel except goal 3.
#
# Environment: DEVICE (default cuda; host for emulation), BYTES (per
# transfer, default 1GiB), PAGES (goals 1 and 2, default
# 4KiB,16KiB,64KiB,256KiB), REPEAT (timed transfers per configuration, of
# which each run reports the median, default 5), ROUNDS (default 2), PROBES
# (a folder holding loadpaths.cu and stagedlimit.cu: built with nvcc and
# run first, their output beside the results).
#
# Everything lands in OUT as JSON (goals_R_STEP.json); with python3 a table
# follows: per goal and configuration, each round's median ratio, the
# range of every timed transfer, the bar, and "met" when every round's
# median reached it. A run during which other programs kept half a core or
# more busy (kvctl's others_busy_cores) is marked "busy", and one during
# which the hypervisor gave a twentieth of a core or more to other guests
# (steal_cores, as kvctl bench warns) "steal", with each round's most:
# its figure is not a quiet machine's (docs/bench.md, "Other programs").
set -euo pipefail

if [[ $# -ne 2 ]]; then
	sed -n '4p' "$0" >&2
	exit 2
fi
kvctl=$1 out=$2
device=${DEVICE:-cuda}
bytes=${BYTES:-1GiB}
pages=${PAGES:-4KiB,16KiB,64KiB,256KiB}
repeat=${REPEAT:-5}
rounds=${ROUNDS:-2}
mkdir -p "$out"

if [[ -n ${PROBES:-} ]]; then
	"$(dirname "$0")/probes.sh" "$PROBES" "$out"
fi

bench() { # bench ROUND STEP ARGS...
	local round=$1 step=$2
	shift 2
	"$kvctl" bench "$@" --device "$device" --bytes "$bytes" --repeat "$repeat" -q -o json >"$out/goals_${round}_$step.json"
}
for round in $(seq "$rounds"); do
	bench "$round" load load --copy kernel --sweep direct=false,true --sweep page-bytes="$pages"
	bench "$round" save save --copy kernel --sweep direct=false,true --sweep page-bytes="$pages"
	bench "$round" batch load --direct --copy batch --page-bytes 64KiB --sweep regions-per-page=1,2
	bench "$round" async load --direct --copy kernel --async-load --page-bytes 64KiB --sweep async-load-workers=1,4
done

command -v python3 >/dev/null || exit 0
python3 - "$out" "$rounds" <<'EOF'
import json, sys
out, rounds = sys.argv[1], int(sys.argv[2])
BUSY = 0.5  # cores, othersBusyWarn of cmd/bench_print.go
STOLEN = 0.05  # cores, stealWarn of cmd/bench_print.go

def goal(run):
    """The goal, the configuration's name and its bar; rows sort by goal,
    then path, then page size."""
    page, kib = run["page_bytes"], run["page_bytes"] // 1024
    if run["async"]:
        return 4, f"async direct load, {run['workers']} worker(s), {kib} KiB", 0.6 if run["workers"] == 1 else 0.9
    if run["copy"] == "batch":
        return 3, f"direct load, --copy batch, {kib} KiB, {run['regions_per_page']} region(s)", 0.9
    d = run["direction"]
    if not run["direct"]:
        return 1, f"staged {d}, {kib} KiB", 0.85 if page >= 256 << 10 else 0.80
    if d == "load":
        return 2, f"direct load, {kib} KiB", 0.90
    return 2, f"direct save, {kib} KiB", 0.80 if page < 16 << 10 else 0.88

rows = {}
for r in range(1, rounds + 1):
    for step in ("load", "save", "batch", "async"):
        data = json.load(open(f"{out}/goals_{r}_{step}.json"))
        for run in data.get("runs", [data]):
            g, name, bar = goal(run)
            key = (g, name.split(",")[0], run["async"] and run["workers"], run["regions_per_page"], run["page_bytes"], name)
            row = rows.setdefault(key, {"bar": bar, "medians": [], "all": [], "busy": False, "steal": {}})
            row["medians"].append(run["ratio_to_baseline"])
            row["all"] += [run.get("ratio_min", run["ratio_to_baseline"]), run.get("ratio_max", run["ratio_to_baseline"])]
            row["busy"] |= run.get("others_busy_cores", 0) >= BUSY
            row["steal"][r] = max(row["steal"].get(r, 0), run.get("steal_cores", 0))

print(f"issue 16's goals: each round's median ratio to the baseline (range of every transfer), {rounds} round(s)")
for (g, *_, name), row in sorted(rows.items()):
    medians = ", ".join("%.2f" % m for m in row["medians"])
    met = "met" if min(row["medians"]) >= row["bar"] else "not met"
    busy = "  busy" if row["busy"] else ""
    steals = row["steal"].values()
    steal = "  steal " + ", ".join("%.2f" % c for c in steals) if max(steals) >= STOLEN else ""
    print(f"  goal {g}  {name:50} {medians} ({min(row['all']):.2f}-{max(row['all']):.2f})  bar {row['bar']:.2f}  {met}{busy}{steal}")
EOF
