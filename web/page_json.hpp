// What the page's calls into the engine share: their answers are JSON texts, a refusal is
// {"error": "<the engine's one-line reason>"}, and the files em++ embeds in the module (platform/web.mk).
// Leaves out the calls themselves (web/page_widget.cpp, web/page_experiment.cpp, web/page_training.cpp).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "startup/output_check.hpp"

namespace page {

using json = nlohmann::json;

// Where the page's module finds the files em++ embedded in it (platform/web.mk).
inline const char* const chapter_vectors_path = "/lessons/data/chapter_rope_vectors.txt";
inline const char* const chapter_table_path = "/experiment/chapter_table.txt";

inline std::string error_text(const std::string& reason) { return json{{"error", wai::one_line(reason)}}.dump(); }

}  // namespace page
