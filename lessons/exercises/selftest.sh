#!/bin/sh
# make exercises-selftest: each checker must tell its untouched scaffold, a right answer and typical
# wrong ones apart. The scaffold must say "not solved yet" (exit 10). Each fixture
# tests/exercises/NAME/CASE.cpp says on a line "// expect: STATUS | PATTERN | PATTERN ..." what its
# checker must answer: the exit status, and patterns (grep -E) its full report must match, or, for a
# pattern written "!PATTERN", must not match anywhere; a fixture of code that never ends may set its
# time limit with "// seconds: N"; one that says "// expect: none" is left to the C++ tests. A fixture named does_not_compile_CASE.cpp says "// expect: does not
# compile | PATTERN ...": the learner's build must refuse it, with compiler messages that match.
#   selftest.sh CONTAIN BUILD_DIR NAME...   (the programs already built, by exercises.mk; CONTAIN:
#                                             build/contain, programs/contain.cpp, and its flags, one
#                                             word each: exercises.mk's EXERCISE_CONTAIN_COMMAND)
# Leaves out building them.
set -u
contain=$1 build=$2
shift 2
failed=0 checked=0 checkers=$# program_arguments=""

# expect LABEL PROGRAM STATUS PATTERN...: PROGRAM (with $program_arguments) exits with STATUS, and
# its output matches each PATTERN. It runs under make exercise's limits and containment (exercises.mk:
# 4 GiB of memory, $seconds seconds, 60 unless the fixture says "// seconds: N"; build/contain), and a
# status that is no verdict (or a verdict's status without the checker's verdict line on contain's
# verdict descriptor) adds make exercise's sentence for it (checker_status.sh) to the output.
seconds=60
expect() {
    label=$1 program=$2 status=$3
    shift 3
    verdict_file=$(mktemp)
    output=$(ulimit -v 4194304; $contain --verdict "$verdict_file" "$seconds" "$program" $program_arguments 2>&1)
    actual=$?
    verdict=$(cat "$verdict_file")
    rm -f "$verdict_file"
    case $actual in
        0 | 1 | 10) printf '%s\n' "$verdict" | grep -qE '^(exercise-train )?[a-z_0-9]+: ' ||
                        output="$output
$(sh lessons/exercises/checker_status.sh "$label" "ended-$actual" "$seconds")" ;;
        2 | 3) ;;  # bad arguments; a training run past its own time limit (train.hpp): each says so itself
        *) output="$output
$(printf '%s\n' "$output" | sh lessons/exercises/checker_status.sh "$label" "$actual" "$seconds" /dev/stdin)" ;;
    esac
    judge "$label" "exit status $status" "exit status $actual" "$@"
}

# judge LABEL EXPECTED ACTUAL PATTERN...: the outcome ACTUAL against EXPECTED (both in words, "exit
# status 1"), and $output (set by the caller) against each PATTERN ("!PATTERN": no line may match
# it); prints [ok] or [FAILED] with the output.
judge() {
    label=$1 expected=$2 outcome=$3
    shift 3
    problems=""
    [ "$outcome" = "$expected" ] || problems="$outcome, expected $expected"
    for pattern in "$@"; do
        case $pattern in
            "!"*) ! printf '%s\n' "$output" | grep -qE -- "${pattern#!}" || problems="$problems; a line matches '${pattern#!}', which it must not" ;;
            *) printf '%s\n' "$output" | grep -qE -- "$pattern" || problems="$problems; no line matches '$pattern'" ;;
        esac
    done
    checked=$((checked + 1))
    if [ -z "$problems" ]; then
        echo "  [ok] $label: $(printf '%s\n' "$output" | tail -n 1)"
    else
        echo "  [FAILED] $label: ${problems#; }"
        printf '%s\n' "$output" | sed 's/^/    | /'
        failed=1
    fi
}

for name in "$@"; do
    expect "$name, the untouched scaffold" "$build/$name" 10 "^$name: not solved yet: "
    cases=0 wrong_cases=0
    for fixture in tests/exercises/"$name"/*.cpp; do
        [ -f "$fixture" ] || continue
        case_name=$(basename "$fixture" .cpp)
        line=$(sed -n 's|^// expect: ||p' "$fixture" | head -n 1)
        if [ -z "$line" ]; then
            echo "  [FAILED] $fixture has no '// expect: STATUS | PATTERN ...' line"
            failed=1
            continue
        fi
        status=$(printf '%s' "$line" | cut -d'|' -f1 | tr -d ' ')
        # "// expect: none": a fixture for tests/test_cli_exercises.cpp alone, which runs it its own way.
        [ "$status" = none ] && continue
        patterns=$(printf '%s' "$line" | cut -s -d'|' -f2- )
        # Each pattern between the bars, trimmed; set as positional parameters.
        set --
        old_ifs=$IFS
        IFS='|'
        for p in $patterns; do
            IFS=$old_ifs
            p=$(printf '%s' "$p" | sed 's/^ *//; s/ *$//')
            [ -n "$p" ] && set -- "$@" "$p"
        done
        IFS=$old_ifs
        case $case_name in
            does_not_compile_*)
                # The compiler's messages and, on the last line, "exit STATUS" (exercises.mk).
                record="$build/fixtures/$name/$case_name.compiler"
                if [ "$status" != doesnotcompile ]; then
                    echo "  [FAILED] $fixture: a does_not_compile_ fixture expects 'does not compile', not '$status'"
                    failed=1
                    continue
                fi
                output=$(sed '$d' "$record" 2>&1)
                case $(tail -n 1 "$record" 2>/dev/null) in
                    "exit 0") outcome="the learner's build compiling it" ;;
                    "exit "[1-9]*) outcome="the learner's build refusing it"
                                   output="$output
refused: $(printf '%s\n' "$output" | grep -m 1 'error:')" ;;
                    *) outcome="no record of its compiling ($record)" ;;
                esac
                judge "$name, $case_name" "the learner's build refusing it" "$outcome" "$@"
                status=1 ;;  # a wrong answer, for the count below
            *)
                seconds=$(sed -n 's|^// seconds: \([0-9][0-9]*\)$|\1|p' "$fixture" | head -n 1)
                seconds=${seconds:-60}
                expect "$name, $case_name" "$build/fixtures/$name/$case_name" "$status" "$@"
                seconds=60 ;;
        esac
        cases=$((cases + 1))
        [ "$status" != 0 ] && wrong_cases=$((wrong_cases + 1))
    done
    if [ $((cases - wrong_cases)) -lt 1 ] || [ $wrong_cases -lt 2 ]; then
        echo "  [FAILED] $name: needs a right answer and at least two wrong ones in tests/exercises/$name/ (has $cases fixtures, $wrong_cases wrong)"
        failed=1
    fi
done
# A right answer that plugs into the model trains it briefly (30 steps) to the library's own line,
# under make exercise-train's time limit (EXERCISE_TRAIN_SECONDS, 900 s): two trainings of the checked
# build, which a loaded machine can take past the 60 s a checker gets.
for trainer in "$build"/fixtures/*/train_right; do
    [ -x "$trainer" ] || continue
    name=$(basename "$(dirname "$trainer")")
    program_arguments="lag 0 30" seconds=${EXERCISE_TRAIN_SECONDS:-900}
    expect "$name, the right answer training the chapter's model (lag, seed 0, 30 steps)" "$trainer" 0 \
        "^exercise-train $name: the same line"
    program_arguments="" seconds=60
done
# A wrong answer whose numbers turn NaN stops the training with a line naming the learner's function
# (it was blamed on the learning rate).
for trainer in "$build"/fixtures/*/train_wrong_nan; do
    [ -x "$trainer" ] || continue
    name=$(basename "$(dirname "$trainer")")
    program_arguments="lag 0 30" seconds=${EXERCISE_TRAIN_SECONDS:-900}
    expect "$name, a rotation that gives NaN training the chapter's model" "$trainer" 1 \
        "^exercise-train $name: your code stopped with an error: [a-z_]+ returned -?nan at \([0-9]+, [0-9]+\) of its \([0-9]+, [0-9]+\) result, from an input of finite numbers" \
        "!--lr"
    program_arguments="" seconds=60
done
# A wrong answer whose numbers are finite but far too large: the loss turns NaN, and the line says the
# library's run with the same settings stayed finite (the learning rate is not the cause).
for trainer in "$build"/fixtures/*/train_wrong_huge; do
    [ -x "$trainer" ] || continue
    name=$(basename "$(dirname "$trainer")")
    program_arguments="lag 0 30" seconds=${EXERCISE_TRAIN_SECONDS:-900}
    expect "$name, a rotation 1e30 times too large training the chapter's model" "$trainer" 1 \
        "^exercise-train $name: your code stopped with an error: training stopped at step 1: the loss is -?nan, where the library's run with the same settings and seed stayed finite: your code gives numbers the model cannot train on .*make exercise EXERCISE=$name checks them" \
        "!--lr"
    program_arguments="" seconds=60
done
# Each run has its own time limit (the fourth argument, make's EXERCISE_TRAIN_SECONDS), and says
# which run ran out of it: the library's, given 1 s for 2000 steps; yours, when your code is slow
# (slow.cpp: right, but 5 ms a call, seconds a step), given 5 s for 3 steps, where the library's takes
# a fraction of a second even on a machine busy with other work (20 steps took it past 5 s beside a
# build and a test run).
for trainer in "$build"/fixtures/*/train_slow; do
    [ -x "$trainer" ] || continue
    name=$(basename "$(dirname "$trainer")")
    program_arguments="lag 0 2000 1" seconds=${EXERCISE_TRAIN_SECONDS:-900}
    expect "$name, the library's run past its time limit" "$trainer" 3 \
        "^exercise-train $name: the library's run, before yours, was at step [0-9]+ of 2000 after [0-9]+ s, each run's limit \(EXERCISE_TRAIN_SECONDS=1\).*STEPS=300 shortens both runs" \
        "!^  library: lag"
    program_arguments="lag 0 3 5"
    expect "$name, your run past its time limit" "$trainer" 3 \
        "^  library: lag" \
        "^exercise-train $name: your run was at step [0-9]+ of 3 after [0-9]+ s, each run's limit \(EXERCISE_TRAIN_SECONDS=5\), where the library's 3 steps took [0-9]+\.[0-9] s: your code is that much slower.*EXERCISE_TRAIN_SECONDS=10 gives each twice the time" \
        "!STEPS=300"
    program_arguments="" seconds=60
done
if [ $failed = 0 ]; then
    echo "exercises-selftest: $checked verdicts right, $checkers checkers"
else
    echo "exercises-selftest: a checker gave a wrong verdict (above)"
fi
exit $failed
