#!/usr/bin/env bash
# Compare `kvctl keys --requests` with the Python reference end to end.
#
#   bench/keys.sh                          # 400 requests x 20,000 tokens, T=32
#   KVCTL_BASE=/tmp/kvctl-main bench/keys.sh   # and A/B against another build
#
# Environment: KEYS_BENCH_DIR (scratch, default /tmp/kvctl-keys-bench),
# REQUESTS, TOKENS (file shape), RUNS (rounds, default 10), KVCTL (where
# this checkout is built, default $KEYS_BENCH_DIR/kvctl), KVCTL_BASE (a
# second kvctl binary, timed beside this one). Needs python3 and go.
#
# The runs are interleaved: each round runs every command once, in turn,
# so that a machine shared with other work slows them alike. Reported: the
# median wall time with the fastest and slowest round, the median CPU time
# (user + system, less sensitive to other work than wall time), and the
# median of each round's ratio to the Python reference.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${KEYS_BENCH_DIR:-/tmp/kvctl-keys-bench}
requests=${REQUESTS:-400}
tokens=${TOKENS:-20000}
runs=${RUNS:-10}
T=32
kvctl=${KVCTL:-$dir/kvctl}
base=${KVCTL_BASE:-}
input="$dir/requests-${requests}x${tokens}.jsonl"
mkdir -p "$dir"

if [[ ! -s $input ]]; then
	echo "generating $input" >&2
	python3 "$root/bench/gen_requests.py" --requests "$requests" --tokens "$tokens" >"$input.tmp"
	mv "$input.tmp" "$input"
fi
(cd "$root" && go build -o "$kvctl" .)

# Correctness first: every request's block count and last hash must agree.
python3 "$root/bench/keys_reference.py" --tokens-per-block "$T" "$input" >"$dir/python.txt"
for bin in "$kvctl" ${base:+"$base"}; do
	"$bin" keys -q --requests "$input" --tokens-per-block "$T" -o jsonl |
		python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    b = r["blocks"]
    print(r["id"], len(b), b[-1]["hash"] if b else "-")
' >"$dir/go.txt"
	if ! cmp -s "$dir/python.txt" "$dir/go.txt"; then
		echo "FAIL: $bin and the Python reference disagree:" >&2
		diff "$dir/python.txt" "$dir/go.txt" | head >&2
		exit 1
	fi
done
echo "ok: $(wc -l <"$dir/go.txt") requests, same block hashes as the Python reference" >&2

python3 - "$runs" "$input" "$T" "$requests" "$tokens" "$root/bench/keys_reference.py" "$kvctl" ${base:+"$base"} <<'PY'
import os, resource, statistics, subprocess, sys, time

runs, path, T, requests, tokens, ref = sys.argv[1:7]
bins = sys.argv[7:]
runs, n = int(runs), int(requests) * int(tokens)
mb = os.path.getsize(path) / 1e6
cmds = {"python reference": ["python3", ref, "--tokens-per-block", T, path]}
for i, b in enumerate(bins):
    tag = "" if len(bins) == 1 else (" (this build)" if i == 0 else " (base)")
    common = [b, "keys", "-q", "--requests", path, "--tokens-per-block", T]
    cmds["kvctl -o table" + tag] = common + ["-o", "table"]
    cmds["kvctl -o keys" + tag] = common + ["--model-key", "bench", "-o", "keys"]

def cpu_seconds():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime

times = {name: [] for name in cmds}
cpu = {name: [] for name in cmds}
for r in range(runs + 1):
    for name, cmd in cmds.items():
        start, start_cpu = time.perf_counter(), cpu_seconds()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        if r:  # the first round warms the page cache
            times[name].append(time.perf_counter() - start)
            cpu[name].append(cpu_seconds() - start_cpu)

py = times["python reference"]
print(f"input: {requests} requests x {tokens} tokens, {mb:.1f} MB, T={T}; {runs} interleaved rounds")
print(f"{'':30} {'median':>9} {'fastest':>9} {'slowest':>9} {'CPU':>9} {'MB/s':>7} {'M tok/s':>7}  vs python (median of rounds)")
for name, ts in times.items():
    med = statistics.median(ts)
    line = f"{name:30} {med*1e3:7.1f}ms {min(ts)*1e3:7.1f}ms {max(ts)*1e3:7.1f}ms"
    line += f" {statistics.median(cpu[name])*1e3:7.1f}ms {mb/med:7.1f} {n/med/1e6:7.1f}"
    if ts is not py:
        ratios = sorted(p / t for p, t in zip(py, ts))
        line += f"  {statistics.median(ratios):5.1f}x ({ratios[0]:.1f}-{ratios[-1]:.1f})"
    print(line)
PY
