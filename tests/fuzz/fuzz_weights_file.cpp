// libFuzzer target for the safetensors reader (files/weights_file.hpp): any bytes go in; the reader must
// either return tensors that agree with the bytes or refuse them with a std::runtime_error. Anything
// else (a crash, another exception, a sanitizer report, a hang) is a bug. `make fuzz` builds it with
// clang and runs it; tests/test_fuzz_regressions.cpp replays the inputs in tests/fuzz/regressions/.
// Leaves out the writer and the module helpers (load_parameters), which only see parsed files.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "files/weights_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    try {
        const wai::WeightsFile file = wai::parse_weights_file(bytes, "fuzz input");
        // Each accepted tensor's numbers were copied from the input, after its 8-byte length.
        for (const auto& [name, tensor] : file.tensors)
            if (static_cast<size_t>(tensor.numel()) > (size - 8) / 4) std::abort();
    } catch (const std::runtime_error&) {
        // A refusal, with its message: what the reader is for.
    }
    return 0;
}
