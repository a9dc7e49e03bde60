#!/usr/bin/python3
"""make_golden.py: PyTorch's numbers for tests/test_golden.cpp, the yardstick our engine is held to.

The model of docs/design.md section 3 written in PyTorch with whereami's parameter names, run for one
batch (B=2, T=32) of each task and each of the chapter's seven schemes: forward, cross-entropy,
backward, one AdamW step. It writes tests/reference/golden_<task>_<scheme>.safetensors (':' in the
scheme written '-'), by hand with struct and json, all tensors F32 (token ids and targets too: they
are small integers, exact in float32, and one dtype keeps our reader simple; target -1 = not scored).
To keep the committed files small, nothing is stored twice. Every scheme of a task starts from the
same weights, so golden_<task>_none holds them ("<name>": the initial weights, plus "tokens" and
"targets") and the weights after the AdamW step ("updated.<name>"); every file holds its scheme's
"logits", "loss" and "grad.<name>", and golden_<task>_learned the initial "position.weight".
Leaves out training beyond one step, more than one head, and any use at build or test time: it is
run by hand, with Debian's python3-torch (1.13) and python3-numpy:  /usr/bin/python3 tests/reference/make_golden.py
"""
import json
import math
import os
import struct

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

D, LAYERS, MLP_HIDDEN, TABLE_ROWS = 64, 2, 256, 128  # the chapter's model; one head, so H = D
B, T, LAG = 2, 32, 3
TASKS = {"lag": (16, 16), "seen": (96, 2)}  # vocabulary, outputs
SCHEMES = ["none", "sinusoid", "learned", "rope", "rope:1000000", "alibi:0.5", "alibi:0.0625"]
HERE = os.path.dirname(os.path.abspath(__file__))


def sinusoids(length):  # (T, D): pe[p, 2i] = sin(p * 10000^(-2i/D)), pe[p, 2i+1] = cos(same), in double
    p, c = np.arange(length)[:, None], np.arange(D)[None]
    angle = p * 10000.0 ** (-(c - c % 2) / D)
    return torch.from_numpy(np.where(c % 2 == 0, np.sin(angle), np.cos(angle)).astype(np.float32))


def rope(x, base):  # (B, T, H) -> (B, T, H): pair (2i, 2i+1) at position t rotated by t * base^(-2i/H)
    length, H = x.shape[1], x.shape[2]
    angle = np.arange(length)[:, None] * base ** (-np.arange(0, H, 2) / H)[None]  # (T, H/2), in double
    cos, sin = (torch.from_numpy(f(angle).astype(np.float32)) for f in (np.cos, np.sin))
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack((a * cos - b * sin, a * sin + b * cos), -1).flatten(-2)


class Attention(nn.Module):
    def __init__(self, kind, arg):
        super().__init__()
        self.qkv, self.output = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.kind, self.arg = kind, arg

    def forward(self, x):  # (B, T, D) -> (B, T, D)
        length = x.shape[1]
        q, k, v = self.qkv(x).chunk(3, -1)
        if self.kind == "rope":
            q, k = rope(q, self.arg), rope(k, self.arg)
        s = q @ k.transpose(1, 2) / math.sqrt(D)  # (B, T, T)
        if self.kind == "alibi":
            distance = torch.arange(length)[:, None] - torch.arange(length)[None]
            s = s - self.arg * distance.clamp(min=0)
        s = s.masked_fill(torch.ones(length, length).triu(1).bool(), float("-inf"))
        return self.output(torch.softmax(s, -1) @ v)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.expand, self.project = nn.Linear(D, MLP_HIDDEN), nn.Linear(MLP_HIDDEN, D)

    def forward(self, x):  # (B, T, D) -> (B, T, D), exact (erf) GELU
        return self.project(F.gelu(self.expand(x)))


class Block(nn.Module):
    def __init__(self, kind, arg):
        super().__init__()
        self.norm1, self.attention = nn.LayerNorm(D), Attention(kind, arg)
        self.norm2, self.mlp = nn.LayerNorm(D), MLP()

    def forward(self, x):  # (B, T, D) -> (B, T, D), pre-LayerNorm
        x = x + self.attention(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class Transformer(nn.Module):
    def __init__(self, vocab, outputs, kind, arg):
        super().__init__()
        self.tokens = nn.Embedding(vocab, D)
        self.blocks = nn.ModuleList(Block(kind, arg) for _ in range(LAYERS))
        self.head = nn.Linear(D, outputs)
        self.kind = kind
        if kind == "learned":  # drawn last, so the other weights are the same for every scheme
            self.position = nn.Embedding(TABLE_ROWS, D)

    def forward(self, tokens):  # (B, T) -> (B, T, n_out); no final LayerNorm
        h = self.tokens(tokens)
        if self.kind == "sinusoid":
            h = h + sinusoids(tokens.shape[1])
        if self.kind == "learned":
            h = h + self.position(torch.arange(tokens.shape[1]))
        for block in self.blocks:
            h = block(h)
        return self.head(h)


def batch(task, vocab):  # tokens (B, T), targets (B, T) with -1 where not scored
    tokens = torch.randint(vocab, (B, T), generator=torch.Generator().manual_seed(1))
    targets = torch.full((B, T), -1)
    if task == "lag":
        targets[:, LAG:] = tokens[:, :-LAG]
    else:
        for b in range(B):
            seen = set()
            for t in range(T):
                targets[b, t] = int(tokens[b, t].item() in seen)
                seen.add(tokens[b, t].item())
    return tokens, targets


def write_safetensors(path, tensors, metadata):
    header, blobs, offset = {}, [], 0
    for name, tensor in tensors.items():
        data = tensor.detach().to(torch.float32).contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensor.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned, as safetensors recommends
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def golden(task, spec, starting_weights):
    vocab, outputs = TASKS[task]
    kind, _, arg = spec.partition(":")
    arg = float(arg) if arg else 10000.0
    torch.manual_seed(0)
    model = Transformer(vocab, outputs, kind, arg)
    initial = {name: p.detach().clone() for name, p in model.named_parameters()}
    starting_weights.setdefault(task, initial)  # the none file's weights; every scheme must start from them
    assert all(torch.equal(initial[name], w) for name, w in starting_weights[task].items())
    tokens, targets = batch(task, vocab)

    logits = model(tokens)
    loss = F.cross_entropy(logits.reshape(-1, outputs), targets.reshape(-1), ignore_index=-1)
    loss.backward()
    torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01).step()

    out = {"logits": logits, "loss": loss}
    out.update({"grad." + name: p.grad for name, p in model.named_parameters()})
    if kind == "none":
        out.update(initial)
        out.update({"tokens": tokens, "targets": targets})
        out.update({"updated." + name: p for name, p in model.named_parameters()})
    if kind == "learned":
        out["position.weight"] = initial["position.weight"]
    metadata = {"task": task, "scheme": spec, "torch": torch.__version__, "made_by": "tests/reference/make_golden.py"}
    path = os.path.join(HERE, f"golden_{task}_{spec.replace(':', '-')}.safetensors")
    write_safetensors(path, out, metadata)
    print(f"{os.path.basename(path)}: loss {loss.item():.6f}, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    torch.set_num_threads(1)
    starting_weights = {}
    for task in TASKS:
        for spec in SCHEMES:
            golden(task, spec, starting_weights)
