// TPF reader, DDS parser, BC decoders and PNG export.
//
// Independent references:
// - Pillow (Debian python3-pil 9.4) decodes every surface of every corpus texture and random
//   blocks of every format it supports (tests/tpf_pillow.py); ours must equal it byte for byte,
//   except BC6H (see below).
// - The soulstruct peer readings give names, format bytes and data sizes.
// - Single blocks built by hand, with expected colours computed from the format
//   specifications in the comments.
//
// Where Pillow 9.4 is not usable as a reference (tested by hand instead):
// - BC4_SNORM: not supported by Pillow 9.4.
// - BC5_SNORM: Pillow 9.4 maps a signed endpoint s to (s + 255) / 2 (range 63..191, fixed in
//   later Pillow to s + 128); drape uses s + 128 (bc.h).
// - BC7 blocks whose first byte is 0 (reserved mode): Pillow gives (0,0,0,255), the
//   specification (and drape) (0,0,0,0).
// - BC6H: Pillow interpolates without the specification's +32 rounding term and converts to
//   8 bits (clamp to [0, 1], x 255, truncate); ours follows the specification, so the 8-bit
//   comparison allows a difference of 1. Pillow also does not sign-extend transformed
//   endpoints of BC6H_SF16, so the signed comparison uses the untransformed modes only
//   (10 and 11 in the specification's numbering); the transformed signed case is a hand test.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "corpus.h"
#include "drape/dcx/dcx.h"
#include "drape/exporters/png.h"
#include "drape/io/file.h"
#include "drape/tpf/bc.h"
#include "drape/tpf/tpf.h"
#include "lcg.h"
#include "tpf_fixture.h"

using namespace drape;
using namespace drape::tpf;
namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------------------------------
// Helpers

// er/systex.tpf.dcx is DCX DFLT around the TPF.
std::vector<uint8_t> load_systex() {
    auto dcx_bytes = test::load(test::corpus("er/systex.tpf.dcx"));
    REQUIRE(!dcx_bytes.empty());
    auto tpf = dcx::decompress(dcx_bytes);
    REQUIRE_MESSAGE(tpf, (tpf ? "" : tpf.error().to_string()));
    return std::move(*tpf);
}

std::string python() {
    if (const char* env = std::getenv("DRAPE_PYTHON"); env && *env) return env;
    // Debian's python3-pil lives with /usr/bin/python3 (a pyenv python3 may shadow it on PATH).
    if (fs::exists("/usr/bin/python3")) return "/usr/bin/python3";
    return "python3";
}

// Runs tests/tpf_pillow.py over a folder of .dds/.png files.
void run_pillow(const fs::path& dir) {
    const fs::path script = fs::path(DRAPE_SOURCE_DIR) / "tests" / "tpf_pillow.py";
    const std::string cmd = python() + " '" + script.string() + "' '" + dir.string() + "'";
    INFO("command: " << cmd);
    REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, "tpf_pillow.py failed: is python3-pil installed?");
}

struct PilImage {
    bool ok = false;
    std::string error;
    std::string mode;
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> data;
};

PilImage read_pil(const fs::path& file) {
    PilImage p;
    if (fs::exists(fs::path(file.string() + ".err"))) {
        auto e = test::load(file.string() + ".err");
        p.error.assign(e.begin(), e.end());
        return p;
    }
    auto bytes = test::load(file.string() + ".pil");
    auto nl = std::find(bytes.begin(), bytes.end(), uint8_t('\n'));
    if (nl == bytes.end()) {
        p.error = "no Pillow output for " + file.string();
        return p;
    }
    std::istringstream head(std::string(bytes.begin(), nl));
    head >> p.mode >> p.width >> p.height;
    p.data.assign(nl + 1, bytes.end());
    p.ok = true;
    return p;
}

uint32_t mode_channels(const std::string& mode) {
    if (mode == "L") return 1;
    if (mode == "LA") return 2;
    if (mode == "RGB") return 3;
    if (mode == "RGBA") return 4;
    return 0;
}

// Empty when equal (within `tolerance` per sample), else the first difference.
std::string compare_with_pillow(const Image& ours8, const PilImage& pil, int tolerance, size_t* differing = nullptr) {
    if (!pil.ok) return "Pillow could not decode: " + pil.error;
    std::ostringstream s;
    if (mode_channels(pil.mode) != ours8.channels || pil.width != ours8.width || pil.height != ours8.height) {
        s << "shape: Pillow " << pil.mode << " " << pil.width << "x" << pil.height << ", ours " << ours8.channels
          << " channels " << ours8.width << "x" << ours8.height;
        return s.str();
    }
    if (pil.data.size() != ours8.u8.size()) return "size mismatch";
    size_t diff = 0;
    std::string first;
    for (size_t i = 0; i < pil.data.size(); ++i) {
        if (std::abs(int(pil.data[i]) - int(ours8.u8[i])) > tolerance) {
            if (first.empty()) {
                const size_t px = i / ours8.channels;
                s << "pixel (" << px % ours8.width << ", " << px / ours8.width << ") channel " << i % ours8.channels
                  << ": Pillow " << int(pil.data[i]) << ", ours " << int(ours8.u8[i]);
                first = s.str();
            }
            ++diff;
        }
    }
    if (differing) *differing = diff;
    return first;
}

// A single-surface DDS (the original header with the surface's size and one mip) for Pillow.
std::vector<uint8_t> single_surface_dds(const Dds& dds, const Surface& s) {
    std::vector<uint8_t> out(dds.bytes.begin(), dds.bytes.begin() + ptrdiff_t(dds.data_offset));
    auto put32 = [&](size_t at, uint32_t v) {
        for (int i = 0; i < 4; ++i) out[at + i] = uint8_t(v >> (8 * i));
    };
    put32(0x0C, s.height);
    put32(0x10, s.width);
    put32(0x18, 0);
    put32(0x1C, 1);
    if (dds.has_dx10) put32(0x8C, 1);
    const uint64_t slice = s.size / s.depth;
    out.insert(out.end(), dds.bytes.begin() + ptrdiff_t(s.offset), dds.bytes.begin() + ptrdiff_t(s.offset + slice));
    return out;
}

void write_bytes(const fs::path& p, const std::vector<uint8_t>& b) {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
    REQUIRE(f.good());
}

struct PeerTexture {
    std::string name;
    int format = -1;
    uint64_t data_size = 0;
};

std::vector<PeerTexture> peer_textures(const std::string& json_path, int* count) {
    auto bytes = test::load(test::reference_dir() / "peer" / "soulstruct" / json_path);
    std::string json(bytes.begin(), bytes.end());
    std::smatch m;
    *count = -1;
    if (std::regex_search(json, m, std::regex(R"re("texture_count":(\d+))re"))) *count = std::stoi(m[1]);
    std::vector<PeerTexture> out;
    std::regex item(R"re(\{"name":"([^"]*)","format":(\d+),"data_size":(\d+)\})re");
    for (auto it = std::sregex_iterator(json.begin(), json.end(), item); it != std::sregex_iterator(); ++it) {
        out.push_back({(*it)[1], std::stoi((*it)[2]), std::stoull((*it)[3])});
    }
    return out;
}

struct CorpusTpf {
    std::string label;
    std::string peer;
    std::vector<uint8_t> bytes;
};

std::vector<CorpusTpf> corpus_tpfs() {
    std::vector<CorpusTpf> v;
    v.push_back({"ds3_EliteKnight", "ds3/EliteKnight.tpf.json", test::load(test::corpus("ds3/EliteKnight.tpf"))});
    v.push_back({"er_systex", "er/systex.tpf.dcx.json", load_systex()});
    return v;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Corpus

TEST_CASE("tpf: corpus TPFs match the soulstruct peer (names, format bytes, sizes)" * doctest::test_suite("corpus")) {
    for (auto& c : corpus_tpfs()) {
        CAPTURE(c.label);
        REQUIRE(!c.bytes.empty());
        auto tpf = read_tpf(c.bytes);
        REQUIRE_MESSAGE(tpf, (tpf ? "" : tpf.error().to_string()));
        int count = 0;
        auto peer = peer_textures(c.peer, &count);
        REQUIRE(count > 0);
        REQUIRE(peer.size() == size_t(count));
        REQUIRE(tpf->textures.size() == peer.size());
        CHECK(tpf->platform == 0);
        CHECK(tpf->encoding == 1);
        for (size_t i = 0; i < peer.size(); ++i) {
            CAPTURE(i);
            CHECK(tpf->textures[i].name == peer[i].name);
            CHECK(int(tpf->textures[i].format) == peer[i].format);
            CHECK(tpf->textures[i].dds.size() == peer[i].data_size);
        }
    }
}

TEST_CASE("tpf: every surface of every corpus texture decodes exactly as Pillow decodes it" * doctest::test_suite("corpus")) {
    const fs::path dir = test::scratch_dir("tpf_corpus_pillow");
    struct Job {
        std::string file;
        Image ours;
        PixelFormat format;
    };
    std::vector<Job> jobs;
    std::map<std::string, int> formats_seen;
    for (auto& c : corpus_tpfs()) {
        auto tpf = read_tpf(c.bytes);
        REQUIRE(tpf);
        for (size_t t = 0; t < tpf->textures.size(); ++t) {
            const Texture& tex = tpf->textures[t];
            CAPTURE(tex.name);
            auto dds = parse_dds(tex.dds);
            REQUIRE_MESSAGE(dds, (dds ? "" : dds.error().to_string()));
            // The surfaces tile the DDS data exactly.
            uint64_t end = dds->data_offset;
            for (const Surface& s : dds->surfaces) {
                CHECK(s.offset == end);
                end += s.size;
            }
            CHECK(end == tex.dds.size());
            CHECK(dds->mip_count == tex.mipmaps);
            formats_seen[std::string(pixel_format_name(dds->format)) + (dds->srgb ? "_SRGB" : "") +
                         (dds->has_dx10 ? " (DX10)" : " (FourCC)")]++;
            for (const Surface& s : dds->surfaces) {
                auto img = decode_surface(*dds, s.mip, s.layer);
                REQUIRE(img);
                std::string name = c.label + "_" + std::to_string(t) + "_m" + std::to_string(s.mip) + "_l" +
                                   std::to_string(s.layer) + ".dds";
                write_bytes(dir / name, single_surface_dds(*dds, s));
                jobs.push_back({name, std::move(*img), dds->format});
            }
        }
    }
    for (auto& [f, n] : formats_seen) MESSAGE(f << ": " << n << " textures");
    run_pillow(dir);
    size_t pixels = 0;
    for (auto& j : jobs) {
        CAPTURE(j.file);
        const bool bc6 = j.format == PixelFormat::bc6h_uf16 || j.format == PixelFormat::bc6h_sf16;
        CHECK(compare_with_pillow(to_unorm8_clamped(j.ours), read_pil(dir / j.file), bc6 ? 1 : 0) == "");
        pixels += size_t(j.ours.width) * j.ours.height;
    }
    MESSAGE(jobs.size() << " surfaces, " << pixels << " pixels compared with Pillow");
    CHECK(jobs.size() > 57);  // 3 + 54 textures, most with several mips
}

TEST_CASE("tpf: EliteKnight exports as PNG files whose pixels equal Pillow's decode of the DDS" * doctest::test_suite("corpus")) {
    auto bytes = test::load(test::corpus("ds3/EliteKnight.tpf"));
    auto tpf = read_tpf(bytes);
    REQUIRE(tpf);
    const fs::path dir = test::scratch_dir("tpf_png_export");
    auto exported = image::export_tpf_textures(*tpf, dir / "textures");
    REQUIRE_MESSAGE(exported, (exported ? "" : exported.error().to_string()));
    REQUIRE(exported->size() == 3);
    // Pillow reads our PNG files, and separately decodes the original DDS files.
    for (size_t i = 0; i < tpf->textures.size(); ++i) {
        const auto& e = (*exported)[i];
        CHECK(e.error == "");
        CHECK(e.name == tpf->textures[i].name);
        CHECK(e.file_name == tpf->textures[i].name + ".png");
        REQUIRE(fs::exists(e.png));
        fs::copy_file(e.png, dir / ("tex" + std::to_string(i) + ".png"));
        write_bytes(dir / ("tex" + std::to_string(i) + ".dds"),
                    std::vector<uint8_t>(tpf->textures[i].dds.begin(), tpf->textures[i].dds.end()));
    }
    run_pillow(dir);
    for (size_t i = 0; i < tpf->textures.size(); ++i) {
        CAPTURE(i);
        PilImage png = read_pil(dir / ("tex" + std::to_string(i) + ".png"));
        PilImage dds = read_pil(dir / ("tex" + std::to_string(i) + ".dds"));
        REQUIRE(png.ok);
        REQUIRE(dds.ok);
        CHECK(png.width == dds.width);
        CHECK(png.height == dds.height);
        if (png.mode == "RGB" && dds.mode == "RGBA") {
            // Opaque RGBA is written as RGB (PngOptions::drop_opaque_alpha): same colours, and
            // Pillow's alpha is 255 everywhere.
            std::vector<uint8_t> rgb;
            bool opaque = true;
            for (size_t p = 0; p + 4 <= dds.data.size(); p += 4) {
                rgb.insert(rgb.end(), dds.data.begin() + ptrdiff_t(p), dds.data.begin() + ptrdiff_t(p + 3));
                opaque = opaque && dds.data[p + 3] == 255;
            }
            CHECK(opaque);
            CHECK(png.data == rgb);
        } else {
            CHECK(png.mode == dds.mode);
            CHECK(png.data == dds.data);
        }
    }
}

TEST_CASE("tpf: systex export names are unique and safe" * doctest::test_suite("corpus")) {
    auto bytes = load_systex();
    auto tpf = read_tpf(bytes);
    REQUIRE(tpf);
    const fs::path dir = test::scratch_dir("tpf_systex_export");
    auto exported = image::export_tpf_textures(*tpf, dir);
    REQUIRE(exported);
    std::set<std::string> files;
    for (auto& e : *exported) {
        CHECK(e.error == "");
        CHECK(fs::exists(e.png));
        CHECK(e.png.parent_path() == dir);
        files.insert(e.file_name);
    }
    CHECK(files.size() == tpf->textures.size());
    // "SYSTEX_BLACK " (trailing space in the game's name) becomes a portable file name.
    CHECK(files.count("SYSTEX_BLACK.png") == 1);
}

// ---------------------------------------------------------------------------------------
// Random blocks of every format Pillow 9.4 decodes

namespace {

struct RandomCase {
    std::string label;
    test::DdsSpec spec;
    uint32_t unit;   // bytes per block or per pixel
    bool block;
    int kind = 0;    // 0 plain random, 7 BC7 (cycle modes 1..7 + 0), 6 BC6H unsigned (all modes), 60 BC6H signed untransformed
    int tolerance = 0;
};

void shape_block(int kind, uint8_t* b, uint32_t index) {
    if (kind == 7) {
        const uint32_t mode = index % 8;  // modes 0..7; never the reserved first byte 0
        b[0] = uint8_t((b[0] & ~((2u << mode) - 1)) | (1u << mode));
    } else if (kind == 6) {
        static const uint8_t codes[14] = {0, 1, 2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15};
        const uint8_t code = codes[index % 14];
        b[0] = code < 2 ? uint8_t((b[0] & ~3u) | code) : uint8_t((b[0] & ~31u) | code);
    } else if (kind == 60) {
        static const uint8_t codes[2] = {30, 3};  // specification modes 10 and 11
        b[0] = uint8_t((b[0] & ~31u) | codes[index % 2]);
    }
}

}  // namespace

TEST_CASE("tpf: random blocks of every Pillow-supported format decode as Pillow decodes them") {
    using test::fourcc_code;
    std::vector<RandomCase> cases;
    auto fcc = [](const char (&s)[5]) {
        test::DdsSpec d;
        d.fourcc = fourcc_code(s);
        return d;
    };
    auto dx = [](uint32_t dxgi) {
        test::DdsSpec d;
        d.dxgi = dxgi;
        return d;
    };
    auto masks = [](uint32_t flags, uint32_t bits, uint32_t r, uint32_t g, uint32_t b, uint32_t a) {
        test::DdsSpec d;
        d.pf_flags = flags;
        d.bit_count = bits;
        d.masks[0] = r;
        d.masks[1] = g;
        d.masks[2] = b;
        d.masks[3] = a;
        return d;
    };
    cases.push_back({"bc1_dxt1", fcc("DXT1"), 8, true});
    cases.push_back({"bc1_dxgi71", dx(71), 8, true});
    cases.push_back({"bc2_dxt3", fcc("DXT3"), 16, true});
    cases.push_back({"bc3_dxt5", fcc("DXT5"), 16, true});
    cases.push_back({"bc3_dxgi77", dx(77), 16, true});
    cases.push_back({"bc4_ati1", fcc("ATI1"), 8, true});
    cases.push_back({"bc4_dxgi80", dx(80), 8, true});
    cases.push_back({"bc5_ati2", fcc("ATI2"), 16, true});
    cases.push_back({"bc5_dxgi83", dx(83), 16, true});
    cases.push_back({"bc7_dxgi98", dx(98), 16, true, 7});
    cases.push_back({"bc6h_uf16", dx(95), 16, true, 6, 1});
    cases.push_back({"bc6h_sf16", dx(96), 16, true, 60, 1});
    cases.push_back({"rgba8_dxgi28", dx(28), 4, false});
    cases.push_back({"bgra8_dxgi87", dx(87), 4, false});
    cases.push_back({"r8_dxgi61", dx(61), 1, false});
    cases.push_back({"bgra8_masks", masks(0x41, 32, 0xFF0000, 0xFF00, 0xFF, 0xFF000000), 4, false});
    cases.push_back({"bgr8_masks", masks(0x40, 24, 0xFF0000, 0xFF00, 0xFF, 0), 3, false});
    cases.push_back({"l8_masks", masks(0x20000, 8, 0xFF, 0, 0, 0), 1, false});
    cases.push_back({"l8a8_masks", masks(0x20001, 16, 0xFF, 0, 0, 0xFF00), 2, false});

    const fs::path dir = test::scratch_dir("tpf_random_pillow");
    struct Job {
        std::string file;
        Image ours;
        int tolerance;
    };
    std::vector<Job> jobs;
    test::Lcg rng{12345};
    const uint32_t sizes[2][2] = {{64, 32}, {10, 6}};
    for (auto& c : cases) {
        for (auto& wh : sizes) {
            test::DdsSpec spec = c.spec;
            spec.width = wh[0];
            spec.height = wh[1];
            const uint32_t units = c.block ? ((wh[0] + 3) / 4) * ((wh[1] + 3) / 4) : wh[0] * wh[1];
            std::vector<uint8_t> data(size_t(units) * c.unit);
            for (auto& b : data) b = rng.next_byte();
            if (c.block)
                for (uint32_t u = 0; u < units; ++u) shape_block(c.kind, &data[size_t(u) * c.unit], u);
            auto file = test::make_dds(spec, data);
            auto dds = parse_dds(file);
            REQUIRE_MESSAGE(dds, c.label << ": " << (dds ? "" : dds.error().to_string()));
            auto img = decode_surface(*dds);
            REQUIRE(img);
            std::string name = c.label + "_" + std::to_string(wh[0]) + "x" + std::to_string(wh[1]) + ".dds";
            write_bytes(dir / name, file);
            jobs.push_back({name, to_unorm8_clamped(*img), c.tolerance});
        }
    }
    run_pillow(dir);
    for (auto& j : jobs) {
        CAPTURE(j.file);
        size_t differing = 0;
        CHECK(compare_with_pillow(j.ours, read_pil(dir / j.file), j.tolerance, &differing) == "");
        if (j.tolerance) {
            size_t off_by_one = 0;
            compare_with_pillow(j.ours, read_pil(dir / j.file), 0, &off_by_one);
            size_t mid = 0;
            for (uint8_t v : j.ours.u8) mid += (v != 0 && v != 255);
            MESSAGE(j.file << ": " << off_by_one << " of " << j.ours.u8.size() << " samples (" << mid
                           << " not clamped) differ from Pillow by 1");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Hand-computed single blocks (expected values from the format specifications)

namespace {
Image decode_one(PixelFormat f, const std::vector<uint8_t>& data, uint32_t w = 4, uint32_t h = 4) {
    auto img = decode_pixels(f, data, w, h);
    REQUIRE(img);
    return std::move(*img);
}
std::vector<int> px(const Image& img, uint32_t x, uint32_t y) {
    std::vector<int> v;
    for (uint32_t c = 0; c < img.channels; ++c) v.push_back(img.u8[(size_t(y) * img.width + x) * img.channels + c]);
    return v;
}
}  // namespace

TEST_CASE("bc1: four-colour and three-colour blocks") {
    // c0 = 0xF800 (red), c1 = 0x001F (blue), c0 > c1: p2 = 2/3 c0 + 1/3 c1, p3 = 1/3 c0 + 2/3 c1.
    // Indices 0xE4 per row: pixels 0..3 of each row use palette entries 0, 1, 2, 3.
    Image a = decode_one(PixelFormat::bc1, {0x00, 0xF8, 0x1F, 0x00, 0xE4, 0xE4, 0xE4, 0xE4});
    REQUIRE(a.channels == 4);
    CHECK(px(a, 0, 0) == std::vector<int>{255, 0, 0, 255});
    CHECK(px(a, 1, 0) == std::vector<int>{0, 0, 255, 255});
    CHECK(px(a, 2, 3) == std::vector<int>{170, 0, 85, 255});  // (2*255+0)/3, (2*0+255)/3
    CHECK(px(a, 3, 3) == std::vector<int>{85, 0, 170, 255});
    // c0 = 0x001F < c1 = 0xF800: p2 = (c0 + c1) / 2, p3 = transparent black.
    Image b = decode_one(PixelFormat::bc1, {0x1F, 0x00, 0x00, 0xF8, 0xE4, 0xE4, 0xE4, 0xE4});
    CHECK(px(b, 2, 0) == std::vector<int>{127, 0, 127, 255});
    CHECK(px(b, 3, 0) == std::vector<int>{0, 0, 0, 0});
    // 5- and 6-bit channels widen by bit replication: 0x8410 = (16, 32, 16) -> (132, 130, 132).
    Image c = decode_one(PixelFormat::bc1, {0x10, 0x84, 0x00, 0x00, 0, 0, 0, 0});
    CHECK(px(c, 0, 0) == std::vector<int>{132, 130, 132, 255});
}

TEST_CASE("bc2: explicit 4-bit alpha, colour always four-colour") {
    // Alpha nibbles 0..15 in pixel order: alpha = nibble * 17. Colour c0 = blue < c1 = red
    // still uses the four-colour palette in BC2: index 3 = (c0 + 2*c1)/3 = (170, 0, 85).
    Image a = decode_one(PixelFormat::bc2, {0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE,  //
                                            0x1F, 0x00, 0x00, 0xF8, 0xFF, 0xFF, 0xFF, 0xFF});
    CHECK(px(a, 0, 0) == std::vector<int>{170, 0, 85, 0});
    CHECK(px(a, 1, 0) == std::vector<int>{170, 0, 85, 17});
    CHECK(px(a, 3, 3) == std::vector<int>{170, 0, 85, 255});
}

TEST_CASE("bc3 / bc4: eight- and six-value alpha palettes") {
    // a0 = 255 > a1 = 0: a2..a7 = ((7-i)*a0 + i*a1)/7 = 218, 182, 145, 109, 72, 36.
    // Indices: pixel i uses index i % 8 (3 bits each: 0o76543210 repeated = 0x88 0xC6 0xFA ...).
    const std::vector<uint8_t> alpha8 = {255, 0, 0x88, 0xC6, 0xFA, 0x88, 0xC6, 0xFA};
    Image l = decode_one(PixelFormat::bc4, alpha8);
    REQUIRE(l.channels == 1);
    CHECK(std::vector<int>(l.u8.begin(), l.u8.begin() + 8) == std::vector<int>{255, 0, 218, 182, 145, 109, 72, 36});
    CHECK(std::vector<int>(l.u8.begin() + 8, l.u8.end()) == std::vector<int>{255, 0, 218, 182, 145, 109, 72, 36});
    // a0 = 50 <= a1 = 100: a2..a5 = ((5-i)*a0 + i*a1)/5 = 60, 70, 80, 90; a6 = 0; a7 = 255.
    Image l6 = decode_one(PixelFormat::bc4, {50, 100, 0x88, 0xC6, 0xFA, 0x88, 0xC6, 0xFA});
    CHECK(std::vector<int>(l6.u8.begin(), l6.u8.begin() + 8) == std::vector<int>{50, 100, 60, 70, 80, 90, 0, 255});
    // BC3 = that alpha block + a BC1 colour block (solid white: c0 = c1 = 0xFFFF, index 0).
    std::vector<uint8_t> bc3 = alpha8;
    bc3.insert(bc3.end(), {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0});
    Image c = decode_one(PixelFormat::bc3, bc3);
    CHECK(px(c, 2, 0) == std::vector<int>{255, 255, 255, 218});
    CHECK(px(c, 3, 3) == std::vector<int>{255, 255, 255, 36});
    // BC4_SNORM: endpoints -127 (0x81) and 127 (0x7F) offset by 128: 1 and 255, six-value mode:
    // (4*1 + 255)/5 = 51, (3 + 510)/5 = 102, (2 + 765)/5 = 153, (1 + 1020)/5 = 204, then 0, 255.
    Image s = decode_one(PixelFormat::bc4s, {0x81, 0x7F, 0x88, 0xC6, 0xFA, 0x88, 0xC6, 0xFA});
    CHECK(std::vector<int>(s.u8.begin(), s.u8.begin() + 8) == std::vector<int>{1, 255, 51, 102, 153, 204, 0, 255});
}

TEST_CASE("bc5: red and green from two blocks, blue 0 (128 for SNORM)") {
    std::vector<uint8_t> blk = {255, 0, 0x88, 0xC6, 0xFA, 0x88, 0xC6, 0xFA};
    std::vector<uint8_t> blk2 = {50, 100, 0x88, 0xC6, 0xFA, 0x88, 0xC6, 0xFA};
    std::vector<uint8_t> data = blk;
    data.insert(data.end(), blk2.begin(), blk2.end());
    Image u = decode_one(PixelFormat::bc5, data);
    REQUIRE(u.channels == 3);
    CHECK(px(u, 2, 0) == std::vector<int>{218, 60, 0});
    CHECK(px(u, 3, 1) == std::vector<int>{36, 255, 0});
    // SNORM: first block endpoints -1 (0xFF -> 127) and 0 (0x00 -> 128): a0 < a1, six values:
    // (4*127+128)/5 = 127, (3*127+256)/5 = 127, (2*127+384)/5 = 127, (127+512)/5 = 127.
    std::vector<uint8_t> s = {0xFF, 0x00, 0x88, 0xC6, 0xFA, 0x88, 0xC6, 0xFA, 0x80, 0x7F, 0, 0, 0, 0, 0, 0};
    Image si = decode_one(PixelFormat::bc5s, s);
    CHECK(px(si, 0, 0) == std::vector<int>{127, 0, 128});    // green: index 0 -> -128 -> 0
    CHECK(px(si, 1, 0) == std::vector<int>{128, 0, 128});
    CHECK(px(si, 2, 0) == std::vector<int>{127, 0, 128});
    CHECK(px(si, 6, 0 + 0) == px(si, 2, 1));                 // pixel 6 = (2, 1): index 6 -> 0
    CHECK(px(si, 2, 1) == std::vector<int>{0, 0, 128});
    CHECK(px(si, 3, 1) == std::vector<int>{255, 0, 128});    // index 7 -> 255
}

TEST_CASE("bc7: mode 6, mode 5 with rotation, reserved mode") {
    // Mode 6: 1 subset, RGBA 7-bit endpoints + one p-bit per endpoint, 4-bit indices.
    test::BlockBits b;
    b.put(1u << 6, 7);                      // mode 6
    b.put(0x7F, 7).put(0x00, 7);            // R0 R1
    b.put(0x00, 7).put(0x7F, 7);            // G0 G1
    b.put(0x40, 7).put(0x40, 7);            // B0 B1
    b.put(0x7F, 7).put(0x7F, 7);            // A0 A1
    b.put(1, 1).put(0, 1);                  // p0 = 1, p1 = 0
    b.put(0, 3);                            // pixel 0 (anchor): index 0
    for (uint32_t i = 1; i < 16; ++i) b.put(i, 4);
    REQUIRE(b.pos == 128);
    // Endpoints (value << 1 | p): E0 = (255, 1, 129, 255), E1 = (0, 254, 128, 254).
    Image m6 = decode_one(PixelFormat::bc7, std::vector<uint8_t>(b.bytes, b.bytes + 16));
    CHECK(px(m6, 0, 0) == std::vector<int>{255, 1, 129, 255});
    CHECK(px(m6, 3, 3) == std::vector<int>{0, 254, 128, 254});
    // Pixel 8, index 8, weight 34: ((64-34)*e0 + 34*e1 + 32) >> 6.
    // R (30*255 + 32) >> 6 = 120; G (30 + 8636 + 32) >> 6 = 135; B (3870 + 4352 + 32) >> 6 = 128;
    // A (7650 + 8636 + 32) >> 6 = 254.
    CHECK(px(m6, 0, 2) == std::vector<int>{120, 135, 128, 254});

    // Mode 5: rotation 2 bits, RGB 7-bit, A 8-bit, colour and alpha 2-bit index sets.
    test::BlockBits c;
    c.put(1u << 5, 6);              // mode 5
    c.put(1, 2);                    // rotation 1: swap red and alpha
    c.put(0x7F, 7).put(0x00, 7);    // R: 255, 0
    c.put(0x40, 7).put(0x40, 7);    // G: 0x40 -> (0x80 | 0x01) = 129 for both
    c.put(0x00, 7).put(0x00, 7);    // B: 0
    c.put(0x10, 8).put(0xF0, 8);    // A: 16, 240
    c.put(1, 1);                    // colour index pixel 0 (1 bit): 1
    for (int i = 1; i < 16; ++i) c.put(1, 2);
    c.put(1, 1);                    // alpha index pixel 0: 1
    for (int i = 1; i < 16; ++i) c.put(2, 2);
    REQUIRE(c.pos == 128);
    // Colour weight 21: R = (43*255 + 32) >> 6 = 171; G = 129; B = 0.
    // Alpha weight 43 (index 2): (21*16 + 43*240 + 32) >> 6 = 167; weight 21: (43*16 + 21*240 + 32) >> 6 = 90.
    // Rotation 1 swaps R and A.
    Image m5 = decode_one(PixelFormat::bc7, std::vector<uint8_t>(c.bytes, c.bytes + 16));
    CHECK(px(m5, 0, 0) == std::vector<int>{90, 129, 0, 171});
    CHECK(px(m5, 1, 0) == std::vector<int>{167, 129, 0, 171});

    // First byte 0: reserved mode, all channels 0.
    std::vector<uint8_t> reserved(16, 0xFF);
    reserved[0] = 0;
    Image r = decode_one(PixelFormat::bc7, reserved);
    CHECK(px(r, 1, 1) == std::vector<int>{0, 0, 0, 0});
}

TEST_CASE("bc6h: untransformed and transformed endpoints, unsigned and signed") {
    auto pix = [](const Image& img, uint32_t i) {
        return std::vector<float>{img.f32[3 * i], img.f32[3 * i + 1], img.f32[3 * i + 2]};
    };
    // Mode 11 (code 00011): one subset, raw 10-bit endpoints, 4-bit indices.
    test::BlockBits b;
    b.put(0x03, 5);
    b.put(0, 10).put(512, 10).put(0, 10);     // E0 = (0, 512, 0)
    b.put(1023, 10).put(0, 10).put(0, 10);    // E1 = (1023, 0, 0)
    b.put(0, 3);
    for (int i = 1; i < 15; ++i) b.put(0, 4);
    b.put(15, 4);                             // pixel 15: weight 64
    REQUIRE(b.pos == 128);
    const std::vector<uint8_t> blk(b.bytes, b.bytes + 16);
    // Unsigned: 512 -> ((512 << 16) + 0x8000) >> 10 = 32800; 1023 (max) -> 0xFFFF.
    // Pixel 0: G = (32800*31) >> 6 = 15887 = half 0x3E0F = 1 + 527/1024.
    // Pixel 15: R = (0xFFFF*31) >> 6 = 0x7BFF = 65504.
    Image u = decode_one(PixelFormat::bc6h_uf16, blk);
    REQUIRE(u.is_float);
    REQUIRE(u.channels == 3);
    CHECK(pix(u, 0) == std::vector<float>{0.0f, 1.5146484375f, 0.0f});
    CHECK(pix(u, 15) == std::vector<float>{65504.0f, 0.0f, 0.0f});
    // Signed: 512 as 10-bit is -512, |v| >= 511 -> -0x7FFF; 1023 is -1 -> -(((1 << 15) + 0x4000) >> 9) = -96.
    // Pixel 0: G = (-32767*64 + 32) >> 6 = -32767 -> -((32767*31) >> 5) = -31743 -> half 0xFBFF = -65504.
    // Pixel 15: R = (-96*64 + 32) >> 6 = -96 -> -((96*31) >> 5) = -93 -> half 0x805D = -93 * 2^-24.
    Image s = decode_one(PixelFormat::bc6h_sf16, blk);
    CHECK(pix(s, 0) == std::vector<float>{0.0f, -65504.0f, 0.0f});
    CHECK(pix(s, 15) == std::vector<float>{std::ldexp(-93.0f, -24), 0.0f, 0.0f});

    // Mode 12 (code 00111): 11-bit base, 9-bit deltas. w.r = 1, delta r = -2 -> x.r = (1 - 2) & 0x7FF = 0x7FF.
    // Bit layout: r0[9:0] g0[9:0] b0[9:0] r1[8:0] r0[10] g1[8:0] g0[10] b1[8:0] b0[10].
    test::BlockBits t;
    t.put(0x07, 5);
    t.put(1, 10).put(0, 10).put(0, 10);
    t.put(0x1FE, 9).put(0, 1);
    t.put(0, 9).put(0, 1);
    t.put(0, 9).put(0, 1);
    t.put(0, 3);
    for (int i = 1; i < 15; ++i) t.put(0, 4);
    t.put(15, 4);
    REQUIRE(t.pos == 128);
    const std::vector<uint8_t> tblk(t.bytes, t.bytes + 16);
    // Unsigned: w.r = 1 -> ((1 << 16) + 0x8000) >> 11 = 48 -> (48*31) >> 6 = 23 -> 23 * 2^-24;
    // x.r = 0x7FF (max) -> 0xFFFF -> 65504.
    Image tu = decode_one(PixelFormat::bc6h_uf16, tblk);
    CHECK(pix(tu, 0)[0] == std::ldexp(23.0f, -24));
    CHECK(pix(tu, 15)[0] == 65504.0f);
    // Signed: x.r = 0x7FF sign-extends to -1 -> -(((1 << 15) + 0x4000) >> 10) = -48
    // -> -((48*31) >> 5) = -46 -> -46 * 2^-24; w.r = 1 -> 48 -> 46 * 2^-24.
    Image ts = decode_one(PixelFormat::bc6h_sf16, tblk);
    CHECK(pix(ts, 0)[0] == std::ldexp(46.0f, -24));
    CHECK(pix(ts, 15)[0] == std::ldexp(-46.0f, -24));

    // Reserved mode code 10011: all channels 0.
    std::vector<uint8_t> reserved(16, 0xFF);
    reserved[0] = 0x13;
    Image r = decode_one(PixelFormat::bc6h_uf16, reserved);
    CHECK(pix(r, 5) == std::vector<float>{0.0f, 0.0f, 0.0f});
}

TEST_CASE("uncompressed formats") {
    // B5G5R5A1 0x8000 | 31 << 10 | 16 << 5 | 1: R 255, G (16 << 3 | 16 >> 2) = 132, B (1 << 3) = 8, A 255.
    const uint16_t v555 = 0x8000 | (31 << 10) | (16 << 5) | 1;
    CHECK(px(decode_one(PixelFormat::b5g5r5a1, {uint8_t(v555), uint8_t(v555 >> 8)}, 1, 1), 0, 0) ==
          std::vector<int>{255, 132, 8, 255});
    // B4G4R4A4 0x5A3C: A 5*17, R 10*17, G 3*17, B 12*17.
    CHECK(px(decode_one(PixelFormat::b4g4r4a4, {0x3C, 0x5A}, 1, 1), 0, 0) == std::vector<int>{170, 51, 204, 85});
    // B5G6R5 0xFFE0: yellow.
    CHECK(px(decode_one(PixelFormat::b5g6r5, {0xE0, 0xFF}, 1, 1), 0, 0) == std::vector<int>{255, 255, 0});
    // A8 samples as (0, 0, 0, a).
    CHECK(px(decode_one(PixelFormat::a8, {77}, 1, 1), 0, 0) == std::vector<int>{0, 0, 0, 77});
    // B8G8R8X8 bytes (1, 2, 3, 4) -> RGB (3, 2, 1); 24-bit B8G8R8 (5, 6, 7) -> (7, 6, 5).
    // (Not compared with Pillow: Pillow 9.4 reads any alpha-less RGB DDS as 24-bit.)
    CHECK(px(decode_one(PixelFormat::bgrx8, {1, 2, 3, 4}, 1, 1), 0, 0) == std::vector<int>{3, 2, 1});
    CHECK(px(decode_one(PixelFormat::bgr8, {5, 6, 7}, 1, 1), 0, 0) == std::vector<int>{7, 6, 5});
    // B8G8R8A8 bytes (1, 2, 3, 4) -> RGBA (3, 2, 1, 4).
    CHECK(px(decode_one(PixelFormat::bgra8, {1, 2, 3, 4}, 1, 1), 0, 0) == std::vector<int>{3, 2, 1, 4});
    // R16G16B16A16_FLOAT: halves 0x3C00 = 1, 0xC000 = -2, 0x3800 = 0.5, 0x7BFF = 65504.
    Image f = decode_one(PixelFormat::rgba16f, {0x00, 0x3C, 0x00, 0xC0, 0x00, 0x38, 0xFF, 0x7B}, 1, 1);
    REQUIRE(f.is_float);
    CHECK(f.f32 == std::vector<float>{1.0f, -2.0f, 0.5f, 65504.0f});
    // Half subnormal 0x0001 = 2^-24, negative zero, infinity.
    CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));
    CHECK(std::signbit(half_to_float(0x8000)));
    CHECK(std::isinf(half_to_float(0x7C00)));
    // to_unorm8_clamped: clamp, x255, truncate.
    Image g = to_unorm8_clamped(f);
    CHECK(g.u8 == std::vector<uint8_t>{255, 0, 127, 255});
}

TEST_CASE("dds: cubemaps, arrays, volumes and legacy headers locate every surface") {
    // A DX10 cube array of 2 x 6 faces, 8x8 BC1 with 4 mips: each face is 32+8+8+8 = 56 B.
    test::DdsSpec s;
    s.width = s.height = 8;
    s.mips = 4;
    s.dxgi = 71;
    s.misc_flag = 4;
    s.array_size = 2;
    auto cube = test::make_dds(s, std::vector<uint8_t>(12 * 56, 0));
    auto d = parse_dds(cube);
    REQUIRE(d);
    CHECK(d->cubemap);
    CHECK(d->layers == 12);
    CHECK(d->surfaces.size() == 48);
    REQUIRE(d->surface(3, 11));
    CHECK(d->surface(3, 11)->offset == 148 + 11 * 56 + 48);
    CHECK(d->surface(0, 12) == nullptr);
    CHECK(d->surface(4, 0) == nullptr);
    // Legacy cubemap: caps2 0x200 | all six face bits.
    test::DdsSpec l;
    l.width = l.height = 4;
    l.fourcc = test::fourcc_code("DXT5");
    l.caps2 = 0xFE00;
    auto lfile = test::make_dds(l, std::vector<uint8_t>(6 * 16, 0));
    auto lc = parse_dds(lfile);
    REQUIRE(lc);
    CHECK(lc->layers == 6);
    // A volume: 4x4x4 RGBA8 with 3 mips: 4*4*4*4 + 2*2*2*4 + 1*1*1*4 = 256 + 32 + 4 bytes.
    test::DdsSpec v;
    v.width = v.height = v.depth = 4;
    v.mips = 3;
    v.dxgi = 28;
    v.resource_dimension = 4;
    std::vector<uint8_t> vol(292);
    for (size_t i = 0; i < vol.size(); ++i) vol[i] = uint8_t(i);
    auto vfile = test::make_dds(v, vol);  // Dds views its bytes: keep them alive
    auto vd = parse_dds(vfile);
    REQUIRE(vd);
    CHECK(vd->depth == 4);
    CHECK(vd->surfaces[1].size == 32);
    auto slice2 = decode_surface(*vd, 0, 0, 2);
    REQUIRE(slice2);
    CHECK(slice2->u8[0] == 128);  // slice 2 starts 2 * 64 bytes into the mip
    CHECK_FALSE(decode_surface(*vd, 0, 0, 4));
}

// ---------------------------------------------------------------------------------------
// Truncation and errors

namespace {
std::vector<uint8_t> small_tpf() {
    test::DdsSpec a;
    a.width = a.height = 8;
    a.mips = 2;
    a.fourcc = test::fourcc_code("DXT1");
    test::DdsSpec b;
    b.width = b.height = 4;
    b.dxgi = 98;
    std::vector<test::TpfTextureSpec> t(2);
    t[0].name = "tex_a";
    t[0].mipmaps = 2;
    t[0].dds = test::make_dds(a, std::vector<uint8_t>(40, 0x55));
    t[0].float_struct = true;
    t[0].float_unk = 7;
    t[0].floats = {1.0f, 2.5f};
    t[1].name = "tex_b";
    t[1].format = 102;
    t[1].dds = test::make_dds(b, std::vector<uint8_t>(16, 0x40));
    return test::make_tpf(t);
}
}  // namespace

TEST_CASE("tpf: the small fixture reads back") {
    auto bytes = small_tpf();
    auto tpf = read_tpf(bytes);
    REQUIRE_MESSAGE(tpf, (tpf ? "" : tpf.error().to_string()));
    REQUIRE(tpf->textures.size() == 2);
    CHECK(tpf->textures[0].name == "tex_a");
    CHECK(tpf->textures[0].has_float_struct);
    CHECK(tpf->textures[0].floats.unk == 7);
    CHECK(tpf->textures[0].floats.values == std::vector<float>{1.0f, 2.5f});
    CHECK(tpf->textures[1].format == 102);
    CHECK(tpf->data_size == tpf->textures[0].dds.size() + tpf->textures[1].dds.size());
    auto d = parse_dds(tpf->textures[1].dds);
    REQUIRE(d);
    CHECK(d->format == PixelFormat::bc7);
    // Shift-JIS names (encoding 0): ASCII bytes read as themselves.
    test::TpfTextureSpec t;
    t.name = "sjis_name";
    t.dds = tpf->textures[1].dds.size() ? std::vector<uint8_t>(tpf->textures[1].dds.begin(), tpf->textures[1].dds.end())
                                         : std::vector<uint8_t>{};
    auto sj = test::make_tpf({t}, 0);
    auto sjt = read_tpf(sj);
    REQUIRE(sjt);
    CHECK(sjt->textures[0].name == "sjis_name");
}

TEST_CASE("tpf: truncation at every length fails cleanly") {
    auto bytes = small_tpf();
    for (size_t n = 0; n < bytes.size(); ++n) {
        CAPTURE(n);
        auto r = read_tpf(Bytes(bytes.data(), n));
        REQUIRE_FALSE(r);
        CHECK(r.error().offset <= n);
    }
    auto tpf = read_tpf(bytes);
    REQUIRE(tpf);
    for (const auto& t : tpf->textures) {
        for (size_t n = 0; n < t.dds.size(); ++n) {
            CAPTURE(n);
            auto r = parse_dds(t.dds.subspan(0, n));
            REQUIRE_FALSE(r);
            CHECK(r.error().offset <= n);
        }
    }
}

namespace {
void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
std::string tpf_error(std::vector<uint8_t> b) {
    auto r = read_tpf(b);
    return r ? std::string("(no error)") : r.error().field + ": " + r.error().reason;
}
std::string dds_error(const std::vector<uint8_t>& b) {
    auto r = parse_dds(b);
    return r ? std::string("(no error)") : r.error().field + ": " + r.error().reason;
}
}  // namespace

TEST_CASE("tpf: one test per error message") {
    const auto good = small_tpf();
    // Entry 0 starts at 0x10: data offset, size, format/type/mips/flags1, name offset, has floats.
    auto b = good;
    b[0] = 'X';
    CHECK(tpf_error(b) == "tpf.header.magic: bad magic: expected \"TPF\\0\", found \"XPF\\0\"");
    CHECK(tpf_error({'T', 'P', 'F', 0, 1}) == "tpf.header.data_size: truncated: needs 4 B, 1 B left");
    b = good;
    put32(b, 0x08, 0xFFFFFFFF);
    CHECK(tpf_error(b) == "tpf.header.texture_count: -1 is out of range 0..65536");
    b = good;
    put32(b, 0x08, 1000);
    CHECK(tpf_error(b).rfind("tpf.textures: 1000 x 20 B exceeds", 0) == 0);
    b = good;
    b[0x0C] = 4;
    CHECK(tpf_error(b) ==
          "tpf.header.platform: console TPF (platform 4, PS4) is not supported: only PC TPFs hold complete DDS files");
    b = good;
    b[0x0E] = 9;
    CHECK(tpf_error(b) == "tpf.header.encoding: unknown name encoding 9 (1 = UTF-16, 0 or 2 = Shift-JIS)");
    b = good;
    put32(b, 0x14, 0x80000000);
    CHECK(tpf_error(b) == "tpf.texture.data_size: negative size -2147483648");
    b = good;
    b[0x1B] = 2;
    CHECK(tpf_error(b) == "tpf.texture.flags1: DCP_EDGE-compressed texture data (flags1 2) is not supported on PC");
    b = good;
    put32(b, 0x20, 5);
    CHECK(tpf_error(b) == "tpf.texture.has_float_struct: expected 0 or 1, found 5");
    b = good;
    put32(b, 0x28, 6);
    CHECK(tpf_error(b) == "tpf.texture.floats.byte_length: 6 is not a non-negative multiple of 4");
    b = good;
    put32(b, 0x28, 0x10000);
    CHECK(tpf_error(b).rfind("tpf.texture.floats.values: 16384 x 4 B exceeds", 0) == 0);
    b = good;
    put32(b, 0x10, 0xFFFFFF00);
    CHECK(tpf_error(b).rfind("tpf.texture.data: range 0xFFFFFF00+", 0) == 0);
    b = good;
    put32(b, 0x1C, 0xFFFFFF);
    CHECK(tpf_error(b) == "tpf.texture.name: string offset 0xFFFFFF is past the end");
    // An unterminated name: point the name at the last byte of the file (non-zero DDS data).
    b = good;
    b.back() = 0x41;
    b.push_back(0x41);
    put32(b, 0x1C, uint32_t(b.size() - 2));
    CHECK(tpf_error(b) == "tpf.texture.name: unterminated UTF-16 string");
}

TEST_CASE("dds: one test per error message") {
    test::DdsSpec s;
    s.width = s.height = 8;
    s.fourcc = test::fourcc_code("DXT1");
    const auto good = test::make_dds(s, std::vector<uint8_t>(32, 0));
    REQUIRE(dds_error(good) == "(no error)");
    auto b = good;
    b[0] = 'X';
    CHECK(dds_error(b) == "dds.magic: bad magic: expected \"DDS \", found \"XDS \"");
    b = good;
    put32(b, 0x04, 100);
    CHECK(dds_error(b) == "dds.header.size: expected 0x7C, found 0x64");
    b = good;
    put32(b, 0x4C, 0);
    CHECK(dds_error(b) == "dds.pixel_format.size: expected 0x20, found 0x0");
    CHECK(dds_error(std::vector<uint8_t>(good.begin(), good.begin() + 100)) ==
          "dds.pixel_format.b_mask: truncated: needs 4 B, 0 B left");
    b = good;
    put32(b, 0x54, test::fourcc_code("ZZZZ"));
    CHECK(dds_error(b) == "dds.pixel_format.fourcc: unsupported FourCC \"ZZZZ\"");
    b = good;
    put32(b, 0x50, 0x40);
    put32(b, 0x58, 16);
    CHECK(dds_error(b) == "dds.pixel_format.flags: unsupported pixel format: flags 0x40, 16 bits, masks 0x0/0x0/0x0/0x0");
    b = good;
    put32(b, 0x10, 0);
    CHECK(dds_error(b) == "dds.header.width: 0 px is out of range 1..65536");
    b = good;
    put32(b, 0x0C, 70000);
    CHECK(dds_error(b) == "dds.header.height: 70000 px is out of range 1..65536");
    b = good;
    put32(b, 0x1C, 5);
    CHECK(dds_error(b) == "dds.header.mip_count: 5 mips exceed the 4 a 8 px texture can have");
    b = good;
    put32(b, 0x70, 0x200000);
    CHECK(dds_error(b) == "dds.header.depth: 0 is out of range 1..65536");
    b = good;
    b.resize(b.size() - 1);
    CHECK(dds_error(b) == "dds.surfaces: layer 0 mip 0 (8 x 8 BC1) needs 32 B at 0x80, the file has 159 B");

    test::DdsSpec x;
    x.width = x.height = 4;
    x.dxgi = 45;
    CHECK(dds_error(test::make_dds(x, std::vector<uint8_t>(16, 0))) == "dds.dx10.dxgi_format: unsupported DXGI format 45");
    x.dxgi = 98;
    x.array_size = 0;
    CHECK(dds_error(test::make_dds(x, std::vector<uint8_t>(16, 0))) == "dds.dx10.array_size: 0 is out of range 1..12288");
    x.array_size = 12288;
    x.misc_flag = 4;
    CHECK(dds_error(test::make_dds(x, std::vector<uint8_t>(16, 0))) == "dds.dx10.array_size: 73728 layers exceed 12288");
    x.array_size = 2000;
    CHECK(dds_error(test::make_dds(x, std::vector<uint8_t>(16, 0))) == "dds.surfaces: 12000 x 1 B exceeds 16 B left");
}

TEST_CASE("decode: one test per error message") {
    auto e = [](const Result<Image>& r) { return r ? std::string("(no error)") : r.error().field + ": " + r.error().reason; };
    const std::vector<uint8_t> eight(8, 0);
    CHECK(e(decode_pixels(PixelFormat::unknown, eight, 4, 4)) == "texture.format: cannot decode an unknown pixel format");
    CHECK(e(decode_pixels(PixelFormat::bc1, eight, 0, 4)) == "texture.size: empty image (0 x 4)");
    CHECK(e(decode_pixels(PixelFormat::bc1, eight, 8192, 8193)) ==
          "texture.size: 8192 x 8193 exceeds the decode cap of 67108864 pixels");
    CHECK(e(decode_pixels(PixelFormat::bc1, eight, 8, 4)) == "texture.data: BC1 8 x 4 needs 16 B, 8 B given");
    test::DdsSpec s;
    s.fourcc = test::fourcc_code("DXT1");
    auto file = test::make_dds(s, eight);
    auto d = parse_dds(file);
    REQUIRE(d);
    CHECK(e(decode_surface(*d, 1, 0)) == "dds.surface: no surface mip 1 layer 0 (the DDS has 1 mips x 1 layers)");
    CHECK(e(decode_surface(*d, 0, 0, 1)) == "dds.surface: no slice 1 (the mip has 1)");
}

// ---------------------------------------------------------------------------------------
// PNG and HDR

TEST_CASE("png: 8-bit L, LA, RGB, RGBA and 16-bit images read back in Pillow") {
    const fs::path dir = test::scratch_dir("png_roundtrip");
    test::Lcg rng{99};
    std::vector<std::vector<uint8_t>> pixels;
    for (uint32_t ch = 1; ch <= 4; ++ch) {
        std::vector<uint8_t> p(size_t(37) * 23 * ch);
        // Smooth gradients plus noise exercise every filter type.
        for (size_t i = 0; i < p.size(); ++i) p[i] = uint8_t((i / ch) % 37 * 3 + (i / (37 * ch)) * 5 + (rng.next_byte() & 7));
        auto png = image::encode_png(p.data(), 37, 23, ch);
        REQUIRE(png);
        write_bytes(dir / ("c" + std::to_string(ch) + ".png"), *png);
        // Every filter at the libdeflate levels from stored to smallest (c<ch>.png: the default, drape's fast deflate).
        for (int filter = 0; filter < 6; ++filter)
            for (int level : {0, 1, 6, 12}) {
                image::PngOptions o;
                o.filter = image::PngFilter(filter);
                o.level = level;
                o.deflate = image::PngDeflate::libdeflate;
                auto v = image::encode_png(p.data(), 37, 23, ch, o);
                REQUIRE(v);
                write_bytes(dir / ("c" + std::to_string(ch) + "_f" + std::to_string(filter) + "_l" + std::to_string(level) + ".png"), *v);
            }
        pixels.push_back(std::move(p));
    }
    // 16-bit RGB: Pillow 9.4 opens it as 8-bit RGB holding each sample's high byte.
    std::vector<uint16_t> p16(size_t(5) * 3 * 3);
    for (size_t i = 0; i < p16.size(); ++i) p16[i] = uint16_t(i * 2311 + 17);
    auto png16 = image::encode_png16(p16.data(), 5, 3, 3);
    REQUIRE(png16);
    write_bytes(dir / "rgb16.png", *png16);
    run_pillow(dir);
    const char* modes[4] = {"L", "LA", "RGB", "RGBA"};
    for (uint32_t ch = 1; ch <= 4; ++ch) {
        PilImage p = read_pil(dir / ("c" + std::to_string(ch) + ".png"));
        REQUIRE(p.ok);
        CHECK(p.mode == modes[ch - 1]);
        CHECK(p.width == 37);
        CHECK(p.height == 23);
        CHECK(p.data == pixels[ch - 1]);
        for (int filter = 0; filter < 6; ++filter)
            for (int level : {0, 1, 6, 12}) {
                CAPTURE(filter);
                CAPTURE(level);
                PilImage v = read_pil(dir / ("c" + std::to_string(ch) + "_f" + std::to_string(filter) + "_l" + std::to_string(level) + ".png"));
                REQUIRE(v.ok);
                CHECK(v.mode == modes[ch - 1]);
                CHECK(v.data == pixels[ch - 1]);
            }
    }
    PilImage p = read_pil(dir / "rgb16.png");
    REQUIRE(p.ok);
    REQUIRE(p.data.size() == p16.size());
    for (size_t i = 0; i < p16.size(); ++i) CHECK(p.data[i] == uint8_t(p16[i] >> 8));
    auto bad = image::encode_png(pixels[0].data(), 0, 1, 1);
    CHECK_FALSE(bad);
    CHECK(bad.error().reason == "PNG size 0 x 1 is out of range");
    CHECK(image::encode_png(pixels[0].data(), 1, 1, 5).error().reason == "5 channels (1..4 allowed)");
}

TEST_CASE("hdr: RGBE encoding of float images") {
    Image img;
    img.width = 3;
    img.height = 1;
    img.channels = 3;
    img.is_float = true;
    // 1.0 = 0.5 * 2^1 -> mantissa 128, exponent 1 + 128; 0.25 = 0.5 * 2^-1 -> 128 at exponent 127;
    // 3.0 = 0.75 * 2^2 -> 192 at 130, with 1.5 -> 96 at the same exponent; zero -> all 0.
    img.f32 = {1.0f, 0.0f, 0.0f, 0.25f, 0.25f, 0.25f, 3.0f, 1.5f, -1.0f};
    auto hdr = image::encode_hdr(img);
    REQUIRE(hdr);
    const std::string head = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 3\n";
    REQUIRE(hdr->size() == head.size() + 12);
    CHECK(std::string(hdr->begin(), hdr->begin() + ptrdiff_t(head.size())) == head);
    std::vector<int> px(hdr->begin() + ptrdiff_t(head.size()), hdr->end());
    CHECK(px == std::vector<int>{128, 0, 0, 129, 128, 128, 128, 127, 192, 96, 0, 130});
    Image u8;
    u8.width = u8.height = 1;
    u8.channels = 3;
    u8.u8 = {1, 2, 3};
    CHECK(image::encode_hdr(u8).error().reason == "a Radiance .hdr needs a float RGB or RGBA image");
}

TEST_CASE("hdr and png: an image whose width x height x channels does not fit a size_t is refused, not wrapped to the buffer's size") {
    // 2^31 x 2^30 pixels x 8 channels is 2^64 samples: wrapped to 0 it matched an empty buffer,
    // and the .hdr writer then reserved 2^63 bytes (std::length_error out of the writer).
    for (uint32_t channels : {4u, 8u}) {
        Image img;
        img.width = 1u << 31;
        img.height = channels == 4 ? 1u << 31 : 1u << 30;
        img.channels = channels;
        img.is_float = true;
        CAPTURE(channels);
        const auto hdr = image::encode_hdr(img);
        REQUIRE_FALSE(hdr);
        CHECK(hdr.error().reason == "pixel buffer size does not match the image size");
        const auto png = image::encode_png(img);
        REQUIRE_FALSE(png);
        CHECK(png.error().reason == "pixel buffer size does not match the image size");
    }
}

TEST_CASE("export: float textures write a 16-bit PNG and an .hdr, bad textures are reported, not fatal") {
    // One BC6H texture (the hand-built mode 11 block) and one texture with a broken DDS.
    test::BlockBits b;
    b.put(0x03, 5).put(0, 10).put(512, 10).put(0, 10).put(1023, 10).put(0, 10).put(0, 10);
    test::DdsSpec s;
    s.dxgi = 95;
    std::vector<test::TpfTextureSpec> t(2);
    t[0].name = "probe\\cube";
    t[0].dds = test::make_dds(s, std::vector<uint8_t>(b.bytes, b.bytes + 16));
    t[1].name = "broken";
    t[1].dds = std::vector<uint8_t>(10, 0);
    auto bytes = test::make_tpf(t);
    auto tpf = read_tpf(bytes);
    REQUIRE(tpf);
    const fs::path dir = test::scratch_dir("tpf_export_float");
    auto ex = image::export_tpf_textures(*tpf, dir);
    REQUIRE(ex);
    REQUIRE(ex->size() == 2);
    CHECK((*ex)[0].file_name == "probe_cube.png");
    CHECK(fs::exists((*ex)[0].png));
    CHECK(fs::exists((*ex)[0].hdr));
    CHECK((*ex)[0].format == "BC6H_UF16");
    auto png = test::load((*ex)[0].png);
    REQUIRE(png.size() > 26);
    CHECK(png[24] == 16);  // IHDR bit depth
    CHECK(png[25] == 2);   // colour type RGB
    CHECK((*ex)[1].png.empty());
    CHECK((*ex)[1].error == "@0x0 dds.magic: bad magic: expected \"DDS \", found \"\\0\\0\\0\\0\"");
}

TEST_CASE("png: an opaque RGBA texture is written as RGB, a translucent one keeps its alpha") {
    Image img;
    img.width = 2;
    img.height = 1;
    img.channels = 4;
    img.u8 = {10, 20, 30, 255, 40, 50, 60, 255};
    auto opaque = image::encode_png(img);
    REQUIRE(opaque);
    CHECK((*opaque)[25] == 2);  // IHDR colour type: RGB
    img.u8[7] = 254;
    auto translucent = image::encode_png(img);
    REQUIRE(translucent);
    CHECK((*translucent)[25] == 6);  // RGBA
    image::PngOptions keep;
    keep.drop_opaque_alpha = false;
    img.u8[7] = 255;
    auto kept = image::encode_png(img, keep);
    REQUIRE(kept);
    CHECK((*kept)[25] == 6);
}
