#include "game_fixtures.h"

#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"

namespace drape::test {

std::vector<uint8_t> make_bnd4(const std::vector<NamedBytes>& members) {
    bnd::Binder b;
    b.version = "07D7R6";
    b.raw_format = 0x74;  // IDs, names, compression field: what DS3, Sekiro and ER write
    b.format = 0x2E;
    b.extended = 4;
    b.unicode = true;
    std::vector<Bytes> views;
    int32_t id = 100;
    for (const auto& [name, bytes] : members) {
        bnd::Entry e;
        e.id = id++;
        e.name = name;
        b.entries.push_back(e);
        views.emplace_back(bytes);
    }
    auto out = bnd::write_bnd4(b, views);
    return out ? std::move(*out) : std::vector<uint8_t>{};
}

std::vector<uint8_t> make_dcx(const std::vector<uint8_t>& payload) {
    auto out = dcx::compress(payload, {});
    return out ? std::move(*out) : std::vector<uint8_t>{};
}

}  // namespace drape::test
