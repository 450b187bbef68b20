// libFuzzer target: the PARAM reader, the layouts it matches and the display masks; the input also
// goes through the container walker as a parambnd or an encrypted regulation would.
#include <cstddef>
#include <cstdint>

#include "drape/game/containers.h"
#include "drape/param/param.h"

namespace {

void decode(drape::Bytes bytes, drape::param::Game game) {
    auto p = drape::param::read_param(bytes);
    if (!p) return;
    auto layout = drape::param::find_layout(game, p->type, 11210015);
    if (!layout || !drape::param::check_layout(*p, *layout)) return;
    for (const auto& row : p->rows)
        for (const auto& f : layout->fields) (void)drape::param::value_text(drape::param::field_value(f, row.data, p->big_endian));
    (void)drape::param::display_masks(*p, *layout, game, 5000);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    drape::Bytes bytes(data, size);
    decode(bytes, drape::param::Game::elden_ring);
    decode(bytes, drape::param::Game::sekiro);
    (void)drape::param::decrypt_regulation(bytes);
    drape::game::walk_members(
        bytes, "fuzz.parambnd", {},
        [](drape::game::Member&& m) {
            decode(m.bytes, drape::param::game_of_member_path(m.name));
            return drape::game::Visit::next;
        },
        [](drape::Error&&) { return drape::game::Visit::next; });
    return 0;
}
