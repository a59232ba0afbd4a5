#!/usr/bin/env bash
# Compare `kvctl keys --requests` with the Python reference end to end.
#
#   bench/keys.sh            # 400 requests x 20,000 tokens, T=32
#
# Environment: KEYS_BENCH_DIR (scratch, default /tmp/kvctl-keys-bench),
# REQUESTS, TOKENS (file shape), RUNS (timed runs each, default 5).
# Needs python3 and go; uses hyperfine when installed, else times the runs
# from Python (time.perf_counter around subprocess.run).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${KEYS_BENCH_DIR:-/tmp/kvctl-keys-bench}
requests=${REQUESTS:-400}
tokens=${TOKENS:-20000}
runs=${RUNS:-5}
T=32
kvctl=/tmp/kvctl
input="$dir/requests-${requests}x${tokens}.jsonl"
mkdir -p "$dir"

if [[ ! -s $input ]]; then
	echo "generating $input" >&2
	python3 "$root/bench/gen_requests.py" --requests "$requests" --tokens "$tokens" >"$input.tmp"
	mv "$input.tmp" "$input"
fi
(cd "$root" && go build -o "$kvctl" .)

py=(python3 "$root/bench/keys_reference.py" --tokens-per-block "$T" "$input")
go_table=("$kvctl" keys -q --requests "$input" --tokens-per-block "$T" -o table)
go_keys=("$kvctl" keys -q --requests "$input" --tokens-per-block "$T" --model-key bench -o keys)

# Correctness first: every request's block count and last hash must agree.
"${py[@]}" >"$dir/python.txt"
"$kvctl" keys -q --requests "$input" --tokens-per-block "$T" -o jsonl |
	python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    b = r["blocks"]
    print(r["id"], len(b), b[-1]["hash"] if b else "-")
' >"$dir/go.txt"
if ! cmp -s "$dir/python.txt" "$dir/go.txt"; then
	echo "FAIL: kvctl and the Python reference disagree:" >&2
	diff "$dir/python.txt" "$dir/go.txt" | head >&2
	exit 1
fi
echo "ok: $(wc -l <"$dir/go.txt") requests, same block hashes as the Python reference" >&2

# seconds CMD...: mean wall time of $runs runs after one warm-up run.
seconds() {
	if command -v hyperfine >/dev/null; then
		hyperfine --warmup 1 --runs "$runs" --export-json "$dir/hf.json" --output null "$(printf '%q ' "$@")" >&2
		python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["mean"])' "$dir/hf.json"
		return
	fi
	python3 - "$runs" "$@" <<'PY'
import statistics, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
times = []
for i in range(runs + 1):
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    if i:  # the first run warms the page cache
        times.append(time.perf_counter() - start)
print(f"{cmd[0]}: mean {statistics.mean(times)*1e3:.1f} ms, min {min(times)*1e3:.1f} ms", file=sys.stderr)
print(statistics.mean(times))
PY
}

mb=$(python3 -c "import os; print(os.path.getsize('$input') / 1e6)")
t_py=$(seconds "${py[@]}")
t_table=$(seconds "${go_table[@]}")
t_keys=$(seconds "${go_keys[@]}")
python3 - "$t_py" "$t_table" "$t_keys" "$mb" "$requests" "$tokens" <<'PY'
import sys
t_py, t_table, t_keys, mb = map(float, sys.argv[1:5])
n = int(sys.argv[5]) * int(sys.argv[6])
print(f"input: {sys.argv[5]} requests x {sys.argv[6]} tokens, {mb:.1f} MB, T=32")
print(f"python reference       {t_py*1e3:8.1f} ms  {mb/t_py:7.1f} MB/s  {n/t_py/1e6:6.1f} M tokens/s")
for name, t in (("kvctl -o table", t_table), ("kvctl -o keys", t_keys)):
    print(f"{name:22} {t*1e3:8.1f} ms  {mb/t:7.1f} MB/s  {n/t/1e6:6.1f} M tokens/s  {t_py/t:5.1f}x python")
PY
