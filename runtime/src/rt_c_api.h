// drape runtime: the C API's exception barrier. No exception may leave an extern "C" function: a
// C caller (or C++ built without exceptions) cannot catch it, and unwinding through its frames is
// undefined. Every entry point whose body can throw (allocation in the loader, a user allocator
// written in C++, the solver) runs that body through c_api_barrier. A try block costs nothing
// while nothing is thrown and allocates nothing, so the step stays allocation-free.
#pragma once

#include <exception>
#include <new>

#include "drape/runtime.h"

namespace drape::rt {

// body() returns a drape_result; an exception becomes DRAPE_RESULT_OUT_OF_MEMORY (std::bad_alloc)
// or DRAPE_RESULT_BAD_DATA (anything else), its message recorded by report(code, message), which
// must not throw (it formats into a fixed buffer).
template <class Body, class Report>
drape_result c_api_barrier(Body&& body, Report&& report) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        return report(DRAPE_RESULT_OUT_OF_MEMORY, "out of memory");
    } catch (const std::exception& e) {
        return report(DRAPE_RESULT_BAD_DATA, e.what());
    } catch (...) {
        return report(DRAPE_RESULT_BAD_DATA, "an exception of an unknown type");
    }
}

}  // namespace drape::rt
