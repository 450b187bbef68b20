// Placeholder until drape's own Kraken decoder lands (issue 7): refuses with the Oodle hint.
#include "drape/dcx/kraken.h"

namespace drape::kraken {

Result<void> decompress(Bytes, std::span<uint8_t>, unsigned) {
    return make_error_at(0, "kraken",
                         "drape's Kraken decoder is not built yet: pass --oodle PATH to the game's Oodle library "
                         "(liboo2corelinux64.so), or set DRAPE_OODLE");
}

}  // namespace drape::kraken
