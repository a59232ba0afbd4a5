"""Writes pickle-vectors.json: pickle.dumps(v, protocol=5) of the values
the vLLM recipes hash, from CPython, for keys' pickle tests.

Run from this folder: python3 pickle_vectors.py > pickle-vectors.json
"""
import hashlib
import json
import pickle
import random


class Rep:
    """A long run of one str or bytes item, spelled compactly."""

    def __init__(self, unit, n):
        self.unit, self.n = unit, n

    def value(self):
        return self.unit * self.n


class Range:
    """tuple(range(start, start + n)), spelled compactly."""

    def __init__(self, start, n):
        self.start, self.n = start, n

    def value(self):
        return tuple(range(self.start, self.start + self.n))


def value(v):
    if isinstance(v, (Rep, Range)):
        return v.value()
    if isinstance(v, tuple):
        return tuple(value(x) for x in v)
    return v


def enc(v):
    if isinstance(v, Rep) and isinstance(v.unit, str):
        return {"t": "str", "v": v.unit, "repeat": v.n}
    if isinstance(v, Rep):
        return {"t": "bytes", "hex": v.unit.hex(), "repeat": v.n}
    if isinstance(v, Range):
        return {"t": "range", "start": v.start, "n": v.n}
    if v is None:
        return {"t": "none"}
    if isinstance(v, bool):
        raise TypeError(v)
    if isinstance(v, int):
        return {"t": "int", "v": str(v)}
    if isinstance(v, bytes):
        return {"t": "bytes", "hex": v.hex()}
    if isinstance(v, str):
        return {"t": "str", "v": v}
    if isinstance(v, tuple) and v and all(type(x) is int for x in v):
        return {"t": "ints", "v": [str(x) for x in v]}
    if isinstance(v, tuple):
        return {"t": "tuple", "items": [enc(x) for x in v]}
    raise TypeError(v)


ints = [0, 1, 23, 24, 255, 256, 65535, 65536, 2**31 - 1, 2**31, 2**32, 2**40,
        2**63 - 1, -1, -2, -128, -129, -255, -256, -257, -32768, -32769,
        -2**31, -2**31 - 1, -2**32, -2**63, -2**63 + 1, 127, 128, 32767, 32768,
        2**55, -2**55, 2**56 - 1, -2**56]
rng = random.Random(18)
values = [None, "0", "", "é模型🚀", Rep("a", 255), Rep("a", 256), Rep("a", 65535),
          Rep("a", 65536), b"", Rep(b"x", 32), Rep(b"x", 255), Rep(b"x", 256),
          Rep(b"x", 65535), Rep(b"x", 65536),
          (), ("a",), ("a", "b"), ("a", "b", "c"), ("a", "b", "c", "d")]
values += [(i,) for i in ints]
values += [tuple(ints)]
for n in [1, 2, 3, 4, 16, 256, 1000]:
    toks = tuple(rng.choice([rng.randrange(0, 256), rng.randrange(0, 2**17),
                             rng.randrange(-2**40, 2**40)]) for _ in range(n))
    for extra in [None, ("adapter-A",), ("adapter-A", "tenant-salt")]:
        values.append((bytes(rng.randrange(256) for _ in range(32)), toks, extra))
for n in [13100, 13106, 13107, 13108, 21845, 21846, 40000]:
    values.append((Rep(b"p", 32), Range(65536, n), ("adapter-A",)))
    values.append((Rep(b"p", 32), Range(0, n), None))
values.append((Rep(b"y", 70000), (1, 2), None))
values.append((Rep(b"p", 32), Range(65536, 20000), (Rep("s", 70000),)))


def expect(v):
    b = pickle.dumps(value(v), protocol=5)
    if len(b) <= 512:
        return {"pickle": b.hex()}
    return {"len": len(b), "sha256": hashlib.sha256(b).hexdigest()}


print(json.dumps([{"value": enc(v), **expect(v)} for v in values], indent=0))
