#!/usr/bin/python3
"""make_golden.py: PyTorch's numbers for tests/test_golden.cpp, the yardstick our engine is held to.

The model of docs/design.md section 3 written in PyTorch with whereami's parameter names, run for one
batch (B=2, T=32) of each task and each of the chapter's seven schemes and t5 (T5's relative bias,
buckets as Hugging Face's unidirectional _relative_position_bucket): forward, cross-entropy,
backward, one AdamW step. It writes tests/reference/golden_<task>_<scheme>.safetensors (':' in the
scheme written '-'), by hand with struct and json, all tensors F32 (token ids and targets too: they
are small integers, exact in float32, and one dtype keeps our reader simple; target -1 = not scored).
To keep the committed files small, nothing is stored twice. Every scheme of a task starts from the
same weights, so golden_<task>_none holds them ("<name>": the initial weights, plus "tokens" and
"targets") and the weights after the AdamW step ("updated.<name>"); every file holds its scheme's
"logits", "loss" and "grad.<name>", golden_<task>_learned the initial "position.weight", and
golden_<task>_t5 its initial bias table "position.weight" and, after the step, "updated.position.weight"
(every other weight's step is the none file's optimizer on the same kind of gradient).
Context extension, golden_<task>_extension: the same starting weights as a RoPE model of base 10,000
and of base 1,000,000, run on one sequence ("tokens", 1 x 512) at 128 (its first 128 tokens) and at
512 with position interpolation, NTK-aware scaling and YaRN at s = T / 32, their frequencies and
attention factor from Hugging Face's formulas (tests/reference/hf_rope_scaling.py, in float64):
"logits.<method>.<scheme>.<T>".
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

import hf_rope_scaling
from reference_ops import rope, sinusoids, write_safetensors

D, LAYERS, MLP_HIDDEN, TABLE_ROWS = 64, 2, 256, 128  # the chapter's model; one head, so H = D
B, T, LAG = 2, 32, 3
TASKS = {"lag": (16, 16), "seen": (96, 2)}  # vocabulary, outputs
SCHEMES = ["none", "sinusoid", "learned", "rope", "rope:1000000", "alibi:0.5", "alibi:0.0625", "t5"]
T5_BUCKETS, T5_MAX_DISTANCE = 32, 128
EXTENSION_LENGTHS, EXTENSION_METHODS, TRAIN_LENGTH = (128, 512), ("pi", "ntk", "yarn"), 32
HERE = os.path.dirname(os.path.abspath(__file__))


class Attention(nn.Module):
    def __init__(self, kind, arg):
        super().__init__()
        self.qkv, self.output = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.kind, self.arg = kind, arg
        self.frequencies, self.query_key_scale = None, 1.0  # a context extension's theta_i and attention factor

    def forward(self, x, bias=None):  # (B, T, D), bias (T, T) or None -> (B, T, D)
        length = x.shape[1]
        q, k, v = self.qkv(x).chunk(3, -1)
        if self.kind == "rope":
            q, k = rope(q, self.arg, self.frequencies), rope(k, self.arg, self.frequencies)
            if self.query_key_scale != 1.0:  # Hugging Face multiplies cos and sin by it: q and k each
                q, k = q * self.query_key_scale, k * self.query_key_scale
        s = q @ k.transpose(1, 2) / math.sqrt(D)  # (B, T, T)
        if self.kind == "alibi":
            distance = torch.arange(length)[:, None] - torch.arange(length)[None]
            s = s - self.arg * distance.clamp(min=0)
        if bias is not None:
            s = s + bias
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

    def forward(self, x, bias=None):  # (B, T, D) -> (B, T, D), pre-LayerNorm
        x = x + self.attention(self.norm1(x), bias)
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
        if kind == "t5":  # (buckets, NH), N(0, D^-1/2) as Hugging Face's T5 starts relative_attention_bias; also last
            self.position = nn.Embedding(T5_BUCKETS, 1)
            nn.init.normal_(self.position.weight, 0.0, D ** -0.5)

    def forward(self, tokens):  # (B, T) -> (B, T, n_out); no final LayerNorm
        h = self.tokens(tokens)
        if self.kind == "sinusoid":
            h = h + sinusoids(tokens.shape[1], D)
        if self.kind == "learned":
            h = h + self.position(torch.arange(tokens.shape[1]))
        bias = None
        if self.kind == "t5":  # one table for every layer: bias[m, n] = table[bucket(m - n), 0]
            bias = self.position(t5_buckets(tokens.shape[1]))[..., 0]
        for block in self.blocks:
            h = block(h, bias)
        return self.head(h)


def t5_buckets(length):  # (T, T) bucket of query m's distance back to key n, as HF's _relative_position_bucket
    relative_position = torch.arange(length)[None, :] - torch.arange(length)[:, None]  # key - query
    n = -torch.min(relative_position, torch.zeros_like(relative_position))  # unidirectional: keys ahead count as 0
    max_exact = T5_BUCKETS // 2
    is_small = n < max_exact
    large = max_exact + (torch.log(n.float() / max_exact) / math.log(T5_MAX_DISTANCE / max_exact)
                         * (T5_BUCKETS - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, T5_BUCKETS - 1))
    return torch.where(is_small, n, large)


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
    if kind in ("learned", "t5"):
        out["position.weight"] = initial["position.weight"]
    if kind == "t5":
        out["updated.position.weight"] = model.position.weight
    metadata = {"task": task, "scheme": spec, "torch": torch.__version__, "made_by": "tests/reference/make_golden.py"}
    path = os.path.join(HERE, f"golden_{task}_{spec.replace(':', '-')}.safetensors")
    write_safetensors(path, out, metadata)
    print(f"{os.path.basename(path)}: loss {loss.item():.6f}, {os.path.getsize(path)} bytes")


def extension_frequencies(method, base, factor):  # Hugging Face's theta_i (float64) and attention factor
    if method == "pi":
        theta, attention = hf_rope_scaling.linear_parameters(D, base, factor, dtype=torch.float64)
    elif method == "ntk":
        theta, attention = hf_rope_scaling.ntk_parameters(D, base, factor, dtype=torch.float64,
                                                          max_position_embeddings=TRAIN_LENGTH)
    else:
        theta, attention, _ = hf_rope_scaling.yarn_parameters(D, base, factor, TRAIN_LENGTH, dtype=torch.float64)
    return theta.numpy(), attention


def golden_extension(task, starting_weights):
    vocab, outputs = TASKS[task]
    tokens = torch.randint(vocab, (1, max(EXTENSION_LENGTHS)), generator=torch.Generator().manual_seed(2))
    out = {"tokens": tokens}
    for spec in ("rope", "rope:1000000"):
        base = float(spec.partition(":")[2] or 10000.0)
        torch.manual_seed(0)
        model = Transformer(vocab, outputs, "rope", base)
        assert all(torch.equal(p, starting_weights[task][name]) for name, p in model.named_parameters())
        for method in EXTENSION_METHODS:
            for length in EXTENSION_LENGTHS:
                theta, attention = extension_frequencies(method, base, length / TRAIN_LENGTH)
                for block in model.blocks:
                    block.attention.frequencies, block.attention.query_key_scale = theta, attention
                with torch.no_grad():
                    out[f"logits.{method}.{spec.replace(':', '-')}.{length}"] = model(tokens[:, :length])
    metadata = {"task": task, "scheme": "rope, rope:1000000 with pi, ntk, yarn at s = T / 32", "torch": torch.__version__,
                "made_by": "tests/reference/make_golden.py"}
    path = os.path.join(HERE, f"golden_{task}_extension.safetensors")
    write_safetensors(path, out, metadata)
    print(f"{os.path.basename(path)}: {len(out) - 1} logits, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    torch.set_num_threads(1)
    starting_weights = {}
    for task in TASKS:
        for spec in SCHEMES:
            golden(task, spec, starting_weights)
        golden_extension(task, starting_weights)
