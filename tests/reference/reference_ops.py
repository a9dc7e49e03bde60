"""reference_ops.py: what the PyTorch reference scripts share (make_golden.py, roundtrip.py).

The chapter's two position formulas in PyTorch and numpy, computed in double and rounded to float32
as our engine does, and a safetensors writer by hand (struct and json, all tensors F32, the data
8-byte aligned). Leaves out the models, which differ in their parameter names (ours in
make_golden.py, the chapter's in roundtrip.py).
"""
import json
import struct

import numpy as np
import torch


def sinusoids(length, dim):  # (T, D): pe[p, 2i] = sin(p * 10000^(-2i/D)), pe[p, 2i+1] = cos(same), in double
    p, c = np.arange(length)[:, None], np.arange(dim)[None]
    angle = p * 10000.0 ** (-(c - c % 2) / dim)
    return torch.from_numpy(np.where(c % 2 == 0, np.sin(angle), np.cos(angle)).astype(np.float32))


def rope(x, base, frequencies=None):  # (B, T, H) -> (B, T, H): pair (2i, 2i+1) at t rotated by t * theta_i
    length, H = x.shape[1], x.shape[2]
    theta = base ** (-np.arange(0, H, 2) / H) if frequencies is None else frequencies  # base^(-2i/H) unless extended
    angle = np.arange(length)[:, None] * theta[None]  # (T, H/2), in double
    cos, sin = (torch.from_numpy(f(angle).astype(np.float32)) for f in (np.cos, np.sin))
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack((a * cos - b * sin, a * sin + b * cos), -1).flatten(-2)


def write_safetensors(path, tensors, metadata=None):  # {name: tensor} in order, and {key: string} or None
    header, blobs, offset = {}, [], 0
    for name, tensor in tensors.items():
        data = tensor.detach().to(torch.float32).contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensor.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data starts 8-byte aligned, as safetensors recommends
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
