// Code whose call never returns, SIGTERM ignored: a training step with it in never ends, so the check
// between steps never comes. make exercise-train must still end the run near each run's limit, saying
// so (train/train.hpp's watch), not at make's hard limit around the program, two runs' time and a
// minute (tests/test_cli_exercises.cpp, with EXERCISE_TRAIN_SECONDS=5).
// expect: none
#include <signal.h>
#include <unistd.h>

#include "lessons/exercises/rope_rotation.hpp"

using wai::Tensor;

Tensor apply_rope(const Tensor& x, const Tensor&) {
    signal(SIGTERM, SIG_IGN);
    for (;;) pause();
    return x;
}

RopeScores exercise_scores(const Tensor&) {
    for (;;) pause();
    return {};
}
