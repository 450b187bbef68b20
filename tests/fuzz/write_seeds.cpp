// drape_fuzz_seeds: writes the fuzz targets' starting inputs.
//
//   drape_fuzz_seeds OUT_DIR             OUT_DIR/<target>/<seed> for every fuzz target: small valid
//                                        files made by tests/support's writers (and the committed
//                                        synthetic sample game's), so that mutations start past the
//                                        magic and the headers
//   drape_fuzz_seeds --regressions DIR   the hand-built hostile files of tests/fuzz/regressions
//                                        (committed; regenerate them with this when the fixtures change)
//
// No game data: everything here is written by drape's own test writers.
#include <zstd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "dcx_fixtures.h"
#include "drape/anim/anibnd.h"
#include "drape/dcx/dcx.h"
#include "drape/exporters/animation_glb.h"
#include "drape/exporters/cloth_export.h"
#include "drape/exporters/gltf_document.h"
#include "drape/game/containers.h"
#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"
#include "drape/havok/hkx.h"
#include "drcloth_fixtures.h"
#include "flver_writer.h"
#include "game_fixtures.h"
#include "kraken_craft.h"
#include "matbin_fixture.h"
#include "param_fixture.h"
#include "drape/param/param.h"
#include "packfile_writer.h"
#include "ragdoll_fixture.h"
#include "tae_fixture.h"
#include "tpf_fixture.h"

namespace fs = std::filesystem;
using namespace drape;
using Buf = std::vector<uint8_t>;

namespace {

bool g_ok = true;

void write(const fs::path& path, const Buf& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!f) {
        std::fprintf(stderr, "error: cannot write %s\n", path.string().c_str());
        g_ok = false;
    }
}

// A seed whose writer failed is reported and the others still go out.
template <class T>
bool got(const Result<T>& r, const char* what) {
    if (r) return true;
    std::fprintf(stderr, "error: %s: %s\n", what, r.error().to_string().c_str());
    g_ok = false;
    return false;
}

Buf cat(std::initializer_list<Buf> parts) {
    Buf out;
    for (const Buf& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}
Buf le32(uint32_t v) { return {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)}; }
Buf text(const char* s) { return Buf(s, s + std::strlen(s)); }
Buf f32(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return le32(u);
}

// ---- the formats' seeds -------------------------------------------------------------------

// A model: two bones, one material with two textures, one quad skinned to both bones, a dummy.
Buf flver_seed() {
    test::FlverSpec spec;
    spec.nodes = {{"Master", {0, 0, 0}}, {"Spine", {0, 1, 0}, {0, 0.1f, 0}, {1, 1, 1}, 0}};
    spec.materials = {{"body", "C[c9999]_Body.matxml", {{"c9999_body_a.tif", "g_DiffuseTexture"}, {"c9999_body_n.tif", "g_BumpmapTexture"}}}};
    test::FlverMeshSpec mesh;
    mesh.default_node = 1;
    for (int i = 0; i < 4; ++i) {
        test::FlverVertexSpec v;
        v.position = {float(i & 1), float(i >> 1), 0};
        v.normal = {0, 0, -1};
        v.uv = {float(i & 1), float(i >> 1)};
        v.bones = {uint16_t(i >> 1), 0, 0, 0};
        mesh.vertices.push_back(v);
    }
    mesh.indices = {0, 2, 1, 1, 2, 3};
    spec.meshes = {mesh};
    spec.dummies = {{{0, 1.5f, 0}, {0, 0, 1}, {0, 1, 0}, 100, 1, 1}};
    return test::write_flver(spec);
}

// A 4x4 BC1 texture (one block) as DDS.
Buf dds_bc1() { return test::make_dds({4, 4, 1, 0, 0x4, test::fourcc_code("DXT1")}, {0x00, 0xF8, 0x1F, 0x00, 0xE4, 0xE4, 0xE4, 0xE4}); }
// A 4x4 BC7 texture (DX10 header, DXGI 98), mode 6 block.
Buf dds_bc7() {
    test::DdsSpec s;
    s.dxgi = 98;
    return test::make_dds(s, {0x40, 0xFF, 0x01, 0x80, 0xFF, 0x01, 0x80, 0xFF, 0x01, 0, 0, 0, 0, 0, 0, 0});
}
// A 2x2 uncompressed RGBA texture with two mips.
Buf dds_rgba() {
    test::DdsSpec s;
    s.width = s.height = 2;
    s.mips = 2;
    s.pf_flags = 0x41;  // RGB | alpha pixels
    s.bit_count = 32;
    s.masks[0] = 0x00FF0000, s.masks[1] = 0x0000FF00, s.masks[2] = 0x000000FF, s.masks[3] = 0xFF000000;
    return test::make_dds(s, Buf(2 * 2 * 4 + 4, 0x7F));
}
Buf tpf_seed() {
    test::TpfTextureSpec a{"c9999_body_a", 0, 0, 1, 0, dds_bc1()};
    test::TpfTextureSpec b{"c9999_body_n", 102, 0, 1, 0, dds_bc7()};
    return test::make_tpf({a, b});
}

Buf matbin_seed() {
    test::MatbinSpec m;
    m.params = {{"g_DiffuseColor", 11, {0x3F800000, 0x3F000000, 0x3F000000, 0x3F800000}}, {"g_UseAlpha", 0, {1}}, {"g_Layers", 4, {3}}};
    m.samplers = {{"C_DetailBlend__snp_Texture2D_0_AlbedoMap_0", "N:\\GR\\data\\Model\\chr\\c9999\\tex\\c9999_body_a.tif", {1, 1}}};
    return test::make_matbin(m);
}
Buf mtd_seed() {
    test::MtdSpec m;
    m.params = {{"g_DiffuseMapColor", "float3", {0x3F800000, 0x3F800000, 0x3F800000}}, {"g_IsAlpha", "bool", {0}}};
    m.textures = {{"g_DiffuseTexture", "N:\\NTC\\data\\Model\\chr\\c9999\\tex\\c9999_body_a.tif"}};
    return test::make_mtd(m);
}

// Kraken streams that decode (the cases of tests/kraken_errors_test.cpp's valid streams), each
// with the output size they decode to.
std::vector<std::pair<std::string, std::pair<Buf, uint32_t>>> kraken_streams() {
    std::vector<std::pair<std::string, std::pair<Buf, uint32_t>>> out;
    out.push_back({"memset", {{0x8C, 0x06, 0x07, 0xFF, 0xFF, 0x41}, 16}});
    const Buf huffman_table = kraft::list2('a', 'b').bytes;
    const Buf huffman_bits = {0x02, 0x00, 0, 0, 0, 0, 0, 0};
    out.push_back({"huffman", {kraft::block(kraft::array(2, 30, cat({huffman_table, huffman_bits}))), 30}});
    out.push_back({"rle", {kraft::block(kraft::array(3, 15, {0x80, 0x01, 0xFF})), 15}});
    kraft::Lz lz;
    lz.cmds = kraft::stored({0x3C});
    lz.lcodes = kraft::stored({200});
    out.push_back({"lz", {lz.stream(), 225}});
    kraft::Lz many;
    many.cmds = kraft::stored(Buf(20, 0x00));
    out.push_back({"lz_commands", {many.stream(), 48}});
    return out;
}

// The committed synthetic sample game's members (samples/game, written by drape_make_sample).
std::vector<game::Member> sample_members(const char* file) {
    const fs::path path = fs::path(DRAPE_SOURCE_DIR) / "samples/game/chr" / file;
    auto members = game::open_members(path, file, {});
    if (!got(members, file)) return {};
    return std::move(*members);
}
const game::Member* member_ending(const std::vector<game::Member>& members, const std::string& suffix) {
    for (const auto& m : members)
        if (m.name.size() >= suffix.size() && m.name.compare(m.name.size() - suffix.size(), suffix.size(), suffix) == 0) return &m;
    return nullptr;
}

// The sample's cape as drape cloth exports it.
Buf sample_drcloth(const Buf& cloth_tagfile) {
    auto file = havok::read_hkx(cloth_tagfile, {});
    if (!got(file, "c9999_c.hkx")) return {};
    auto cloth = hcl::read_cloth(*file);
    if (!got(cloth, "c9999_c.hkx cloth")) return {};
    cloth_export::Options o;
    o.sdk = file->sdk;
    if (auto anim = havok::read_animation_container(*file)) o.skeletons = anim->skeletons;
    auto bytes = cloth_export::export_cloth(*cloth, o, nullptr);
    if (!got(bytes, "c9999 .drcloth")) return {};
    return std::move(*bytes);
}

// gltf_fuzz programs (see its header): opcode bytes and operands.
Buf gltf_program() {
    Buf p;
    auto op = [&](std::initializer_list<uint8_t> b) { p.insert(p.end(), b); };
    op({1, 0x84, 6, 0});  // add_accessor(float, type 0x84 % 5 = VEC3, bit 7: min/max) of 6 floats
    for (float v : {0.0f, 1.0f, 2.0f, NAN, INFINITY, -1.0f}) p = cat({p, f32(v)});
    op({8, 4, 'c', 'a', 'p', 'e', 0, 4, 'r', 'o', 'o', 't'});  // a mesh "cape" on accessor 0, its node "root"
    op({9, 0, 1, 6, 0});   // add_morph_targets(mesh 0): one target of 6 floats
    p.insert(p.end(), 24, 0);
    op({0});               // ... without a name
    op({0, 4, 'v', 'i', 'e', 'w', 0, 0});   // add_view of 4 bytes, no target, no name
    op({6, 3, 'a', 'c', 'c', 2, 0, 2});     // a text element named "acc", count 2, VEC3
    op({5, 2, 2, 'a', 'b', 1, 'c', 0});     // a view written in two pieces
    op({10, 4, 'r', 'o', 'o', 't'});        // node_by_name("root")
    return p;
}

void write_seeds(const fs::path& out) {
    // Containers: a BND4 of a few members, then that binder in every DCX and DCP form.
    const Buf flver = flver_seed(), tpf = tpf_seed(), matbin = matbin_seed(), mtd = mtd_seed();
    const auto chr = sample_members("c9999.chrbnd.dcx"), anibnd = sample_members("c9999.anibnd.dcx");
    const game::Member* cloth_hkx = member_ending(chr, "_c.hkx");
    const game::Member* skeleton_hkx = member_ending(anibnd, "skeleton.hkx");
    const game::Member* clip_hkx = member_ending(anibnd, "a000_002000.hkx");
    const Buf packfile = test::make_skeleton_packfile("Skeleton", {"Master", "Pelvis", "Spine"});
    const Buf binder = test::make_bnd4({{"N:\\GR\\data\\INTERROOT_win64\\chr\\c9999\\c9999.flver", flver},
                                        {"N:\\GR\\data\\INTERROOT_win64\\chr\\c9999\\c9999.tpf", tpf},
                                        {"N:\\GR\\data\\INTERROOT_win64\\chr\\c9999\\c9999.txt", text("drape fuzz seed")}});
    write(out / "bnd4_fuzz/three_members.bnd", binder);
    write(out / "bnd4_fuzz/empty.bnd", test::make_bnd4({}));
    dcx::EncodeOptions zstd;
    zstd.compression = dcx::Compression::zstd;
    if (auto d = dcx::compress(binder); got(d, "DCX_DFLT")) write(out / "dcx_fuzz/binder.dflt.dcx", *d);
    if (auto d = dcx::compress(binder, zstd); got(d, "DCX_ZSTD")) write(out / "dcx_fuzz/binder.zstd.dcx", *d);
    write(out / "dcx_fuzz/binder.edge.dcx", test::make_dcx_edge(binder));
    write(out / "dcx_fuzz/binder.dcp_dflt", test::make_dcp_dflt(binder));
    write(out / "dcx_fuzz/binder.dcp_edge", test::make_dcp_edge(binder));
    for (const auto& [name, stream] : kraken_streams()) {
        write(out / ("dcx_fuzz/" + name + ".krak.dcx"), test::make_dcx_krak(stream.first, stream.second));
        write(out / ("kraken_fuzz/" + name), cat({le32(stream.second), stream.first}));
    }

    write(out / "flver_fuzz/quad.flver", flver);
    write(out / "tpf_fuzz/two.tpf", tpf);
    write(out / "tpf_fuzz/bc1.dds", dds_bc1());
    write(out / "tpf_fuzz/bc7.dds", dds_bc7());
    write(out / "tpf_fuzz/rgba.dds", dds_rgba());
    write(out / "matbin_fuzz/body.matbin", matbin);
    write(out / "matbin_fuzz/body.mtd", mtd);
    write(out / "matbin_fuzz/materials.matbinbnd", test::make_bnd4({{"N:\\GR\\data\\Material\\body.matbin", matbin}, {"N:\\body.mtd", mtd}}));
    write(out / "packfile_fuzz/skeleton.hkx", packfile);
    {
        // PARAM: both header forms, a table shaped like Elden Ring's NpcParam (its layout's row
        // size) and an encrypted regulation of a binder of them.
        test::ParamSpec small;
        small.rows = {{10, "first", Buf(12, 1)}, {20, "", Buf(12, 2)}};
        const Buf wide = test::make_param(small);
        small.long_form = false;
        const Buf narrow = test::make_param(small);
        test::ParamSpec npc;
        npc.type = "NPC_PARAM_ST";
        if (auto l = param::find_layout(param::Game::elden_ring, "NPC_PARAM_ST", 11210015))
            npc.rows = {{50000000, "c5000", Buf(l->size, 0xFF)}, {50000010, "c5000 b", Buf(l->size, 0)}};
        const Buf npc_table = test::make_param(npc);
        write(out / "param_fuzz/wide.param", wide);
        write(out / "param_fuzz/narrow.param", narrow);
        write(out / "param_fuzz/npc.param", npc_table);
        const Buf bnd = test::make_bnd4({{"N:\\GR\\data\\Param\\param\\GameParam\\NpcParam.param", npc_table},
                                         {"N:\\GR\\data\\Param\\param\\GameParam\\Small.param", wide}});
        write(out / "param_fuzz/gameparam.parambnd", bnd);
        write(out / "param_fuzz/regulation.bin", test::encrypt_regulation(bnd, test::elden_ring_regulation_key(), Buf(16, 0x42)));
    }
    // TAE: the small fixture (two entries, groups, a borrowing entry), a DS3-style one, and a
    // binder of a TAE with a clip of its category.
    const Buf tae = test::make_tae(test::small_tae_spec());
    write(out / "tae_fuzz/small.tae", tae);
    {
        auto ds3 = test::small_tae_spec();
        ds3.version = 0x1000C;
        ds3.event_bank = 0x15;
        ds3.id = 2023;
        write(out / "tae_fuzz/ds3.tae", test::make_tae(ds3));
    }
    if (clip_hkx)
        write(out / "tae_fuzz/with_clip.anibnd",
              test::make_bnd4({{"N:\\GR\\data\\INTERROOT_win64\\chr\\c9999\\hkx\\a000_003000.hkx", clip_hkx->bytes},
                               {"N:\\GR\\data\\INTERROOT_win64\\chr\\c9999\\tae\\c9999.tae", tae}}));

    // Havok: the sample's tagfiles (cloth, skeleton, clip).
    if (cloth_hkx) write(out / "tagfile_fuzz/cloth.hkx", cloth_hkx->bytes);
    if (skeleton_hkx) write(out / "tagfile_fuzz/skeleton.hkx", skeleton_hkx->bytes);
    if (clip_hkx) write(out / "tagfile_fuzz/clip.hkx", clip_hkx->bytes);
    // The minimal ragdoll (hknpRagdollData, capsules, mass properties, a ragdoll constraint).
    if (auto r = test::ragdoll_tagfile(); got(r, "ragdoll tagfile")) write(out / "tagfile_fuzz/ragdoll.hkx", *r);

    // The game walker: a chrbnd-like DCX of the model, textures and cloth.
    Buf walk_binder = test::make_bnd4({{"c9999.flver", flver}, {"c9999.tpf", tpf}, {"c9999_c.hkx", cloth_hkx ? cloth_hkx->bytes : Buf{}}});
    if (auto d = dcx::compress(walk_binder); got(d, "game binder")) write(out / "game_walk_fuzz/c9999.chrbnd.dcx", *d);
    write(out / "game_walk_fuzz/c9999.flver", flver);
    write(out / "game_walk_fuzz/c9999.tpf", tpf);

    // Cloth: the small fixture (raw and in a zstd frame) and the sample's cape.
    const Buf small = test::small_drcloth();
    const Buf sample = cloth_hkx ? sample_drcloth(cloth_hkx->bytes) : Buf{};
    for (const char* target : {"drcloth_fuzz", "runtime_fuzz", "runtime_step_fuzz"}) {
        write(out / target / "small.drcloth", small);
        if (!sample.empty()) write(out / target / "c9999.drcloth", sample);
    }
    // drcloth_fuzz also reads a .drcloth in a zstd frame (drape cloth --zstd writes them).
    Buf framed(ZSTD_compressBound(small.size()));
    framed.resize(ZSTD_compress(framed.data(), framed.size(), small.data(), small.size(), 3));
    write(out / "drcloth_fuzz/small.drcloth.zst", framed);

    // Animation (byte 0 selects the path): the anibnd, the skeleton packfile, a spline header
    // with one block, and a .glb with the sample's clip.
    const fs::path anibnd_path = fs::path(DRAPE_SOURCE_DIR) / "samples/game/chr/c9999.anibnd.dcx";
    std::ifstream f(anibnd_path, std::ios::binary);
    const Buf anibnd_bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    write(out / "animation_fuzz/anibnd", cat({{0}, anibnd_bytes}));
    write(out / "animation_fuzz/packfile", cat({{0}, packfile}));
    write(out / "animation_fuzz/spline", cat({{1}, {3, 1, 30, 0, 30, 0, 1, 0}, le32(0x3D088889), {0, 0}, Buf(64, 0x11)}));
    if (auto set = anim::read_clip_set(anibnd_bytes, "c9999.anibnd.dcx"); got(set, "c9999.anibnd.dcx") && !set->skeletons.empty()) {
        if (auto glb = exporters::animation_glb(set->skeletons[0], set->clips); got(glb, "animation glb")) {
            write(out / "animation_fuzz/glb", cat({{2}, *glb}));
            write(out / "gltf_fuzz/animation.glb", cat({{1}, *glb, text("DRAPE-OPS"), gltf_program()}));
        }
    }
    write(out / "gltf_fuzz/program", cat({{0}, gltf_program()}));

    // PNG writer (png_fuzz's header: mode and options, channels, vector path and level, width,
    // height; then the samples).
    auto png = [&](const char* name, uint8_t mode, uint8_t channels, uint32_t w, uint32_t h, const Buf& samples) {
        write(out / "png_fuzz" / name, cat({{mode, channels, 0x04}, le32(w), le32(h), samples}));
    };
    Buf gradient(4 * 4 * 4);
    for (size_t i = 0; i < gradient.size(); ++i) gradient[i] = uint8_t(i * 5);
    png("rgba8", 0x00, 4, 4, 4, gradient);
    png("rgb8_paeth_libdeflate", 0x00 | (5 << 2) | 0x20, 3, 4, 4, gradient);
    png("la16_adaptive", 0x01, 2, 4, 4, gradient);
    png("image_rgba8_opaque", 0x02 | 0x80, 4, 2, 2, Buf(16, 0xFF));
    Buf floats;
    for (float v : {0.5f, 2.0f, NAN, -INFINITY, 1e30f, 0.0f, 1.0f, 0.25f, 0.125f, 3.0f, 0.75f, -0.0f}) floats = cat({floats, f32(v)});
    png("image_rgb_float", 0x03, 3, 2, 2, floats);
}

bool write_regressions(const fs::path& dir) {
    for (const auto& [name, bytes] : test::drcloth_unions_without_table()) write(dir / "drcloth" / name, bytes);
    write(dir / "drcloth/shadow_larger_than_its_buffer.drcloth", test::small_drcloth_with_larger_shadow(12));
    write(dir / "bnd4/member_claiming_8_gib.bnd", test::make_bnd4_member_claiming(uint64_t(8) << 30));
    return g_ok;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "--regressions") == 0) return write_regressions(argv[2]) ? 0 : 1;
    if (argc == 2 && argv[1][0] != '-') {
        write_seeds(argv[1]);
        return g_ok ? 0 : 1;
    }
    std::fprintf(stderr, "usage: drape_fuzz_seeds OUT_DIR | drape_fuzz_seeds --regressions DIR\n");
    return 2;
}
