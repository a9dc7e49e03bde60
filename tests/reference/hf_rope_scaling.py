#!/usr/bin/python3
"""hf_rope_scaling.py: Hugging Face's frequencies for RoPE context extension, the yardstick for
positional/position_interpolation.hpp, ntk_scaling.hpp and yarn.hpp.

Hugging Face transformers' modeling_rope_utils.py computes each rope_type's inverse frequencies
theta_i and attention factor. Three are ours: "linear" is position interpolation; "dynamic" at the
length s * L with its own factor 1 is static NTK-aware scaling, base * s^(H/(H-2)) (some versions
also ship that as rope_type "ntk"); "yarn" (_compute_yarn_parameters) is YaRN with its defaults
beta_fast = 32, beta_slow = 1, truncate = True, attention_factor = 0.1 ln s + 1 and no mscale. The
functions below are those computations step for step, in the same dtypes (float32 tensors, as
Hugging Face builds them; the dtype argument lets make_golden.py run the same steps in float64),
taking the head dimension, base, factor s and L (max_position_embeddings, for YaRN
original_max_position_embeddings) as arguments instead of a model configuration.
Run as a program, it writes tests/reference/hf_rope_scaling.json: for H = 64 and L = 32 (the
experiment's head and training length) and H = 128, L = 4096 (a LLaMA's), bases 10,000 and
1,000,000, s = 2, 4 and 16, each method's theta_i (float32 values, written exactly) and attention
factor, and for YaRN the fraction of its own frequency each pair keeps (inv_freq_extrapolation_factor).
Leaves out dynamic scaling as a model runs it (s recomputed from each sequence's length), longrope, llama3, partial rotary dimensions, and any use at build
or test time: it is run by hand, with Debian's python3-torch (1.13):  /usr/bin/python3 tests/reference/hf_rope_scaling.py
"""
import json
import math
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def default_frequencies(dim, base, dtype=torch.float32):  # theta_i = 1 / base^(2i/dim), i = 0 .. dim/2 - 1
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(dtype) / dim))


def linear_parameters(dim, base, factor, dtype=torch.float32):  # rope_type "linear": every theta_i / s
    return default_frequencies(dim, base, dtype) / factor, 1.0


def dynamic_ntk_parameters(dim, base, factor, max_position_embeddings, seq_len, dtype=torch.float32):
    """rope_type "dynamic": base -> base * (factor * T / L - (factor - 1))^(dim/(dim-2)) at length T > L."""
    seq_len = seq_len if seq_len is not None and seq_len > max_position_embeddings else max_position_embeddings
    base = base * ((factor * seq_len / max_position_embeddings) - (factor - 1)) ** (dim / (dim - 2))
    return default_frequencies(dim, base, dtype), 1.0


def ntk_parameters(dim, base, factor, dtype=torch.float32, max_position_embeddings=32):
    """NTK-aware scaling by s, base -> base * s^(dim/(dim-2)): Hugging Face's "dynamic" with its own factor 1
    at the length T = s * L (the static form, which some versions also ship as rope_type "ntk")."""
    return dynamic_ntk_parameters(dim, base, 1.0, max_position_embeddings, factor * max_position_embeddings, dtype)


def yarn_parameters(dim, base, factor, original_max_position_embeddings, beta_fast=32, beta_slow=1, truncate=True,
                    dtype=torch.float32):
    """rope_type "yarn": (theta_i, attention factor, each pair's kept fraction)."""
    attention_factor = 1.0 if factor <= 1 else 0.1 * math.log(factor) + 1.0

    def correction_dim(rotations):  # the (fractional) pair index that turns `rotations` times within L
        return (dim * math.log(original_max_position_embeddings / (rotations * 2 * math.pi))) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001  # Hugging Face's guard against a zero-width ramp

    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1).to(dtype)
    pos_freqs = base ** (torch.arange(0, dim, 2).to(dtype) / dim)
    extrapolation, interpolation = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)
    kept = 1 - ramp  # inv_freq_extrapolation_factor
    return interpolation * (1 - kept) + extrapolation * kept, attention_factor, kept


def cases():
    for dim, length in ((64, 32), (128, 4096)):
        for base in (10000.0, 1000000.0):
            for factor in (2.0, 4.0, 16.0):
                yield dim, length, base, factor


if __name__ == "__main__":
    out = []
    for dim, length, base, factor in cases():
        common = {"head_dim": dim, "base": base, "factor": factor, "original_max_position_embeddings": length}
        ntk = ntk_parameters(dim, base, factor, max_position_embeddings=length)
        static = default_frequencies(dim, base * factor ** (dim / (dim - 2)))
        assert torch.equal(ntk[0], static), "dynamic NTK at s * L is the static base * s^(H/(H-2))"
        for method, (theta, attention) in (("pi", linear_parameters(dim, base, factor)), ("ntk", ntk)):
            out.append(dict(common, method=method, inv_freq=[float(x) for x in theta], attention_factor=attention))
        theta, attention, kept = yarn_parameters(dim, base, factor, length)
        out.append(dict(common, method="yarn", inv_freq=[float(x) for x in theta], attention_factor=attention,
                        kept=[float(x) for x in kept]))
    document = {"made_by": "tests/reference/hf_rope_scaling.py", "torch": torch.__version__,
                "source": "Hugging Face transformers, modeling_rope_utils.py: rope_type linear, dynamic (at s * L, factor 1), yarn", "cases": out}
    path = os.path.join(HERE, "hf_rope_scaling.json")
    with open(path, "w") as f:
        json.dump(document, f, indent=1)
        f.write("\n")
    print(f"{os.path.basename(path)}: {len(out)} cases, {os.path.getsize(path)} bytes")
    for dim, length, base in ((64, 32, 10000.0), (64, 32, 1000000.0)):
        kept = yarn_parameters(dim, base, 16.0, length)[2]
        print(f"  yarn, H {dim}, L {length}, base {base:g}: pairs 0-7 keep", " ".join(f"{k:.3f}" for k in kept[:8].tolist()))
