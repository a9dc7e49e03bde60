#!/usr/bin/python3
"""torch_compare.py: whereami's training step against PyTorch's, timed alike, for `make bench-torch`.

Both sides run the same step (lag, rope, B=64, T=32, the experiment's model; bench/bench_step.cpp
and bench/torch_step.py), one thread, on the same OpenBLAS kernels (OPENBLAS_CORETYPE set to the ones
whereami's start-up chose), with the same statistic: after 5 warm-up steps, the median over R repeats
of the ms per step of S steps. The two are run in rounds, one side then the other, so that a change
in the machine's speed falls on both alike; each round gives each side's median and their ratio.
Rounds go on until both sides' running medians (the median of the rounds so far) moved by less than
2% in the last round, after at least 4 rounds and at most --max-rounds; the last line says whether
they settled. Prints each side's median and spread (min..max of the rounds), and the ratio PyTorch /
whereami with its spread (the rounds' ratios).
  bench/torch_compare.py BENCH_STEP [--kernels fast|plain] [--threads N] [--steps S] [--repeats R] [--max-rounds N] [--sizes '--dim D ...']
--threads N (make bench-torch BENCH_THREADS=N) compares on N threads: whereami's side is then the step
train_position takes (the batch in micro-batches, one thread each: bench_step --train-step N), PyTorch's
its own step with torch.set_num_threads(N) and N threads for OpenMP and OpenBLAS; the fast kernels only.
Leaves out other schemes: one is enough to compare speed. --sizes (make bench-torch BENCH_SIZES=...) gives
bench_step's --dim, --layers, --length and --batch to both sides.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys


def run(command, env, pattern, what):
    out = subprocess.run(command, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"bench-torch: {what} failed (exit {out.returncode}): {out.stderr.strip()}")
    match = re.search(pattern, out.stdout)
    if not match:
        sys.exit(f"bench-torch: {what} printed no time: {out.stdout.strip()}")
    return float(match.group(1)), out.stdout


def spread(values):
    return f"{min(values):.2f}..{max(values):.2f}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bench_step")
    parser.add_argument("--kernels", choices=["fast", "plain"], default="fast")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-rounds", type=int, default=12)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--sizes", default="", help="bench_step's size flags, given to both sides: '--dim 256 --layers 4 --length 256'")
    args = parser.parse_args()
    sizes = args.sizes.split()
    if not 1 <= args.threads <= 64:
        sys.exit(f"bench-torch: --threads needs a count from 1 to 64, got {args.threads}")
    if args.threads > 1 and args.kernels != "fast":
        sys.exit("bench-torch: more than one thread compares train_position's step, on the fast kernels only")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    if args.threads == 1:
        ours_command = [args.bench_step, "--threads", "1", "--kernels", args.kernels, "--steps", str(args.steps),
                        "--repeats", str(args.repeats)] + sizes
        ours_pattern = rf"{args.kernels} kernels: median of .* steps: ([0-9.]+) ms per step"
        ours_name = f"whereami {args.kernels} kernels"
    else:
        ours_command = [args.bench_step, "--train-step", str(args.threads), "--steps", str(args.steps),
                        "--repeats", str(args.repeats)] + sizes
        ours_pattern = r"train_position's step, .* steps: ([0-9.]+) ms per step"
        ours_name = "whereami train_position's step"
    _, first = run(ours_command, env, r"([0-9.]+) ms per step", "bench_step")
    kernels = re.search(r"OpenBLAS ([A-Za-z0-9]+) kernels", first).group(1)
    origin = re.search(r"OpenBLAS [A-Za-z0-9]+ kernels: (.*)", first).group(1)
    torch_env = dict(env, OPENBLAS_CORETYPE=kernels, OMP_NUM_THREADS=str(args.threads),
                     OPENBLAS_NUM_THREADS=str(args.threads))
    torch_command = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_step.py"),
                     "--threads", str(args.threads), "--steps", str(args.steps), "--repeats", str(args.repeats)] + sizes
    _, torch_first = run(torch_command, torch_env, r"([0-9.]+) ms per step", "torch_step.py")
    used = re.search(r"used (\d+) to (\d+)", first)
    on = f"{args.threads} threads asked (used {used.group(1)} to {used.group(2)})" if used else "1 thread"
    print(f"bench-torch: {ours_name} on {on} against {torch_first.splitlines()[0].split(': ', 1)[1]}; "
          f"OpenBLAS {kernels} kernels on both ({origin})")
    ours, theirs, ratios = [], [], []
    settled = False
    for round_number in range(1, args.max_rounds + 1):
        ours_ms, _ = run(ours_command, env, ours_pattern, "bench_step")
        torch_ms, _ = run(torch_command, torch_env, r"steps: ([0-9.]+) ms per step", "torch_step.py")
        before = (statistics.median(ours), statistics.median(theirs)) if ours else None
        ours.append(ours_ms), theirs.append(torch_ms), ratios.append(torch_ms / ours_ms)
        print(f"bench-torch: round {round_number}: whereami {ours_ms:.2f} ms, PyTorch {torch_ms:.2f} ms per step, "
              f"ratio {torch_ms / ours_ms:.2f}")
        if before and round_number >= 4:
            moved = max(abs(statistics.median(ours) / before[0] - 1), abs(statistics.median(theirs) / before[1] - 1))
            if moved < 0.02:
                settled = True
                break
    print(f"bench-torch: {len(ours)} rounds, each the median of {args.repeats} repeats x {args.steps} steps after 5 warm-up steps")
    print(f"bench-torch: {ours_name} {statistics.median(ours):.2f} ms per step (rounds {spread(ours)})")
    print(f"bench-torch: PyTorch {statistics.median(theirs):.2f} ms per step (rounds {spread(theirs)})")
    print(f"bench-torch: PyTorch / whereami = {statistics.median(ratios):.2f}x (rounds {spread(ratios)})")
    print("bench-torch: " + ("the medians settled (the last round moved each by less than 2%)" if settled else
                             f"the medians did not settle within {args.max_rounds} rounds: the machine is too noisy "
                             "for this ratio to be trusted; run it again on a quieter machine"))


if __name__ == "__main__":
    main()
