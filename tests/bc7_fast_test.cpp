// decode_bc7_block (mode-specialised, index bits read as one word) against
// decode_bc7_block_reference (the field-by-field decoder it replaced): the same pixels, bit
// for bit, on random blocks of every mode and on every BC7 block of the corpus's textures.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "corpus.h"
#include "drape/dcx/dcx.h"
#include "drape/tpf/bc.h"
#include "drape/tpf/tpf.h"
#include "lcg.h"

using namespace drape;

namespace {

// Compares both decoders on one block; returns whether they agree.
bool same_decode(const uint8_t* block) {
    uint8_t fast[64], ref[64];
    std::memset(fast, 0xAB, 64);
    std::memset(ref, 0xCD, 64);
    tpf::decode_bc7_block(block, fast);
    tpf::decode_bc7_block_reference(block, ref);
    return std::memcmp(fast, ref, 64) == 0;
}

}  // namespace

TEST_CASE("bc7: fast decoder equals the reference on random blocks of every mode") {
    test::Lcg rng{12345};
    size_t mismatches = 0, blocks = 0;
    uint8_t block[16];
    for (uint32_t mode = 0; mode <= 8; ++mode) {  // 8: the reserved first byte 0
        for (int n = 0; n < 20000; ++n) {
            for (uint8_t& b : block) b = rng.next_byte();
            // Force the mode: `mode` zero bits then a one (bits above it stay random).
            block[0] = mode == 8 ? 0 : uint8_t((block[0] << (mode + 1)) | (1u << mode));
            if (!same_decode(block)) ++mismatches;
            ++blocks;
        }
    }
    CHECK(blocks == 9 * 20000);
    CHECK(mismatches == 0);
}

TEST_CASE("bc7: fast decoder equals the reference on every BC7 block of the corpus textures" * doctest::test_suite("corpus")) {
    const auto corpus = test::corpus_tpfs({"ds3/EliteKnight.tpf", "er/game/chr/c4361_h.texbnd.dcx", "er/game/chr/c3061_h.texbnd.dcx",
                                            "er/game/chr/c5000_l.texbnd.dcx", "er/game/chr/c2030_l.texbnd.dcx", "sekiro/c7190.chrbnd.dcx",
                                            "er/systex.tpf.dcx"});
    REQUIRE(corpus.unreadable.empty());
    const auto& tpfs = corpus.tpfs;
    size_t textures = 0, blocks = 0, mismatches = 0;
    for (const auto& bytes : tpfs) {
        auto tpf = tpf::read_tpf(bytes);
        REQUIRE(tpf);
        for (const auto& tex : tpf->textures) {
            auto dds = tpf::parse_dds(tex.dds);
            REQUIRE(dds);
            if (dds->format != tpf::PixelFormat::bc7) continue;
            // Every block of every mip and layer: the texel data after the DDS header(s).
            const size_t header = dds->data_offset;
            REQUIRE(header <= tex.dds.size());
            for (size_t at = header; at + 16 <= tex.dds.size(); at += 16) {
                if (!same_decode(tex.dds.data() + at)) ++mismatches;
                ++blocks;
            }
            ++textures;
        }
    }
    MESSAGE(textures << " BC7 textures, " << blocks << " blocks");
    CHECK(textures >= 10);
    CHECK(blocks >= 100000);
    CHECK(mismatches == 0);
}
