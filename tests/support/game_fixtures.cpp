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

std::vector<uint8_t> make_bnd4_member_claiming(uint64_t uncompressed_size) {
    bnd::Binder b;
    b.version = "07D7R6";
    b.raw_format = 0x74;  // IDs, names, compression field (the uncompressed size)
    b.format = 0x2E;
    b.extended = 4;
    bnd::Entry e;
    e.flags = 0xC0;  // 0x40 and the compressed bit (stored bit-reversed)
    e.id = 100;
    e.name = "N:\\GR\\data\\INTERROOT_win64\\chr\\c9999\\c9999.flver";
    e.uncompressed_size = uncompressed_size;
    b.entries.push_back(e);
    const std::vector<uint8_t> zlib_of_nothing = {0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01};
    auto out = bnd::write_bnd4(b, {Bytes(zlib_of_nothing)});
    return out ? std::move(*out) : std::vector<uint8_t>{};
}

std::vector<uint8_t> make_dcx(const std::vector<uint8_t>& payload) {
    auto out = dcx::compress(payload, {});
    return out ? std::move(*out) : std::vector<uint8_t>{};
}

}  // namespace drape::test
