#include "sample_game.h"

#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/io/file.h"

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
