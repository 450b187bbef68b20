// drape animation (the CLI): exit codes, output file, skeleton lookup, clip selection.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <vector>

#include "corpus.h"
#include "drape/anim/anibnd.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/exporters/animation_glb.h"
#include "drape/io/file.h"
#include "run.h"

namespace {

int run(std::vector<std::string> args) { return drape::test::run_drape(args).exit_code; }

}  // namespace

TEST_CASE("anim cli: drape animation writes a .glb, needs a skeleton, selects clips" * doctest::test_suite("corpus")) {
    const auto dir = drape::test::scratch_dir("anim_cli");
    const std::string out = (dir / "c2080.glb").string();
    CHECK(run({"animation", drape::test::corpus("ds3/c2080.anibnd.dcx").string(), "-o", out, "--clip", "a000_000700"}) == drape::test::k_drape_ok);
    auto bytes = drape::read_file(out);
    REQUIRE(bytes);
    auto glb = drape::exporters::read_glb(*bytes);
    REQUIRE(glb);
    CHECK(glb->json.find("\"a000_000700\"") != std::string::npos);
    CHECK(glb->json.find("\"a000_000000\"") == std::string::npos);
    // A loose clip without a skeleton of its own: refused, then accepted with --skeleton.
    const std::string bb = drape::test::corpus("bb/a000_003000.hkx").string();
    CHECK(run({"animation", bb, "-o", (dir / "bb.glb").string()}) == drape::test::k_drape_input);
    CHECK(run({"animation", bb, "--skeleton", drape::test::corpus("bb/skeleton.HKX").string(), "-o", (dir / "bb.glb").string(),
               "--no-root-motion", "--rate", "60"}) == drape::test::k_drape_ok);
    CHECK(run({"animation", bb, "--clip", "nope", "--skeleton", drape::test::corpus("bb/skeleton.HKX").string(), "-o",
               (dir / "x.glb").string()}) == drape::test::k_drape_input);
    CHECK(run({"animation", bb, "--mirror", "y", "-o", (dir / "x.glb").string()}) == drape::test::k_drape_usage);
    // Not an animation file.
    CHECK(run({"animation", drape::test::corpus("ds3/EliteKnight.tpf").string(), "-o", (dir / "x.glb").string()}) == drape::test::k_drape_input);
}

TEST_CASE("anim cli: a clip that does not decode is listed with its reason and the exit code says so" * doctest::test_suite("corpus")) {
    // ds3/c2080.anibnd.dcx with a000_000700's numBlocks patched from 1 to 3 (61 frames need 1).
    auto plain = drape::dcx::decompress(drape::test::load(drape::test::corpus("ds3/c2080.anibnd.dcx")));
    REQUIRE(plain);
    auto binder = drape::bnd::read_bnd4(*plain);
    REQUIRE(binder);
    std::vector<std::vector<uint8_t>> members;
    size_t patched = 0;
    for (const auto& e : binder->entries) {
        auto b = drape::bnd::entry_bytes(*binder, e);
        REQUIRE(b);
        if (e.name.find("a000_000700") != std::string::npos) {
            // numFrames 61, numBlocks 1, maxFramesPerBlock 256 (i32 each, docs/formats.md#animation-layouts).
            const int32_t want[3] = {61, 1, 256};
            for (size_t at = 0; at + 12 <= b->size(); at += 4)
                if (std::memcmp(b->data() + at, want, 12) == 0) {
                    const int32_t three = 3;
                    std::memcpy(b->data() + at + 4, &three, 4);
                    ++patched;
                }
        }
        members.push_back(std::move(*b));
    }
    REQUIRE(patched == 1);
    for (auto& e : binder->entries) e.flags = uint8_t(e.flags & (binder->bit_big_endian ? ~1u : ~0x80u));  // stored plain
    std::vector<drape::Bytes> views(members.begin(), members.end());
    auto written = drape::bnd::write_bnd4(*binder, views);
    REQUIRE(written);
    const auto dir = drape::test::scratch_dir("anim_cli_failures");
    const auto in = dir / "c2080.anibnd";
    REQUIRE(drape::write_file(in, *written));
    const auto r = drape::test::run(drape::test::drape_exe() + " animation " + in.string() + " -o " + (dir / "out.glb").string());
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.out.find("clip a000_000700 not decoded: ") != std::string::npos, r.out);
    CHECK_MESSAGE(r.out.find("hkaSplineCompressedAnimation.numBlocks: 3 blocks with 1 offsets for 61 frames") != std::string::npos, r.out);
    CHECK_MESSAGE(r.out.find("2 animations") != std::string::npos, r.out);
    CHECK_MESSAGE(r.out.find("1 not decoded (listed above)") != std::string::npos, r.out);
    // The clips that decode are still written.
    auto glb = drape::exporters::read_glb(drape::test::load(dir / "out.glb"));
    REQUIRE(glb);
    CHECK(glb->json.find("\"a000_000000\"") != std::string::npos);
    CHECK(glb->json.find("\"a000_000700\"") == std::string::npos);
}

namespace {

// Rewrites a corpus binder (DCX unwrapped) as a plain BND4 at `out`: `keep` drops members,
// `patch` edits member bytes.
void rewrite_binder(const std::string& corpus_rel, const std::filesystem::path& out, const std::function<bool(const std::string&)>& keep,
                    const std::function<void(const std::string&, std::vector<uint8_t>&)>& patch) {
    auto raw = drape::test::load(drape::test::corpus(corpus_rel));
    auto plain = drape::dcx::is_dcx(raw) ? drape::dcx::decompress(raw) : drape::Result<std::vector<uint8_t>>(raw);
    REQUIRE(plain);
    auto binder = drape::bnd::read_bnd4(*plain);
    REQUIRE(binder);
    drape::bnd::Binder kept = *binder;
    kept.entries.clear();
    std::vector<std::vector<uint8_t>> members;
    for (const auto& e : binder->entries) {
        if (!keep(e.name)) continue;
        auto b = drape::bnd::entry_bytes(*binder, e);
        REQUIRE(b);
        patch(e.name, *b);
        members.push_back(std::move(*b));
        kept.entries.push_back(e);
        kept.entries.back().flags = uint8_t(kept.entries.back().flags & (binder->bit_big_endian ? ~1u : ~0x80u));  // stored plain
    }
    std::vector<drape::Bytes> views(members.begin(), members.end());
    auto written = drape::bnd::write_bnd4(kept, views);
    REQUIRE(written);
    REQUIRE(drape::write_file(out, *written));
}

size_t count(const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("anim cli: a skeleton of an unsupported SDK is said once, not contradicted" * doctest::test_suite("corpus")) {
    const auto dir = drape::test::scratch_dir("anim_cli_sdk");
    const auto in = dir / "c1140.anibnd";
    size_t patched = 0;
    rewrite_binder("sekiro/c1140.anibnd.dcx", in, [](const std::string&) { return true; },
                   [&](const std::string& name, std::vector<uint8_t>& b) {
                       if (name.find("skeleton") == std::string::npos) return;
                       for (size_t at = 0; at + 8 <= b.size(); ++at)
                           if (std::memcmp(b.data() + at, "20160200", 8) == 0) std::memcpy(b.data() + at, "20190100", 8), ++patched;
                   });
    REQUIRE(patched == 1);
    const auto r = drape::test::run(drape::test::drape_exe() + " animation " + in.string() + " -o " + (dir / "out.glb").string());
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(count(r.out, "unsupported Havok SDK") == 2, r.out);  // our sentence and the reader's reason, on one line
    CHECK_MESSAGE(count(r.out, "\n") == 1, r.out);
    CHECK_MESSAGE(r.out.find("holds a skeleton of an unsupported Havok SDK, which drape cannot read") != std::string::npos, r.out);
    CHECK_MESSAGE(r.out.find("'20190100'") != std::string::npos, r.out);
    CHECK_MESSAGE(r.out.find("holds none") == std::string::npos, r.out);
}

TEST_CASE("anim cli: a clip-only anibnd takes the skeleton of the main anibnd beside it" * doctest::test_suite("corpus")) {
    const auto dir = drape::test::scratch_dir("anim_cli_clip_only");
    const auto in = dir / "c2080_a00_lo.anibnd";
    rewrite_binder("ds3/c2080.anibnd.dcx", in, [](const std::string& n) { return n.find("skeleton") == std::string::npos; },
                   [](const std::string&, std::vector<uint8_t>&) {});
    // Alone, it asks for --skeleton.
    auto r = drape::test::run(drape::test::drape_exe() + " animation " + in.string() + " -o " + (dir / "out.glb").string());
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.out.find("holds none; pass --skeleton") != std::string::npos, r.out);
    // With the main binder beside it, it uses that one and says so.
    std::filesystem::copy_file(drape::test::corpus("ds3/c2080.anibnd.dcx"), dir / "c2080.anibnd.dcx");
    r = drape::test::run(drape::test::drape_exe() + " animation " + in.string() + " -o " + (dir / "out.glb").string());
    CHECK_MESSAGE(r.exit_code == 0, r.out);
    CHECK_MESSAGE(r.out.find("c2080_a00_lo.anibnd holds no skeleton; using Master of ") != std::string::npos, r.out);
    CHECK_MESSAGE(r.out.find("c2080.anibnd.dcx beside it") != std::string::npos, r.out);
    CHECK_MESSAGE(r.out.find("3 animations") != std::string::npos, r.out);
    CHECK(drape::anim::main_anibnd_beside(in) == dir / "c2080.anibnd.dcx");
    CHECK_FALSE(drape::anim::main_anibnd_beside(dir / "c2080.anibnd.dcx"));
    CHECK_FALSE(drape::anim::main_anibnd_beside(dir / "x_a00.chrbnd.dcx"));
}
