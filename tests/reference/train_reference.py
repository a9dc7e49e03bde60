#!/usr/bin/python3
"""train_reference.py: one run of the chapter's experiment trained in PyTorch, to the specification
whereami trains to (docs/design.md, section 3), printing train_position's result line.

The chapter's experiment ("A test: two tasks, four times the length") as a PyTorch reference for the
figures, not for the engine's arithmetic: tests/reference/make_golden.py's model (the chapter's, D 64,
2 layers, 1 head, MLP 256; PyTorch's default initialisation), AdamW (lr 1e-3, betas 0.9 and 0.999,
eps 1e-8, weight decay 0.01), 2000 steps of batch 64 at length 32, the mean cross-entropy over the
scored positions; tested on 256 fresh sequences at 32, 64 and 128, at 128 on the positions past 32
as well, and at 128 with the scores times log 128 / log 32. Its batches come from PyTorch's own
generator (seeded by the seed), so a run is not whereami's run of the same seed: the two are
compared over seeds, as two machines are (docs/experiment.md, "The same runs in PyTorch").
  /usr/bin/python3 tests/reference/train_reference.py TASK SCHEME SEED [--steps N]
    TASK: lag or seen; SCHEME: none, sinusoid, learned, rope, rope:BASE, alibi:SLOPE
Prints the line on stdout, as train_position does. One thread (torch.set_num_threads(1)).
Leaves out t5, the context extensions and every flag but --steps: the chapter's runs only.
"""
import argparse
import math
import sys

import torch
import torch.nn.functional as F

import make_golden
from make_golden import Transformer

TRAIN_LENGTH, BATCH, TEST_SEQUENCES, TEST_LENGTHS, LAG = 32, 64, 256, (32, 64, 128), 3
SCALE = [1.0]  # the scores' factor: 1 in training, log 128 / log 32 for the last test


def scaled_attention_forward(self, x, bias=None):  # make_golden.Attention's forward with the chapter's SCALE
    length = x.shape[1]
    q, k, v = self.qkv(x).chunk(3, -1)
    if self.kind == "rope":
        q, k = make_golden.rope(q, self.arg), make_golden.rope(k, self.arg)
    s = SCALE[0] * q @ k.transpose(1, 2) / math.sqrt(make_golden.D)  # (B, T, T)
    if self.kind == "alibi":
        distance = torch.arange(length)[:, None] - torch.arange(length)[None]
        s = s - self.arg * distance.clamp(min=0)
    s = s.masked_fill(torch.ones(length, length).triu(1).bool(), float("-inf"))
    return self.output(torch.softmax(s, -1) @ v)


make_golden.Attention.forward = scaled_attention_forward


def batch(task, vocab, B, T, generator):  # tokens (B, T), targets (B, T) with -1 where not scored
    tokens = torch.randint(vocab, (B, T), generator=generator)
    if task == "lag":
        targets = torch.full((B, T), -1)
        targets[:, LAG:] = tokens[:, :-LAG]
    else:  # 1 where the token appeared at an earlier position
        earlier = torch.ones(T, T, dtype=torch.bool).tril(-1)
        targets = ((tokens[:, :, None] == tokens[:, None, :]) & earlier).any(-1).long()
    return tokens, targets


def accuracy(model, tokens, targets, cutoff=0):
    with torch.no_grad():
        predicted = model(tokens).argmax(-1)
    scored = targets >= 0
    scored[:, :cutoff] = False
    return ((predicted == targets) & scored).sum().item() / scored.sum().item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("task", choices=["lag", "seen"])
    parser.add_argument("scheme")
    parser.add_argument("seed", type=int)
    parser.add_argument("--steps", type=int, default=2000)
    args = parser.parse_args()
    kind, _, given = args.scheme.partition(":")
    defaults = {"none": None, "sinusoid": None, "learned": None, "rope": 10000.0, "alibi": 0.5}
    if kind not in defaults or (given and defaults[kind] is None):
        sys.exit(f"train_reference.py: scheme must be none, sinusoid, learned, rope[:BASE] or alibi[:SLOPE], got '{args.scheme}'")
    arg = float(given) if given else defaults[kind]
    vocab, outputs = make_golden.TASKS[args.task]
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    model = Transformer(vocab, outputs, kind, arg)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)
    train_generator = torch.Generator().manual_seed(2 * args.seed)
    test_generator = torch.Generator().manual_seed(2 * args.seed + 1)
    for _ in range(args.steps):
        tokens, targets = batch(args.task, vocab, BATCH, TRAIN_LENGTH, train_generator)
        loss = F.cross_entropy(model(tokens).reshape(-1, outputs), targets.reshape(-1), ignore_index=-1)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    tests = {T: batch(args.task, vocab, TEST_SEQUENCES, T, test_generator) for T in TEST_LENGTHS}
    at = [accuracy(model, *tests[T]) for T in TEST_LENGTHS]
    past = accuracy(model, *tests[128], cutoff=TRAIN_LENGTH)
    SCALE[0] = math.log(128) / math.log(TRAIN_LENGTH)
    scaled = accuracy(model, *tests[128])
    print(f"{args.task:<4} {args.scheme:<12} seed {args.seed}: length 32 / 64 / 128: {at[0]:.3f} / {at[1]:.3f} / {at[2]:.3f}; "
          f"at 128, positions past 32: {past:.3f}; scores x log128/log32: {scaled:.3f}")


if __name__ == "__main__":
    main()
