#!/usr/bin/python3
"""torch_step.py: the same training step as bench/bench_step.cpp, in PyTorch, for `make bench-torch`.

The model is tests/reference/make_golden.py's (docs/design.md section 3, whereami's names), trained
on lag with rope (B=64, T=32) by AdamW; prints the median ms per step over repeats and the peak
resident memory, in the format bench_step prints. Run with Debian's python3-torch (1.13):
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/torch_step.py [--threads N]
      [--dim D] [--layers L] [--length T] [--batch B]
The sizes are bench_step's (the MLP 4 x D wide, one head): the same model at another scale.
Leaves out every other scheme and task: one is enough to compare speed.
"""
import argparse
import os
import resource
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "reference"))
import make_golden  # noqa: E402  (the one PyTorch model of the project)
from make_golden import Transformer  # noqa: E402

VOCAB, LAG = 16, 3


def lag_batch(generator, B, T):  # tokens (B, T), targets (B, T) with -1 where not scored
    tokens = torch.randint(VOCAB, (B, T), generator=generator)
    targets = torch.full((B, T), -1)
    targets[:, LAG:] = tokens[:, :-LAG]
    return tokens, targets


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--length", type=int, default=32)
    parser.add_argument("--batch", type=int, default=64)
    args = parser.parse_args()
    B, T = args.batch, args.length
    # make_golden's model reads its sizes from these module names when it is built.
    make_golden.D, make_golden.LAYERS, make_golden.MLP_HIDDEN = args.dim, args.layers, 4 * args.dim
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = Transformer(VOCAB, VOCAB, "rope", 10000.0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)
    generator = torch.Generator().manual_seed(2)

    def step():
        tokens, targets = lag_batch(generator, B, T)
        loss = F.cross_entropy(model(tokens).reshape(-1, VOCAB), targets.reshape(-1), ignore_index=-1)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    for _ in range(5):
        step()
    ms_per_step = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        for _ in range(args.steps):
            step()
        ms_per_step.append(1e3 * (time.perf_counter() - start) / args.steps)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"bench-torch: PyTorch {torch.__version__}, lag rope, B={B} T={T} D={args.dim}, {args.layers} layers, "
          f"{args.threads} threads")
    print(f"bench-torch: median of {args.repeats} repeats x {args.steps} steps: {statistics.median(ms_per_step):.2f} "
          f"ms per step (min {min(ms_per_step):.2f}, max {max(ms_per_step):.2f}), "
          f"{B * T / (statistics.median(ms_per_step) / 1e3):.0f} tokens/s")
    print(f"bench-torch: peak resident memory {peak_mb:.1f} MB")


if __name__ == "__main__":
    main()
