// The wait policy of OpenMP's threads, set in the environment before the program starts again.
// Leaves out the re-exec itself (openblas_startup.cpp).
#include "tasks/thread_policy.hpp"

#include <cstdlib>
#include <string>

namespace wai {

bool choose_wait_policy() {
    if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) return false;
    return setenv("GOMP_SPINCOUNT", chosen_spin_count, 1) == 0;
}

const char* wait_policy_description() {
    static const std::string text = [] {
        std::string t;
        for (const char* name : {"GOMP_SPINCOUNT", "OMP_WAIT_POLICY"})
            if (const char* value = std::getenv(name)) t += (t.empty() ? "" : ", ") + std::string(name) + "=" + value;
        return t.empty() ? std::string("libgomp's default") : t;
    }();
    return text.c_str();
}

}  // namespace wai
