#!/usr/bin/python3
"""roundtrip.py: the chapter's PyTorch model and whereami read each other's weight files.

The model is the chapter's (Where Am I?, "A test: two tasks, four times the length"), with its
module names: emb, pos (learned only), layers.N.{n1, qkv, o, n2, mlp.0, mlp.2} (mlp an nn.Sequential
of Linear, GELU, Linear) and out; D 64, 2 layers, 1 head, MLP 256. tests/test_torch_reference.cpp
("[roundtrip]") runs it twice, in a temporary folder:

  roundtrip.py torch DIR   for both tasks and the chapter's seven schemes, a model with seeded
                           weights, each moved off PyTorch's initial values (so a LayerNorm's weight
                           is not 1 and a mix-up of two of them shows), saved as its state_dict,
                           names unchanged and no metadata, to DIR/torch_<task>_<scheme>.safetensors;
                           a batch of tokens (B 2, T 48) and its logits to ..._<scheme>.logits.safetensors.
  roundtrip.py check DIR   for each DIR/ours_<task>_<scheme>.safetensors (whereami's weights saved with
                           --save-layout chapter) and its .logits file (tokens and whereami's logits),
                           load_state_dict(strict=True) into the chapter's model and compare its logits
                           with whereami's: the largest difference over the largest logit at most 1e-5.

Files are written and read by hand with struct and json (Debian 12 has no python3-safetensors), in the
safetensors layout, all F32 (token ids too: small integers, exact in float32). ':' in a scheme is '-'
in a file name. Exits 1 with one line naming the file when a comparison fails. Needs Debian's
python3-torch (1.13) and python3-numpy; nothing at build time. Leaves out training: the C++ side
trains whereami's models with train_position.
"""
import glob
import json
import math
import os
import struct
import sys

import numpy as np
import torch
import torch.nn as nn

from reference_ops import rope, sinusoids, write_safetensors

D, LAYERS, MLP_HIDDEN, TABLE_ROWS, SCALE = 64, 2, 256, 128, 1.0
B, T = 2, 48  # past the training length 32, within the learned table's 128 rows
TASKS = {"lag": (16, 16), "seen": (96, 2)}  # vocabulary, outputs
SCHEMES = ["none", "sinusoid", "learned", "rope", "rope:1000000", "alibi:0.5", "alibi:0.0625"]
TOLERANCE = 1e-5


class Layer(nn.Module):
    def __init__(self, kind, arg):
        super().__init__()
        self.n1, self.qkv, self.o = nn.LayerNorm(D), nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.n2 = nn.LayerNorm(D)
        self.mlp = nn.Sequential(nn.Linear(D, MLP_HIDDEN), nn.GELU(), nn.Linear(MLP_HIDDEN, D))
        self.kind, self.arg = kind, arg

    def forward(self, x):  # (B, T, D) -> (B, T, D)
        length = x.shape[1]
        q, k, v = self.qkv(self.n1(x)).chunk(3, -1)
        if self.kind == "rope":
            q, k = rope(q, self.arg), rope(k, self.arg)
        s = SCALE * q @ k.transpose(1, 2) / math.sqrt(D)
        if self.kind == "alibi":  # a penalty growing with distance
            dist = torch.arange(length)[:, None] - torch.arange(length)[None]
            s = s - self.arg * dist.clamp(min=0)
        s = s.masked_fill(torch.ones(length, length).triu(1).bool(), float("-inf"))
        x = x + self.o(torch.softmax(s, -1) @ v)
        return x + self.mlp(self.n2(x))


class Model(nn.Module):
    def __init__(self, vocab, outputs, kind, arg):
        super().__init__()
        self.emb = nn.Embedding(vocab, D)
        if kind == "learned":
            self.pos = nn.Embedding(TABLE_ROWS, D)
        self.layers = nn.ModuleList(Layer(kind, arg) for _ in range(LAYERS))
        self.out = nn.Linear(D, outputs)
        self.kind = kind

    def forward(self, x):  # (B, T) -> (B, T, n_out)
        h = self.emb(x)
        length = x.shape[1]
        if self.kind == "sinusoid":
            h = h + sinusoids(length, D)
        if self.kind == "learned":
            h = h + self.pos(torch.arange(length))
        for layer in self.layers:
            h = layer(h)
        return self.out(h)


def chapter_model(task, spec):
    vocab, outputs = TASKS[task]
    kind, _, arg = spec.partition(":")
    return Model(vocab, outputs, kind, float(arg) if arg else 10000.0)


def read_safetensors(path):  # -> ({name: tensor}, metadata)
    with open(path, "rb") as f:
        raw = f.read()
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + length])
    metadata = header.pop("__metadata__", {})
    data = raw[8 + length:]
    tensors = {}
    for name, entry in header.items():
        assert entry["dtype"] == "F32", f"{path}: tensor {name} is {entry['dtype']}, not F32"
        begin, end = entry["data_offsets"]
        array = np.frombuffer(data[begin:end], dtype="<f4").reshape(entry["shape"])
        tensors[name] = torch.from_numpy(array.copy())
    return tensors, metadata


def file_stem(task, spec):
    return f"{task}_{spec.replace(':', '-')}"


def error_on_scale(ours, reference):  # max |ours - reference| / max |reference|, as tests/helpers.hpp
    scale = reference.abs().max().item()
    difference = (ours - reference).abs().max().item()
    return difference / scale if scale > 0 else difference


def make_torch_files(folder):
    for task in TASKS:
        for spec in SCHEMES:
            torch.manual_seed(len(task) * 100 + SCHEMES.index(spec))
            model = chapter_model(task, spec)
            with torch.no_grad():
                for parameter in model.parameters():
                    parameter.add_(0.2 * torch.randn_like(parameter))
            tokens = torch.randint(TASKS[task][0], (B, T), generator=torch.Generator().manual_seed(7))
            with torch.no_grad():
                logits = model(tokens)
            stem = os.path.join(folder, "torch_" + file_stem(task, spec))
            write_safetensors(stem + ".safetensors", model.state_dict())
            write_safetensors(stem + ".logits.safetensors", {"tokens": tokens, "logits": logits})
    print(f"roundtrip: {len(TASKS) * len(SCHEMES)} PyTorch models written to {folder}")


def check_our_files(folder):
    paths = sorted(p for p in glob.glob(os.path.join(folder, "ours_*.safetensors")) if not p.endswith(".logits.safetensors"))
    if not paths:
        print(f"roundtrip: FAILED: no ours_*.safetensors in {folder}")
        return 1
    worst = 0.0
    for path in paths:
        weights, metadata = read_safetensors(path)
        model = chapter_model(metadata["task"], metadata["scheme"])
        model.load_state_dict(weights, strict=True)  # every name of the chapter's model, and no other
        batch, _ = read_safetensors(path[: -len(".safetensors")] + ".logits.safetensors")
        with torch.no_grad():
            logits = model(batch["tokens"].round().long())
        error = error_on_scale(logits, batch["logits"])
        worst = max(worst, error)
        if not error <= TOLERANCE:
            print(f"roundtrip: FAILED: {os.path.basename(path)}: PyTorch's logits differ from whereami's by "
                  f"{error:.3g} of the largest, more than {TOLERANCE}")
            return 1
    print(f"roundtrip: {len(paths)} whereami models loaded into the chapter's PyTorch model; logits within "
          f"{worst:.3g} of the largest (at most {TOLERANCE})")
    return 0


if __name__ == "__main__":
    torch.set_num_threads(1)
    if len(sys.argv) != 3 or sys.argv[1] not in ("torch", "check"):
        print("usage: roundtrip.py torch|check DIR", file=sys.stderr)
        sys.exit(2)
    if sys.argv[1] == "torch":
        make_torch_files(sys.argv[2])
    else:
        sys.exit(check_our_files(sys.argv[2]))
