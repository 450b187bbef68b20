// libFuzzer: TAG0 tagfiles and TCM0 compendiums through the readers, the generic view and
// every typed view. An input made of a compendium followed by a tagfile (split at the first
// "TAG0" after the start) exercises the TCRF path.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "drape/havok/hkx.h"
#include "havok_walk.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace drape;
    const Bytes all(data, size);
    if (havok::is_compendium(all)) {
        const std::string_view s(reinterpret_cast<const char*>(data), size);
        const size_t k = s.find("TAG0", 8);
        const size_t split = (k == std::string_view::npos || k < 4) ? size : k - 4;
        auto c = havok::read_compendium(all.subspan(0, split));
        if (c && split < size) {
            auto f = havok::read_tagfile(all.subspan(split), &*c);
            if (f) (void)test::walk_havok(*f);
        }
        return 0;
    }
    auto f = havok::read_tagfile(all);
    if (f) (void)test::walk_havok(*f);
    return 0;
}
