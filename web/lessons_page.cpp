// The lessons for the web page: every lesson's main in one WebAssembly module, picked by name.
//   callMain(["05_rope"]) runs lessons/05_rope.cpp's main with no arguments, its output through the
//   module's print (web/lesson_worker.js shows it in the page).
// Each lesson's object is compiled with its main renamed lesson_NN_name (platform/web.mk), and
// WAI_PAGE_LESSONS lists them as WAI_LESSON(NN_name) ...; a worker runs one lesson and is then
// ended, so a lesson's static state (its count of failed claims) starts afresh every run.
// Leaves out lesson arguments (--kernels: the page runs the default, fast) and the exercise lesson 06.
#include <cstdio>
#include <cstring>

#ifndef WAI_PAGE_LESSONS
#error "platform/web.mk defines WAI_PAGE_LESSONS, the list of lessons in the page"
#endif

#define WAI_LESSON(name) int lesson_##name(int argc, char** argv);
WAI_PAGE_LESSONS
#undef WAI_LESSON

namespace {

struct Lesson {
    const char* name;
    int (*main)(int, char**);
};

#define WAI_LESSON(name) {#name, lesson_##name},
const Lesson lessons[] = {WAI_PAGE_LESSONS};
#undef WAI_LESSON

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2)
        for (const Lesson& lesson : lessons)
            if (std::strcmp(argv[1], lesson.name) == 0) {
                char* lesson_argv[] = {argv[1], nullptr};
                return lesson.main(1, lesson_argv);
            }
    std::fprintf(stderr, "lessons: give one lesson's name:");
    for (const Lesson& lesson : lessons) std::fprintf(stderr, " %s", lesson.name);
    std::fprintf(stderr, "\n");
    return 2;
}
