#!/bin/bash
# make test-extension: a short make experiment-extension (tiny model, 300 steps, one seed, lengths 32
# and 64) end to end, through make as a user runs it: every run is made and the report and its data
# are written; a second make runs nothing; a result file emptied or filled with garbage is redone,
# and only it; a RoPE model's garbage weights are trained again with its tests; other RUN_FLAGS redo
# every run; flags every run fails with keep the finished runs, which come back with their models'
# weights when the flags before come again; make plots, refused before make experiment, then draws
# every picture from the short experiment and the grid; a second make on a folder in use is refused
# in one line.
# No temporary file is ever left. Exit 0 when all of this holds.
#   tests/extension_experiment.sh [SANITIZE]   (the programs of that build are used)
# Leaves out the full-size grid (make experiment-extension) and its figures.
sanitize=${1:-}
. "$(dirname "$0")/script_setup.sh" extension
flags="--steps 300 --eval-seqs 8 --dim 16 --mlp 32 --batch 8"
results=$root/results

# extension [make arguments...]: a make experiment-extension of the short variant; its output in $root/out.
extension() {
    make --no-print-directory SANITIZE="$sanitize" experiment-extension RESULTS="$results" SEEDS=0 \
        EXTENSION_LENGTHS="32 64" RUN_FLAGS="$flags" "$@" >"$root/out" 2>&1
}
# 8 schemes x 2 tasks trained, and 2 RoPE models x 2 tasks x 3 methods x 2 lengths tested.
total=40
runs_done() { grep -cE "^\[ *[0-9]+/$total\]" "$root/out"; }
leftovers() { find "$results" -name '*.tmp*' | wc -l; }

echo "extension_experiment: flags that each run is given already stop make with one line, nothing run"
for case in "--train-len 16|RUN_FLAGS may not hold --train-len" "--load w.safetensors|RUN_FLAGS may not hold --load" \
            "--extend yarn|RUN_FLAGS may not hold --extend" "--steps 5 --save-layout chapter|RUN_FLAGS may not hold --save-layout"; do
    run_flags=${case%%|*} expected=${case#*|}
    make --no-print-directory SANITIZE="$sanitize" experiment-extension RESULTS="$results" SEEDS=0 RUN_FLAGS="$run_flags" >"$root/out" 2>&1
    status=$?
    if [ $status -ne 0 ] && [ "$(wc -l <"$root/out")" = 1 ] && grep -qF -- "$expected" "$root/out" && [ ! -e "$results" ]; then
        ok "RUN_FLAGS='$run_flags': $(cat "$root/out")"
    else
        fail "RUN_FLAGS='$run_flags': exit status $status, results folder $([ -e "$results" ] && echo made || echo absent): $(cat "$root/out")"
    fi
done

echo "extension_experiment: the whole short grid"
if extension; then
    n=$(runs_done)
    if [ "$n" = $total ] && [ -s "$results/extension.md" ] && [ -s "$results/extension/lag.dat" ] &&
       [ -s "$results/extension/seen.dat" ] && [ "$(leftovers)" = 0 ]; then
        ok "$n of $total runs made; extension.md, lag.dat and seen.dat written; no temporary file"
    else
        fail "$n of $total runs made, $(leftovers) temporary files; report: $(ls "$results" "$results/extension" 2>&1 | tr '\n' ' ')"
    fi
    # Per task, a row for each of the 8 schemes and for each of the 3 methods on the 2 RoPE bases: 28
    # rows, each with a figure (mean, min..max) for 32, 64, past 32 and scaled.
    figure='[01]\.[0-9]{3} \([01]\.[0-9]{3}\.\.[01]\.[0-9]{3}\)'
    rows=$(grep -cE "^\| [a-z0-9:.]+ \| (none|PI|NTK|YaRN) \|( $figure \|){4}" "$results/extension.md")
    if [ "$rows" = 28 ]; then ok "extension.md has the 28 rows, each with its 4 figures"
    else fail "extension.md has $rows rows of figures, not 28"; sed 's/^/    | /' "$results/extension.md" | head -40; fi
else
    fail "make experiment-extension failed"; sed 's/^/    | /' "$root/out" | tail -20
fi
cp "$results/extension.md" "$root/reference.md" 2>/dev/null

echo "extension_experiment: run again"
if extension && [ "$(runs_done)" = 0 ] && cmp -s "$results/extension.md" "$root/reference.md"; then
    ok "the second make ran nothing and wrote the same extension.md"
else
    fail "the second make: exit or runs $(runs_done), or another extension.md"; sed 's/^/    | /' "$root/out" | tail -10
fi

echo "extension_experiment: damaged results are redone, and only they"
trained=$results/extension/trained/lag_sinusoid_seed0.txt
tested=$results/extension/pi-64/seen_rope_seed0.txt
: >"$trained"
printf 'garbage\n' >"$tested"
if extension && [ "$(runs_done)" = 2 ] && grep -q 'lag sinusoid seed 0' "$root/out" && grep -q 'seen rope seed 0, pi at 64' "$root/out" &&
   cmp -s "$results/extension.md" "$root/reference.md"; then
    ok "an empty and a garbled result file were redone (2 runs) and extension.md is the same"
else
    fail "after damaging two files: $(runs_done) runs"; sed 's/^/    | /' "$root/out" | tail -10
fi

echo "extension_experiment: a RoPE model whose weights are garbage is trained again, and its tests redone"
printf 'garbage\n' >"$results/extension/trained/lag_rope_seed0.safetensors"
if extension && [ "$(runs_done)" = 7 ] && grep -q 'lag_rope_seed0.txt has weights beside it that are not a readable safetensors file' "$root/out" &&
   cmp -s "$results/extension.md" "$root/reference.md"; then
    ok "the prune named the weights, and the model and its 6 tests were redone (7 runs); extension.md is the same"
else
    fail "after garbling a model's weights: $(runs_done) runs"; sed 's/^/    | /' "$root/out" | tail -10
fi

echo "extension_experiment: other RUN_FLAGS redo every run"
if make --no-print-directory SANITIZE="$sanitize" experiment-extension RESULTS="$results" SEEDS=0 \
        EXTENSION_LENGTHS="32 64" RUN_FLAGS="$flags --lr 0.002" >"$root/out" 2>&1 && [ "$(runs_done)" = $total ] &&
   grep -q -- '--lr 0.002' "$results/extension.md"; then
    ok "RUN_FLAGS with --lr 0.002 redid all $total runs, and extension.md names the flags"
else
    fail "other RUN_FLAGS: $(runs_done) runs"; sed 's/^/    | /' "$root/out" | tail -10
fi

echo "extension_experiment: flags every run fails with keep the finished runs, put back with their models' weights"
cp "$results/extension.md" "$root/reference_lr.md"
make --no-print-directory SANITIZE="$sanitize" experiment-extension RESULTS="$results" SEEDS=0 \
    EXTENSION_LENGTHS="32 64" RUN_FLAGS="$flags --lr 1e30" >"$root/out" 2>&1
failing_status=$?
if [ "$failing_status" != 0 ] &&
   make --no-print-directory SANITIZE="$sanitize" experiment-extension RESULTS="$results" SEEDS=0 \
       EXTENSION_LENGTHS="32 64" RUN_FLAGS="$flags --lr 0.002" >"$root/out" 2>&1 &&
   [ "$(runs_done)" = 0 ] && [ "$(grep -c 'put back from' "$root/out")" = $total ] &&
   [ -z "$(find "$results/extension" -name '*.safetensors' -path '*/replaced/*')" ] &&
   cmp -s "$results/extension.md" "$root/reference_lr.md"; then
    ok "--lr 1e30 failed; --lr 0.002 again made no run and put all $total back, every model's weights with it"
else
    fail "--lr 1e30 exit status $failing_status; then --lr 0.002: $(runs_done) runs, $(grep -c 'put back from' "$root/out") put back"
    sed 's/^/    | /' "$root/out" | tail -10
fi

echo "extension_experiment: the pictures"
# (The first make builds the picture programs; the second is what a user sees after that.)
make --no-print-directory SANITIZE="$sanitize" plots RESULTS="$results" SEEDS=0 >/dev/null 2>&1
make --no-print-directory SANITIZE="$sanitize" plots RESULTS="$results" SEEDS=0 >"$root/out" 2>&1
status=$?
# One line of ours (make adds its own "*** [plots] Error 1").
if [ $status -ne 0 ] && grep -q "run make experiment first" "$root/out" && [ "$(grep -cv '^make: \*\*\*' "$root/out")" = 1 ]; then
    ok "make plots without make experiment's results: $(head -n 1 "$root/out")"
else
    fail "make plots without make experiment's results: exit status $status: $(cat "$root/out")"
fi
# With the short experiment's results beside the extension's, every picture is drawn.
if make --no-print-directory SANITIZE="$sanitize" experiment RESULTS="$results" SEEDS=0 RUN_FLAGS="$flags --lr 0.002" >"$root/out" 2>&1 &&
   make --no-print-directory SANITIZE="$sanitize" plots RESULTS="$results" SEEDS=0 >"$root/out" 2>&1; then
    drawn=0 missing=
    for name in experiment attention rope_score wavelengths accuracy extension; do
        if [ -s "$results/plots/$name.svg" ] && head -c 8 "$results/plots/$name.png" | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a'; then
            drawn=$((drawn + 1))
        else
            missing="$missing $name"
        fi
    done
    [ $drawn = 6 ] && ok "make plots after both drew all 6 pictures (SVG and PNG)" || fail "make plots: not drawn:$missing"
else
    fail "make experiment then make plots"; sed 's/^/    | /' "$root/out" | tail -10
fi

echo "extension_experiment: a second make on a folder in use"
exec 8>>"$results/.lock"
flock -n 8 || fail "could not take the lock for the test"
if extension; then
    fail "a make on a locked folder ran"
elif [ "$(wc -l <"$root/out")" = 1 ] && grep -q 'another make' "$root/out"; then
    ok "refused in one line: $(cat "$root/out")"
else
    fail "a make on a locked folder: $(cat "$root/out")"
fi
exec 8>&-
[ "$(leftovers)" = 0 ] && ok "no temporary file left" || fail "$(leftovers) temporary files left"

[ $failed = 0 ] && echo "extension_experiment: all checks passed" || echo "extension_experiment: FAILED"
exit $failed
