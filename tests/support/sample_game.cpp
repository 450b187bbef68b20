#include "sample_game.h"

#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/io/file.h"
#include "../flver_fixture.h"
#include "havok_fixtures.h"
#include "tpf_fixture.h"

namespace drape::test {

namespace {

bnd::Binder game_binder() {
    bnd::Binder b;
    b.version = "07D7R6";
    b.raw_format = 0x74;  // IDs, names, compression field: what DS3, Sekiro and ER write
    b.format = 0x2E;
    b.extended = 4;
    b.unicode = true;
    return b;
}

Bytes as_bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

}  // namespace

Result<std::vector<std::string>> write_sample_game(const std::filesystem::path& root) {
    std::vector<std::string> written;
    auto emit = [&](const std::string& rel, const std::vector<uint8_t>& bytes) -> Result<void> {
        auto path = safe_join(root, rel);
        if (!path) return path.error();
        if (auto w = write_file(*path, bytes); !w) return w.error();
        written.push_back(rel);
        return {};
    };

    // chr/c9990.anibnd.dcx: a DS3-style animation binder (DCX DFLT > BND4) with text members.
    {
        bnd::Binder b = game_binder();
        std::vector<std::string> payloads;
        const char* names[] = {"c9990_a00_hi.txt", "c9990_a00_lo.txt", "c9990_a00_md.txt"};
        int32_t id = 6000000;
        for (const char* n : names) {
            bnd::Entry e;
            e.flags = 0x40;
            e.id = id++;
            e.name = std::string("N:\\FDP\\data\\INTERROOT_win64\\chr\\c9990\\txt\\") + n;
            b.entries.push_back(e);
            payloads.push_back(std::string("synthetic sample for drape: ") + n + "\n");
        }
        std::vector<Bytes> views;
        for (auto& p : payloads) views.push_back(as_bytes(p));
        auto bnd = bnd::write_bnd4(b, views);
        if (!bnd) return bnd.error();
        auto dcx = dcx::compress(*bnd, {});
        if (!dcx) return dcx.error();
        if (auto r = emit("chr/c9990.anibnd.dcx", *dcx); !r) return r.error();
    }
    // chr/c9999.chrbnd.dcx: a character binder as the games ship it (DCX DFLT > BND4) with a model
    // (a small synthetic FLVER2), its cloth (a synthesized Elden Ring hcl tagfile) and its texture
    // pack (one 8x8 BC1 texture named as the model's material asks).
    {
        bnd::Binder b = game_binder();
        std::vector<std::vector<uint8_t>> payloads;
        auto add = [&](int32_t id, const std::string& name, std::vector<uint8_t> bytes) {
            bnd::Entry e;
            e.flags = 0x40;
            e.id = id;
            e.name = "N:\\GR\\data\\INTERROOT_win64\\chr\\c9999\\" + name;
            b.entries.push_back(e);
            payloads.push_back(std::move(bytes));
        };
        FlverFixture flver;
        add(200, "c9999.flver", flver.build());
        auto types = fixture_types(ClothGame::elden_ring);
        if (!types) return types.error();
        add(700, "c9999_c.hkx", synthesize_cloth(ClothGame::elden_ring, *types));
        DdsSpec spec;
        spec.width = spec.height = 8;
        spec.fourcc = fourcc_code("DXT1");
        std::vector<uint8_t> blocks;
        for (int i = 0; i < 4; ++i) {
            // BC1 block: colour0 = red (0xF800), colour1 = blue (0x001F), indices alternate.
            const uint8_t block[8] = {0x00, 0xF8, 0x1F, 0x00, 0x44, 0x44, 0x44, 0x44};
            blocks.insert(blocks.end(), block, block + 8);
        }
        TpfTextureSpec tex;
        tex.name = "c9999_cape_a";
        tex.dds = make_dds(spec, blocks);
        add(100, "c9999.tpf", make_tpf({tex}));
        std::vector<Bytes> views;
        for (auto& p : payloads) views.push_back(p);
        auto bnd = bnd::write_bnd4(b, views);
        if (!bnd) return bnd.error();
        auto dcx = dcx::compress(*bnd, {});
        if (!dcx) return dcx.error();
        if (auto r = emit("chr/c9999.chrbnd.dcx", *dcx); !r) return r.error();
    }
    // param/sample.regulation.dcx: an ER-style ZSTD DCX.
    {
        std::string text = "drape sample regulation: not game data\n";
        dcx::EncodeOptions o;
        o.compression = dcx::Compression::zstd;
        o.unk04 = 0x11000;
        auto dcx = dcx::compress(as_bytes(text), o);
        if (!dcx) return dcx.error();
        if (auto r = emit("param/sample.regulation.dcx", *dcx); !r) return r.error();
    }
    return written;
}

}  // namespace drape::test
