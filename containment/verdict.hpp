// The checker's verdict, told apart from what the learner's code prints: a random token that only
// the checker is given (with a pipe of its own), and the lines that begin with it.
// Leaves out the pipe and the environment that carry them (programs/contain.cpp) and the checker's
// side (lessons/exercises/exercise.hpp).
#pragma once

#include <string>

namespace contain {

// 16 random hex digits (the kernel's random source, or the clock and pid where it cannot be read).
std::string random_token();

// The lines of `text` that begin with the token and a space, without them.
std::string verdict_lines(const std::string& text, const std::string& token);

}  // namespace contain
