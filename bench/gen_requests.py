#!/usr/bin/env python3
"""Write a deterministic requests file (JSONL) for the keys benchmark.

Each line is {"id": "rN", "tokens": [...]} with token ids in a 152k
vocabulary. Requests share prefixes in groups (as chat traffic does): every
request of a group starts with the group's system prompt. The output is the
same on every run and Python version (random.Random with a fixed seed).

    python3 bench/gen_requests.py [--requests 400] [--tokens 20000] > requests.jsonl
"""
import argparse
import json
import random
import sys


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=400)
    ap.add_argument("--tokens", type=int, default=20000, help="tokens per request")
    ap.add_argument("--groups", type=int, default=8, help="groups sharing a prefix")
    ap.add_argument("--prefix", type=int, default=4096, help="shared prefix tokens")
    ap.add_argument("--seed", type=int, default=20260801)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    vocab = 151936
    prefix_len = min(args.prefix, args.tokens)
    prefixes = [[rng.randrange(vocab) for _ in range(prefix_len)] for _ in range(args.groups)]
    out = sys.stdout
    for i in range(args.requests):
        tokens = prefixes[i % args.groups] + [rng.randrange(vocab) for _ in range(args.tokens - prefix_len)]
        out.write(json.dumps({"id": f"r{i}", "tokens": tokens}))
        out.write("\n")


if __name__ == "__main__":
    main()
