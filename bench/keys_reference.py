#!/usr/bin/env python3
"""Python reference for `kvctl keys --requests`: the TensorRT-LLM recipe.

Reads a requests file (JSONL: id, tokens, optional cache_salt, lora_task_id,
multimodal_hashes), parses each line with json.loads, encodes the prompt
once as little-endian int64 (array('q')), and chains per block
    h[b] = blake2b(h[b-1] + tokens[b*T:(b+1)*T+L], digest_size=16)
from the framed scope seed (spec/keys.md, scheme trtllm). Prints one line
per request: its id, number of blocks and last block hash (or "-").

    python3 bench/keys_reference.py --tokens-per-block 32 requests.jsonl
"""
import argparse
import hashlib
import json
import struct
import sys
from array import array


def digest(*parts: bytes) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    for p in parts:
        h.update(p)
    return h.digest()


def frame(*parts: bytes) -> bytes:
    return b"".join(struct.pack("<I", len(p)) + p for p in parts)


def scope_seed(req: dict, lookahead: int) -> bytes:
    salt = (req.get("cache_salt") or "").encode("utf-8")
    lora = req.get("lora_task_id")
    lora_b = b"" if lora is None else struct.pack("<q", lora)
    mm = [struct.pack(">8i", *item) for item in req.get("multimodal_hashes") or []]
    seed = digest(frame(salt, lora_b, *mm))
    if lookahead > 0:
        seed = digest(seed, b"prompt-lookahead", struct.pack("<Q", lookahead))
    return seed


def chain(seed: bytes, tokens: list, per_block: int, lookahead: int) -> list:
    buf = array("q", tokens)
    if sys.byteorder != "little":
        buf.byteswap()
    data = memoryview(buf.tobytes())
    n = max(0, len(tokens) - lookahead) // per_block
    width = 8 * per_block
    span = width + 8 * lookahead
    hashes = []
    parent = seed
    for b in range(n):
        h = hashlib.blake2b(parent, digest_size=16)
        h.update(data[b * width : b * width + span])
        parent = h.digest()
        hashes.append(parent)
    return hashes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("requests", help="requests JSONL file, or - for stdin")
    ap.add_argument("--tokens-per-block", type=int, required=True)
    ap.add_argument("--lookahead", type=int, default=0)
    args = ap.parse_args()
    src = sys.stdin if args.requests == "-" else open(args.requests, encoding="utf-8")
    out = []
    for lineno, line in enumerate(src, 1):
        if not line.strip():
            continue
        req = json.loads(line)
        seed = scope_seed(req, args.lookahead)
        hashes = chain(seed, req["tokens"], args.tokens_per_block, args.lookahead)
        last = hashes[-1].hex() if hashes else "-"
        out.append(f"{req.get('id') or f'line-{lineno}'} {len(hashes)} {last}\n")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
