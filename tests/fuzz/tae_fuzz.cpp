// libFuzzer target: the TAE reader, the whole-id rule over what it read, and the JSON of its
// events (what inspect --json and the glTF extras write); a BND4 input goes through the clip-set
// reader, which reads its TAE members and puts their events on its clips.
#include <cstddef>
#include <cstdint>
#include <sstream>

#include "drape/anim/anibnd.h"
#include "drape/exporters/tae_json.h"
#include "drape/tae/tae.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    drape::Bytes bytes(data, size);
    if (auto t = drape::tae::read_tae(bytes)) {
        std::ostringstream os;
        drape::JsonWriter w(os, 0);
        drape::exporters::write_tae_json(w, *t, drape::tae::category_of("a23.tae", t->id));
        for (const auto& c : drape::tae::clip_events(*t, 234)) (void)drape::exporters::clip_extras_json(c.events, c.motion_from);
    }
    (void)drape::anim::read_clip_set(bytes, "fuzz.anibnd");
    return 0;
}
