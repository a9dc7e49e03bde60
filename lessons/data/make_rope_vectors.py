#!/usr/bin/env python3
"""Writes lessons/data/chapter_rope_vectors.txt: the q and k that the numpy code of "Where Am I?
Position in Attention, from Sinusoids to RoPE", section "Attention can't see order", scores with RoPE.

That code draws everything from one np.random.default_rng(0), in this order: X (T, H) = (5, 8), then
Wq, Wk and Wv (H, H) each (the generator expression is unpacked before the next line runs), then
rng.permutation(T), and only then q and k (H) each. Lesson 05 reads the two vectors and recomputes
the chapter's printed scores with the engine's RoPE. Run once with numpy installed:

    python3 lessons/data/make_rope_vectors.py > lessons/data/chapter_rope_vectors.txt
"""
import numpy as np

T, H = 5, 8
rng = np.random.default_rng(0)
X = rng.normal(size=(T, H))
Wq, Wk, Wv = (rng.normal(size=(H, H)) / np.sqrt(H) for _ in range(3))
perm = rng.permutation(T)
q, k = rng.normal(size=H), rng.normal(size=H)


def rope(x, pos, base=10_000.0):  # the chapter's rope(), interleaved pairs (2i, 2i + 1)
    half = x.shape[-1] // 2
    theta = base ** (-np.arange(half) / half)
    ang = pos * theta
    x1, x2 = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = x1 * np.cos(ang) - x2 * np.sin(ang)
    out[..., 1::2] = x1 * np.sin(ang) + x2 * np.cos(ang)
    return out


print("# q and k of the chapter's RoPE check (where-am-i, \"Attention can't see order\"), drawn by")
print(f"# numpy {np.__version__}'s default_rng(0) after X (5, 8), Wq, Wk, Wv (8, 8) and permutation(5).")
print("# Written by lessons/data/make_rope_vectors.py; read by lessons/05_rope.cpp. Lines: q, then k,")
print("# H numbers each, with all the digits of the float64 draws.")
for name, vector in (("q", q), ("k", k)):
    print(name, " ".join(repr(float(x)) for x in vector))
# What numpy itself computes from them, for comparison (the lesson recomputes these with the engine):
for m, n in [(3, 5), (10, 12), (100, 102), (3, 10)]:
    print(f"# numpy: query at {m:3d}, key at {n:3d} (distance {n - m:2d}): score {rope(q, m) @ rope(k, n):+.4f}")
print(f"# numpy: |q| = {np.linalg.norm(q):.4f}, |rope(q, 57)| = {np.linalg.norm(rope(q, 57)):.4f}")
