#include "sample_game.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "corpus.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/io/file.h"
#include "flver_writer.h"
#include "tagfile_writer.h"
#include "tpf_fixture.h"

namespace drape::test {

namespace {

using havok::Kind;
using Slot = TagfileWriter::Slot;
using V3 = std::array<float, 3>;
using M4 = std::array<float, 16>;  // column-major, as Havok stores hkMatrix4 / hkTransform

constexpr const char* k_root = "N:\\GR\\data\\INTERROOT_win64\\chr\\c9999\\";

// Trigonometry rounded to 2^-20, so that a last-bit difference between libm builds cannot
// change the committed files.
double q20(double x) { return std::round(x * 1048576.0) / 1048576.0; }

// ---- the character ----------------------------------------------------------------------

struct BoneDef {
    const char* name;
    int16_t parent;
    V3 local;  // bind translation, local to the parent (every bind rotation is the identity)
};

// Game space: Y up, the character faces -Z (glTF's +Z after drape's mirror), so +Z is its back.
constexpr BoneDef k_bones[SampleFacts::bones] = {
    {"Master", -1, {0, 0, 0}},          {"Pelvis", 0, {0, 1.0f, 0}},        {"Spine", 1, {0, 0.12f, 0}},
    {"Spine1", 2, {0, 0.2f, 0}},        {"Neck", 3, {0, 0.2f, 0}},          {"Head", 4, {0, 0.1f, 0}},
    {"L_Thigh", 1, {0.1f, -0.05f, 0}},  {"L_Calf", 6, {0, -0.45f, 0}},      {"R_Thigh", 1, {-0.1f, -0.05f, 0}},
    {"R_Calf", 8, {0, -0.45f, 0}},      {"L_UpperArm", 3, {0.22f, 0.14f, 0}}, {"L_Forearm", 10, {0, -0.3f, 0}},
    {"R_UpperArm", 3, {-0.22f, 0.14f, 0}}, {"R_Forearm", 12, {0, -0.3f, 0}},
};
constexpr int k_pelvis = 1, k_spine1 = 3;

V3 bind_position(int bone) {
    V3 p{0, 0, 0};
    for (int b = bone; b >= 0; b = k_bones[b].parent)
        for (int i = 0; i < 3; ++i) p[i] += k_bones[b].local[i];
    return p;
}

// hkPackedVector3: x_i = f32(i32(u16(v[i]) << 16)) * f32bits(u32(u16(v[3])) << 16). The scale is
// the smallest 16-bit-mantissa float that keeps every component within 15 bits.
std::array<int16_t, 4> pack_vector3(const V3& p) {
    const float m = std::max({std::fabs(p[0]), std::fabs(p[1]), std::fabs(p[2]), 1e-6f});
    float needed = m / (32767.0f * 65536.0f);
    uint32_t bits;
    std::memcpy(&bits, &needed, 4);
    if (bits & 0xFFFF) bits = (bits | 0xFFFF) + 1;
    float scale;
    const uint32_t sbits = bits & 0xFFFF0000u;
    std::memcpy(&scale, &sbits, 4);
    std::array<int16_t, 4> v{};
    for (int i = 0; i < 3; ++i) v[size_t(i)] = int16_t(std::clamp(std::lround(p[size_t(i)] / (65536.0f * scale)), -32767l, 32767l));
    v[3] = int16_t(uint16_t(bits >> 16));
    return v;
}

V3 unpack_vector3(const std::array<int16_t, 4>& v) {
    const uint32_t sbits = uint32_t(uint16_t(v[3])) << 16;
    float scale;
    std::memcpy(&scale, &sbits, 4);
    V3 r;
    for (int i = 0; i < 3; ++i) r[size_t(i)] = float(int32_t(uint32_t(uint16_t(v[size_t(i)])) << 16)) * scale;
    return r;
}

// A position the packed vector holds exactly, so that the cloth's skin at the bind pose, its
// rest pose and the mesh agree to the bit.
V3 snap(const V3& p) { return unpack_vector3(pack_vector3(p)); }

float dist(const V3& a, const V3& b) {
    const float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return std::sqrt(dx * dx + dy * dy + dz * dz);
}

struct CapeVertex {
    V3 position, normal;
    uint8_t spine1_weight;  // out of 255; the rest goes to the pelvis
};

struct Character {
    FlverSpec flver;
    std::vector<CapeVertex> cape;
    std::vector<uint16_t> cape_triangles;
};

void add_box(FlverMeshSpec& mesh, const V3& centre, const V3& size, uint16_t bone) {
    // Six faces, four vertices each, outward normals; the triangles wind clockwise seen from
    // outside, as the games store them (the glTF exporter's mirror makes them counter-clockwise).
    for (int face = 0; face < 6; ++face) {
        const int n = face / 2, u = (n + 1) % 3, v = (n + 2) % 3;
        const float sign = face % 2 ? -1.0f : 1.0f;
        V3 normal{0, 0, 0};
        normal[size_t(n)] = sign;
        const uint16_t base = uint16_t(mesh.vertices.size());
        const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
        for (const auto& c : corners) {
            FlverVertexSpec x;
            for (int i = 0; i < 3; ++i) x.position[size_t(i)] = centre[size_t(i)];
            x.position[size_t(n)] += sign * size[size_t(n)] / 2;
            x.position[size_t(u)] += c[0] * size[size_t(u)] / 2;
            x.position[size_t(v)] += c[1] * size[size_t(v)] / 2;
            x.normal = normal;
            x.tangent = {0, 0, 0, 1};
            x.tangent[size_t(u)] = 1;
            x.uv = {(c[0] + 1) / 2, (1 - c[1]) / 2};
            x.bones = {bone, 0, 0, 0};
            x.weights = {1, 0, 0, 0};
            mesh.vertices.push_back(x);
        }
        // Corners go round counter-clockwise about the normal when (u, v, n) is right-handed;
        // pick the order whose geometric normal points inwards (clockwise seen from outside).
        V3 a = mesh.vertices[base].position, b = mesh.vertices[base + 1].position, c = mesh.vertices[base + 2].position;
        const V3 e1{b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        const V3 cr{e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        const bool outward = cr[0] * normal[0] + cr[1] * normal[1] + cr[2] * normal[2] > 0;
        const uint16_t q[4] = {base, uint16_t(base + 1), uint16_t(base + 2), uint16_t(base + 3)};
        if (outward) {
            for (uint16_t i : {q[0], q[2], q[1], q[0], q[3], q[2]}) mesh.indices.push_back(i);
        } else {
            for (uint16_t i : {q[0], q[1], q[2], q[0], q[2], q[3]}) mesh.indices.push_back(i);
        }
    }
}

Character build_character() {
    Character ch;
    FlverSpec& f = ch.flver;
    for (const auto& b : k_bones) {
        FlverNodeSpec n;
        n.name = b.name;
        n.translation = b.local;
        n.parent = b.parent;
        n.flags = 8;
        f.nodes.push_back(n);
    }
    // The meshes' default nodes, named as the meshes (the cape's names its display buffer).
    const int32_t body_node = int32_t(f.nodes.size());
    f.nodes.push_back({"c9999_body", {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, 0, 4});
    const int32_t cape_node = int32_t(f.nodes.size());
    f.nodes.push_back({SampleFacts::cape_mesh, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, 0, 4});

    const char* mtd = "N:\\GR\\data\\INTERROOT_win64\\material\\matbin\\Chr\\c[amsn]_cloth.matxml";
    f.materials.push_back({"c9999_body", mtd, {{std::string(k_root) + "tex\\c9999_body_a.tif", "C_AMSN__snp_Texture2D_2_AlbedoMap_0"}}});
    f.materials.push_back({"c9999_cape", mtd, {{std::string(k_root) + "tex\\c9999_cape_a.tif", "C_AMSN__snp_Texture2D_2_AlbedoMap_0"}}});

    FlverMeshSpec body;
    body.material = 0;
    body.default_node = body_node;
    struct BoxDef {
        V3 centre, size;
        uint16_t bone;
    };
    const BoxDef boxes[SampleFacts::body_boxes] = {
        {{0, 1.0f, 0}, {0.34f, 0.2f, 0.2f}, 1},        {{0, 1.2f, 0}, {0.3f, 0.2f, 0.18f}, 2},
        {{0, 1.42f, 0}, {0.38f, 0.24f, 0.22f}, 3},     {{0, 1.56f, 0}, {0.08f, 0.08f, 0.08f}, 4},
        {{0, 1.72f, 0}, {0.2f, 0.24f, 0.22f}, 5},      {{0.1f, 0.72f, 0}, {0.13f, 0.46f, 0.13f}, 6},
        {{0.1f, 0.27f, 0}, {0.11f, 0.46f, 0.11f}, 7},  {{-0.1f, 0.72f, 0}, {0.13f, 0.46f, 0.13f}, 8},
        {{-0.1f, 0.27f, 0}, {0.11f, 0.46f, 0.11f}, 9}, {{0.25f, 1.31f, 0}, {0.09f, 0.3f, 0.09f}, 10},
        {{0.25f, 1.01f, 0}, {0.08f, 0.3f, 0.08f}, 11}, {{-0.25f, 1.31f, 0}, {0.09f, 0.3f, 0.09f}, 12},
        {{-0.25f, 1.01f, 0}, {0.08f, 0.3f, 0.08f}, 13},
    };
    for (const auto& b : boxes) add_box(body, b.centre, b.size, b.bone);
    f.meshes.push_back(std::move(body));

    // The cape: rows from the shoulders (row 0, pinned) down to the back of the knees, slightly
    // flaring; positions snapped to the packed-vector grid of the cloth's skin.
    const int C = SampleFacts::cape_columns, R = SampleFacts::cape_rows;
    FlverMeshSpec cape;
    cape.material = 1;
    cape.default_node = cape_node;
    for (int r = 0; r < R; ++r) {
        const float t = float(r) / float(R - 1);
        const float half = 0.2f + 0.06f * t;
        for (int c = 0; c < C; ++c) {
            CapeVertex cv;
            cv.position = snap({-half + 2 * half * float(c) / float(C - 1), 1.5f - 0.86f * t, 0.17f + 0.05f * t});
            cv.normal = {0, 0, 1};  // away from the back
            cv.spine1_weight = uint8_t(std::lround(255.0f * (1.0f - 0.7f * t)));
            ch.cape.push_back(cv);
            FlverVertexSpec x;
            x.position = cv.position;
            x.normal = cv.normal;
            x.tangent = {1, 0, 0, 1};
            x.uv = {float(c) / float(C - 1), t};
            x.bones = {uint16_t(k_spine1), uint16_t(k_pelvis), 0, 0};
            x.weights = {float(cv.spine1_weight) / 255.0f, float(255 - cv.spine1_weight) / 255.0f, 0, 0};
            cape.vertices.push_back(x);
        }
    }
    for (int r = 0; r + 1 < R; ++r)
        for (int c = 0; c + 1 < C; ++c) {
            const uint16_t a = uint16_t(r * C + c), b = uint16_t(a + 1), d = uint16_t(a + C), e = uint16_t(d + 1);
            // Geometric normal (b - a) x (d - a) points to -Z, into the body: clockwise seen
            // from behind, where the cape's outside faces.
            for (uint16_t i : {a, b, d, b, e, d}) cape.indices.push_back(i);
        }
    ch.cape_triangles = cape.indices;
    f.meshes.push_back(std::move(cape));

    FlverDummySpec back;  // a dummy on the upper back, where a cape hangs from
    back.position = {0, 0.12f, 0.12f};
    back.reference_id = 40;
    back.parent_node = k_spine1;
    back.attach_node = k_spine1;
    f.dummies.push_back(back);
    return ch;
}

// ---- Havok helpers ----------------------------------------------------------------------

uint32_t object(TagfileWriter& w, const char* cls) { return w.add_object(w.type(cls)); }

void set_floats(const TagfileWriter& w, const Slot& s, const float* f, size_t n, size_t& k) {
    const havok::TypeTable& t = w.types();
    switch (s.kind()) {
        case Kind::Float:
            s.set_float(k < n ? f[k] : 0.0f);
            ++k;
            return;
        case Kind::Array: {
            const auto& ti = t.at(s.type);
            if (!(ti.r_format & 0x20)) return;
            for (uint64_t i = 0; i < (ti.r_format >> 8); ++i) set_floats(w, s.at(i), f, n, k);
            return;
        }
        case Kind::Record:
            for (const auto& m : t.at(s.type).all_members)
                if (!(m.flags & 1)) set_floats(w, s[m.name], f, n, k);
            return;
        default: return;
    }
}
void floats(const TagfileWriter& w, const Slot& s, std::initializer_list<float> f) {
    size_t k = 0;
    set_floats(w, s, f.begin(), f.size(), k);
}
void matrix(const TagfileWriter& w, const Slot& s, const M4& m) {
    size_t k = 0;
    set_floats(w, s, m.data(), 16, k);
}
template <class T>
void ints(const Slot& s, const std::vector<T>& v) {
    s.resize(v.size());
    for (size_t i = 0; i < v.size(); ++i) s.at(i).set_int(int64_t(v[i]));
}
void pointers(const Slot& s, const std::vector<uint32_t>& items) {
    s.resize(items.size());
    for (size_t i = 0; i < items.size(); ++i) s.at(i).set_pointer(items[i]);
}

M4 translation(const V3& t) { return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, t[0], t[1], t[2], 1}; }

void skeleton(TagfileWriter& w, uint32_t item) {
    Slot s = w.object(item);
    s["name"].set_string("Master");
    std::vector<int16_t> parents;
    for (const auto& b : k_bones) parents.push_back(b.parent);
    ints(s["parentIndices"], parents);
    s["bones"].resize(SampleFacts::bones);
    s["referencePose"].resize(SampleFacts::bones);
    for (int i = 0; i < SampleFacts::bones; ++i) {
        s["bones"].at(uint64_t(i))["name"].set_string(k_bones[i].name);
        const V3& t = k_bones[i].local;
        floats(w, s["referencePose"].at(uint64_t(i)), {t[0], t[1], t[2], 0, 0, 0, 0, 1, 1, 1, 1, 1});
    }
}

// Per-component buffer usage flags as the games store them: 1 read, 6 written in full.
constexpr uint8_t k_read = 1, k_write = 6;

struct Access {
    uint32_t buffer;
    uint8_t position, normal;
    bool triangles = false;
};

void buffer_accesses(const Slot& s, const std::vector<Access>& list, const std::vector<std::pair<uint32_t, uint32_t>>& shadows = {}) {
    s.resize(list.size());
    for (size_t i = 0; i < list.size(); ++i) {
        Slot a = s.at(i);
        a["bufferIndex"].set_int(list[i].buffer);
        a["bufferUsage"]["perComponentFlags"].at(0).set_int(list[i].position);
        a["bufferUsage"]["perComponentFlags"].at(1).set_int(list[i].normal);
        a["bufferUsage"]["trianglesRead"].set_int(list[i].triangles ? 1 : 0);
        uint32_t shadow = list[i].buffer;
        for (const auto& [b, sh] : shadows)
            if (b == list[i].buffer) shadow = sh;
        a["shadowBufferIndex"].set_int(shadow);
    }
}

void transform_set_access(const Slot& s) {
    s.resize(1);
    s.at(0)["transformSetIndex"].set_int(0);
    s.at(0)["transformSetUsage"]["perComponentFlags"].at(0).set_int(9);
}

void buffer_layout(const Slot& l, std::initializer_list<std::array<uint8_t, 4>> elements, std::initializer_list<std::array<uint8_t, 2>> slots,
                   uint8_t num_slots, uint8_t triangle_format) {
    size_t i = 0;
    for (const auto& e : elements) {
        Slot x = l["elementsLayout"].at(i++);
        x["vectorConversion"].set_int(e[0]), x["vectorSize"].set_int(e[1]), x["slotId"].set_int(e[2]), x["slotStart"].set_int(e[3]);
    }
    for (; i < 4; ++i) l["elementsLayout"].at(i)["vectorConversion"].set_int(250);
    i = 0;
    for (const auto& sl : slots) {
        l["slots"].at(i)["flags"].set_int(sl[0]);
        l["slots"].at(i++)["stride"].set_int(sl[1]);
    }
    l["numSlots"].set_int(num_slots);
    l["triangleFormat"].set_int(triangle_format);
}

// An object-space skin (PN) of the cape's vertices: two-blend blocks of 16 vertices (Spine1,
// Pelvis), the last block padded with its last vertex as the games pad theirs.
void cape_skin(TagfileWriter& w, uint32_t item, const Character& ch, const char* name, uint32_t op_id, uint32_t out_buffer) {
    Slot s = w.object(item);
    s["name"].set_string(name);
    s["operatorID"].set_int(op_id);
    buffer_accesses(s["usedBuffers"], {{out_buffer, k_write, k_write}});
    transform_set_access(s["usedTransformSets"]);
    // The transform subset, and each bone's boneFromSkinMesh: the inverse of its bind matrix.
    const int subset[2] = {k_pelvis, k_spine1};
    ints(s["transformSubset"], std::vector<int>{subset[0], subset[1]});
    s["boneFromSkinMeshTransforms"].resize(2);
    for (int i = 0; i < 2; ++i) {
        const V3 p = bind_position(subset[i]);
        matrix(w, s["boneFromSkinMeshTransforms"].at(uint64_t(i)), translation({-p[0], -p[1], -p[2]}));
    }
    s["outputBufferIndex"].set_int(out_buffer);
    s["transformSetIndex"].set_int(0);
    const size_t nv = ch.cape.size(), blocks = (nv + 15) / 16;
    Slot d = s["objectSpaceDeformer"];
    d["twoBlendEntries"].resize(blocks);
    s["localPNs"].resize(blocks);
    std::vector<uint8_t> control;
    for (size_t b = 0; b < blocks; ++b) {
        Slot e = d["twoBlendEntries"].at(b);
        Slot l = s["localPNs"].at(b);
        for (size_t j = 0; j < 16; ++j) {
            const size_t v = std::min(b * 16 + j, nv - 1);
            const CapeVertex& cv = ch.cape[v];
            e["vertexIndices"].at(j).set_int(int64_t(v));
            e["boneIndices"].at(2 * j).set_int(1);  // Spine1 (subset index 1)
            e["boneIndices"].at(2 * j + 1).set_int(0);
            e["boneWeights"].at(2 * j).set_int(cv.spine1_weight);
            e["boneWeights"].at(2 * j + 1).set_int(255 - cv.spine1_weight);
            const auto pp = pack_vector3(cv.position), pn = pack_vector3(cv.normal);
            for (size_t k = 0; k < 4; ++k) {
                l["localPosition"].at(j)["values"].at(k).set_int(pp[k]);
                l["localNormal"].at(j)["values"].at(k).set_int(pn[k]);
            }
        }
        // controlBytes name each block's blend group; Elden Ring's files use 4 - N for N <= 4
        // (c5000_c.hkx, HD_M_3005_c.hkx: every count of four/three/two/one-blend blocks matches).
        control.push_back(2);
    }
    ints(d["controlBytes"], control);
    d["startVertexIndex"].set_int(0);
    d["endVertexIndex"].set_int(int64_t(nv - 1));
    d["partialWrite"].set_int(0);
}

void conversion(const Slot& info, int elements) {
    // The display buffer's normal (element 1, BYTE4 at byte 12) converted on the way in and out.
    info["slotConversions"].at(0)["numElements"].set_int(elements);
    info["slotConversions"].at(0)["partialWrite"].set_int(elements > 1 ? 1 : 0);
    info["elementConversions"].at(0)["index"].set_int(1);
    info["elementConversions"].at(0)["offset"].set_int(12);
    info["elementConversions"].at(0)["conversion"].set_int(2);
    for (uint64_t i = 1; i < 4; ++i) info["elementConversions"].at(i)["conversion"].set_int(250);
    info["numSlotsConverted"].set_int(1);
    info["numElementsConverted"].set_int(1);
}

Result<std::vector<uint8_t>> cloth_tagfile(const havok::TypeTable& registry, const Character& ch) {
    const havok::TypeTable types = closure(
        registry, {"hkRootLevelContainer", "char", "hkaAnimationContainer", "hkaSkeleton", "hclClothContainer", "hclClothData", "hclSimClothData",
                   "hclSimClothPose", "hclBufferDefinition", "hclScratchBufferDefinition", "hclShadowBufferDefinition", "hclTransformSetDefinition",
                   "hclClothState", "hclObjectSpaceSkinPNOperator", "hclMoveParticlesOperator", "hclSimulateOperator", "hclGatherAllVerticesOperator",
                   "hclCopyVerticesOperator", "hclInputConvertOperator", "hclOutputConvertOperator", "hclLocalRangeConstraintSet",
                   "hclTransitionConstraintSet", "hclStandardLinkConstraintSet", "hclBendLinkConstraintSet", "hclStretchLinkConstraintSet",
                   "hclCollidable", "hclCapsuleShape"});
    TagfileWriter w(TagfileFlavour::v2018, types);
    for (const char* c : {"hkRootLevelContainer", "hclClothData", "hclCapsuleShape", "hclGatherAllVerticesOperator", "hclBendLinkConstraintSet"})
        if (!w.type(c)) return make_error(std::string("the registry has no type ") + c);

    const uint32_t root = object(w, "hkRootLevelContainer");
    const uint32_t anim = object(w, "hkaAnimationContainer");
    const uint32_t container = object(w, "hclClothContainer");
    {
        Slot nv = w.object(root)["namedVariants"];
        nv.resize(2);
        nv.at(0)["name"].set_string("Merged Animation Container");
        nv.at(0)["className"].set_string("hkaAnimationContainer");
        nv.at(0)["variant"].set_pointer(anim);
        nv.at(1)["name"].set_string("Cloth Container");
        nv.at(1)["className"].set_string("hclClothContainer");
        nv.at(1)["variant"].set_pointer(container);
    }
    const uint32_t sk = object(w, "hkaSkeleton");
    pointers(w.object(anim)["skeletons"], {sk});
    skeleton(w, sk);

    const uint32_t cd = object(w, "hclClothData");
    pointers(w.object(container)["clothDatas"], {cd});
    const size_t np = ch.cape.size();
    const int C = SampleFacts::cape_columns, R = SampleFacts::cape_rows;
    auto particle = [&](int r, int c) { return uint16_t(r * C + c); };
    auto rest = [&](uint16_t a, uint16_t b) { return dist(ch.cape[a].position, ch.cape[b].position); };
    auto row_of = [&](size_t p) { return float(p / size_t(C)) / float(R - 1); };

    // Buffers: 0 the skinned sim mesh, 1 the simulation, 2 the display (the cape mesh),
    // 3 the previous positions, 4 the display buffer's shadow.
    const uint32_t b_skinned = 0, b_sim = 1, b_display = 2, b_previous = 3, b_shadow = 4;
    const uint32_t bufs[5] = {object(w, "hclScratchBufferDefinition"), object(w, "hclBufferDefinition"), object(w, "hclBufferDefinition"),
                              object(w, "hclBufferDefinition"), object(w, "hclShadowBufferDefinition")};
    const uint32_t ntri = uint32_t(ch.cape_triangles.size() / 3);
    {
        Slot b = w.object(bufs[0]);
        b["name"].set_string("c9999_cape_sim"), b["type"].set_int(6), b["subType"].set_int(0), b["numVertices"].set_int(int64_t(np));
        buffer_layout(b["bufferLayout"], {{0, 16, 0, 0}, {0, 16, 1, 0}}, {{1, 16}, {1, 16}}, 2, 2);
        b["storeNormals"].set_int(1);
    }
    {
        Slot b = w.object(bufs[1]);
        b["name"].set_string("MeshSim SimBuffer"), b["type"].set_int(1), b["numVertices"].set_int(int64_t(np)), b["numTriangles"].set_int(ntri);
        buffer_layout(b["bufferLayout"], {{0, 16, 0, 0}, {0, 16, 1, 0}}, {{1, 16}, {1, 16}}, 2, 1);
    }
    {
        Slot b = w.object(bufs[2]);
        b["name"].set_string(SampleFacts::cape_mesh), b["type"].set_int(4), b["numVertices"].set_int(int64_t(np)), b["numTriangles"].set_int(ntri);
        buffer_layout(b["bufferLayout"], {{1, 12, 0, 0}, {2, 4, 0, 12}}, {{0, 16}}, 0, 2);
    }
    {
        Slot b = w.object(bufs[3]);
        b["name"].set_string("Previous Positions c9999_cape_sim"), b["type"].set_int(2), b["numVertices"].set_int(int64_t(np)),
            b["numTriangles"].set_int(ntri);
        buffer_layout(b["bufferLayout"], {{0, 16, 0, 0}, {0, 16, 1, 0}}, {{1, 16}, {1, 16}}, 2, 2);
    }
    {
        Slot b = w.object(bufs[4]);
        b["name"].set_string("Unnamed"), b["type"].set_int(7), b["subType"].set_int(-1), b["numVertices"].set_int(int64_t(np));
        buffer_layout(b["bufferLayout"], {{250, 0, 0, 0}, {0, 16, 0, 0}, {0, 16, 1, 0}}, {{1, 16}, {1, 16}}, 2, 2);
        b["shadowNormals"].set_int(1);
    }
    const uint32_t ts = object(w, "hclTransformSetDefinition");
    {
        Slot t = w.object(ts);
        t["name"].set_string("Master"), t["type"].set_int(1), t["numTransforms"].set_int(SampleFacts::bones);
    }

    // Operators, in the order their ids give.
    const uint32_t op_skin = object(w, "hclObjectSpaceSkinPNOperator"), op_move = object(w, "hclMoveParticlesOperator"),
                   op_sim = object(w, "hclSimulateOperator"), op_gather = object(w, "hclGatherAllVerticesOperator"),
                   op_skin_display = object(w, "hclObjectSpaceSkinPNOperator"), op_copy_previous = object(w, "hclCopyVerticesOperator"),
                   op_copy_sim = object(w, "hclCopyVerticesOperator"), op_in = object(w, "hclInputConvertOperator"),
                   op_out = object(w, "hclOutputConvertOperator");
    const std::vector<uint32_t> ops = {op_skin, op_move, op_sim, op_gather, op_skin_display, op_copy_previous, op_copy_sim, op_in, op_out};
    cape_skin(w, op_skin, ch, "Skin", 0, b_skinned);
    {
        Slot s = w.object(op_move);
        s["name"].set_string("MoveFixedParticles"), s["operatorID"].set_int(1);
        buffer_accesses(s["usedBuffers"], {{b_skinned, k_read, 0}, {b_sim, 2, 0}, {b_previous, 2, 0}});
        s["vertexParticlePairs"].resize(size_t(C));
        for (int c = 0; c < C; ++c) {
            s["vertexParticlePairs"].at(uint64_t(c))["vertexIndex"].set_int(particle(0, c));
            s["vertexParticlePairs"].at(uint64_t(c))["particleIndex"].set_int(particle(0, c));
        }
        s["simClothIndex"].set_int(0), s["refBufferIdx"].set_int(b_skinned);
    }
    {
        Slot s = w.object(op_sim);
        s["name"].set_string("Simulate"), s["operatorID"].set_int(2);
        buffer_accesses(s["usedBuffers"], {{b_skinned, k_read, k_read}, {b_sim, 15, k_write}, {b_previous, 15, 0}});
        s["simClothIndex"].set_int(0);
        s["simulateOpConfigs"].resize(1);
        Slot cfg = s["simulateOpConfigs"].at(0);
        cfg["name"].set_string("Default Config");
        // local range, transition, standard, bend, stretch, then the collisions (-1)
        ints(cfg["constraintExecution"], std::vector<int>{0, 4, 1, 3, 2, -1});
        cfg["subSteps"].set_int(2), cfg["numberOfSolveIterations"].set_int(1), cfg["useAllInstanceCollidables"].set_int(1);
    }
    {
        Slot s = w.object(op_gather);
        s["name"].set_string("Gather \"MeshSim SimBuffer\" to \"c9999_cape\""), s["operatorID"].set_int(3);
        buffer_accesses(s["usedBuffers"], {{b_sim, k_read, k_read}, {b_display, k_write, k_write}});
        std::vector<int16_t> from(np);
        for (size_t i = 0; i < np; ++i) from[i] = int16_t(i);
        ints(s["vertexInputFromVertexOutput"], from);
        s["inputBufferIdx"].set_int(b_sim), s["outputBufferIdx"].set_int(b_display), s["gatherNormals"].set_int(1);
    }
    cape_skin(w, op_skin_display, ch, "Skin Display c9999_cape", 4, b_display);
    auto copy = [&](uint32_t item, const char* name, uint32_t id, uint32_t out) {
        Slot s = w.object(item);
        s["name"].set_string(name), s["operatorID"].set_int(id);
        buffer_accesses(s["usedBuffers"], {{b_skinned, k_read, 0}, {out, k_write, 0}});
        s["inputBufferIdx"].set_int(b_skinned), s["outputBufferIdx"].set_int(out), s["numberOfVertices"].set_int(int64_t(np));
    };
    copy(op_copy_previous, "Gather \"c9999_cape_sim\" to \"Previous Positions c9999_cape_sim\"", 5, b_previous);
    copy(op_copy_sim, "Gather \"c9999_cape_sim\" to \"MeshSim SimBuffer\"", 6, b_sim);
    {
        Slot s = w.object(op_in);
        s["name"].set_string("Convert Input Operator"), s["operatorID"].set_int(7);
        s["userBufferIndex"].set_int(b_display), s["shadowBufferIndex"].set_int(b_shadow);
        conversion(s["conversionInfo"], 1);
    }
    {
        Slot s = w.object(op_out);
        s["name"].set_string("Convert Output Operator"), s["operatorID"].set_int(8);
        s["userBufferIndex"].set_int(b_display), s["shadowBufferIndex"].set_int(b_shadow);
        conversion(s["conversionInfo"], 1);
    }

    // States: the names and shapes of the games' five.
    struct StateDef {
        const char* name;
        std::vector<uint32_t> ops;
        std::vector<Access> buffers;
        bool sim, transforms;
    };
    const std::vector<StateDef> states = {
        {"#01#Default", {7, 0, 1, 2, 3, 8},
         {{b_skinned, 7, 7}, {b_sim, 15, k_write, true}, {b_display, 15, 15, true}, {b_previous, 15, 0}, {b_shadow, 15, 15, true}}, true, true},
        {"#00#Empty", {}, {}, false, false},
        {"_Skin", {4, 8}, {{b_display, k_write, k_write}, {b_shadow, k_write, k_write}}, false, true},
        {"_preAtoS_#01#Default", {4, 0, 5, 8}, {{b_skinned, 7, k_write}, {b_display, k_write, k_write}, {b_previous, k_write, 0}, {b_shadow, k_write, k_write}}, true, true},
        {"_curAtoS_#01#Default", {4, 0, 6, 8}, {{b_skinned, 7, k_write}, {b_sim, k_write, 0}, {b_display, k_write, k_write}, {b_shadow, k_write, k_write}}, true, true},
    };
    std::vector<uint32_t> state_items;
    for (const auto& st : states) {
        const uint32_t item = object(w, "hclClothState");
        state_items.push_back(item);
        Slot s = w.object(item);
        s["name"].set_string(st.name);
        ints(s["operators"], st.ops);
        // A state maps the display buffer to its shadow (docs/havok-cloth.md#display-buffers); operators never do.
        buffer_accesses(s["usedBuffers"], st.buffers, {{b_display, b_shadow}});
        if (st.transforms) transform_set_access(s["usedTransformSets"]);
        if (st.sim) ints(s["usedSimCloths"], std::vector<uint32_t>{0});
    }

    // The sim cloth: 50 g per free particle.
    constexpr float k_free_inv_mass = 20.0f;
    const uint32_t sim = object(w, "hclSimClothData");
    {
        Slot s = w.object(sim);
        s["name"].set_string("MeshSim");
        floats(w, s["simulationInfo"]["gravity"], {0, -9.8f, 0, 0});
        s["simulationInfo"]["globalDampingPerSecond"].set_float(0.5);
        s["particleDatas"].resize(np);
        float total = 0;
        std::vector<uint16_t> fixed;
        for (size_t p = 0; p < np; ++p) {
            const bool pinned = p < size_t(C);
            if (pinned) fixed.push_back(uint16_t(p));
            const float mass = pinned ? 0.0f : 1.0f / k_free_inv_mass;
            total += mass;
            Slot d = s["particleDatas"].at(p);
            d["mass"].set_float(mass), d["invMass"].set_float(pinned ? 0.0f : k_free_inv_mass), d["radius"].set_float(0.02), d["friction"].set_float(0.5);
        }
        ints(s["fixedParticles"], fixed);
        s["doNormals"].set_int(1);
        ints(s["simOpIds"], std::vector<uint32_t>{2});
        const uint32_t pose = object(w, "hclSimClothPose");
        pointers(s["simClothPoses"], {pose});
        {
            Slot ps = w.object(pose);
            ps["name"].set_string("DefaultClothPose");
            ps["positions"].resize(np);
            for (size_t p = 0; p < np; ++p) {
                const V3& x = ch.cape[p].position;
                floats(w, ps["positions"].at(p), {x[0], x[1], x[2], 1});
            }
        }
        // Constraint sets in the order constraintExecution names them.
        const uint32_t cs_local = object(w, "hclLocalRangeConstraintSet"), cs_standard = object(w, "hclStandardLinkConstraintSet"),
                       cs_stretch = object(w, "hclStretchLinkConstraintSet"), cs_bend = object(w, "hclBendLinkConstraintSet"),
                       cs_transition = object(w, "hclTransitionConstraintSet");
        pointers(s["staticConstraintSets"], {cs_local, cs_standard, cs_stretch, cs_bend, cs_transition});
        {
            Slot c = w.object(cs_local);
            c["name"].set_string("Local Range"), c["constraintId"]["value"].set_int(0);
            c["localConstraints"].resize(np - size_t(C));
            for (size_t p = size_t(C); p < np; ++p) {
                Slot l = c["localConstraints"].at(p - size_t(C));
                l["particleIndex"].set_int(int64_t(p)), l["referenceVertex"].set_int(int64_t(p));
                // Lower rows may leave their skinned place further; never into the body.
                l["maximumDistance"].set_float(q20(0.04 + 0.26 * row_of(p)));
                l["maxNormalDistance"].set_float(3.40282e38), l["minNormalDistance"].set_float(0);
            }
            c["referenceMeshBufferIdx"].set_int(b_skinned), c["stiffness"].set_float(1), c["shapeType"].set_int(0),
                c["applyNormalComponent"].set_int(1);
        }
        // The games store standard, bend and compressible link stiffness divided by the link's
        // inverse-mass sum (runtime/src/sim_setups.cpp multiplies it back); stretch links store it
        // as authored. Links between two pinned particles keep the authored value (no mass moves).
        auto stored = [&](float stiffness, uint16_t a, uint16_t b) {
            const float sum = (a < size_t(C) ? 0.0f : k_free_inv_mass) + (b < size_t(C) ? 0.0f : k_free_inv_mass);
            return sum > 0 ? stiffness / sum : stiffness;
        };
        auto links = [&](uint32_t item, const char* name, uint32_t id, const std::vector<std::array<uint16_t, 2>>& pairs, float stiffness,
                         bool divided) {
            Slot c = w.object(item);
            c["name"].set_string(name), c["constraintId"]["value"].set_int(id);
            c["links"].resize(pairs.size());
            for (size_t i = 0; i < pairs.size(); ++i) {
                Slot l = c["links"].at(i);
                l["particleA"].set_int(pairs[i][0]), l["particleB"].set_int(pairs[i][1]);
                l["restLength"].set_float(rest(pairs[i][0], pairs[i][1])), l["stiffness"].set_float(divided ? stored(stiffness, pairs[i][0], pairs[i][1]) : stiffness);
            }
        };
        std::vector<std::array<uint16_t, 2>> across, down, bend;
        for (int r = 0; r < R; ++r)
            for (int c = 0; c + 1 < C; ++c) across.push_back({particle(r, c), particle(r, c + 1)});
        for (int r = 0; r + 1 < R; ++r)
            for (int c = 0; c + 1 < C; ++c) {
                across.push_back({particle(r, c), particle(r + 1, c + 1)});
                across.push_back({particle(r, c + 1), particle(r + 1, c)});
            }
        for (int r = 0; r + 1 < R; ++r)
            for (int c = 0; c < C; ++c) down.push_back({particle(r + 1, c), particle(r, c)});
        for (int r = 0; r < R; ++r)
            for (int c = 0; c < C; ++c) {
                if (r + 2 < R) bend.push_back({particle(r, c), particle(r + 2, c)});
                if (c + 2 < C) bend.push_back({particle(r, c), particle(r, c + 2)});
            }
        links(cs_standard, "StandardLink Constraint", 1, across, 0.5f, true);
        links(cs_stretch, "StretchLink Constraint", 2, down, 1.0f, false);
        {
            Slot c = w.object(cs_bend);
            c["name"].set_string("BendLink Constraint"), c["constraintId"]["value"].set_int(3);
            c["links"].resize(bend.size());
            for (size_t i = 0; i < bend.size(); ++i) {
                Slot l = c["links"].at(i);
                const float len = rest(bend[i][0], bend[i][1]);
                l["particleA"].set_int(bend[i][0]), l["particleB"].set_int(bend[i][1]);
                l["bendMinLength"].set_float(0.95f * len), l["stretchMaxLength"].set_float(len);
                l["bendStiffness"].set_float(stored(0.3f, bend[i][0], bend[i][1])), l["stretchStiffness"].set_float(stored(0.5f, bend[i][0], bend[i][1]));
            }
        }
        {
            Slot c = w.object(cs_transition);
            c["name"].set_string("Transition constraint c9999_cape_sim"), c["constraintId"]["value"].set_int(4);
            c["perParticleData"].resize(np);
            for (size_t p = 0; p < np; ++p) {
                Slot d = c["perParticleData"].at(p);
                d["particleIndex"].set_int(int64_t(p)), d["referenceVertex"].set_int(int64_t(p)), d["toSimMaxDistance"].set_float(1);
            }
            c["toAnimPeriod"].set_float(0.1), c["toAnimPlusDelayPeriod"].set_float(0.1), c["toSimPeriod"].set_float(0.1),
                c["toSimPlusDelayPeriod"].set_float(0.1), c["referenceMeshBufferIdx"].set_int(b_skinned);
        }
        // The collidable: a capsule along Spine1 over the chest and belly, in the bone's frame
        // (offset identity, as the games' offsets are to 1e-6).
        const uint32_t col = object(w, "hclCollidable"), shape = object(w, "hclCapsuleShape");
        {
            const V3 at = bind_position(k_spine1);
            Slot c = w.object(col);
            matrix(w, c["transform"], translation(at));
            c["shape"].set_pointer(shape);
            c["name"].set_string("Collidable_Ctrl_Spine1");
            c["pinchDetectionRadius"].set_float(0.01), c["enabled"].set_int(1);
            Slot sh = w.object(shape);
            floats(w, sh["start"], {0, -0.26f, 0, 0});
            floats(w, sh["end"], {0, 0.14f, 0, 0});
            floats(w, sh["dir"], {0, 1, 0, 0});
            sh["radius"].set_float(0.13), sh["capLenSqrdInv"].set_float(1.0 / (0.4f * 0.4f));
        }
        Slot map = s["collidableTransformMap"];
        map["transformSetIndex"].set_int(0);
        ints(map["transformIndices"], std::vector<uint32_t>{uint32_t(k_spine1)});
        map["offsets"].resize(1);
        matrix(w, map["offsets"].at(0), translation({0, 0, 0}));
        pointers(s["perInstanceCollidables"], {col});
        s["maxParticleRadius"].set_float(0.02);
        std::vector<uint32_t> masks(np, 1);
        for (int c = 0; c < C; ++c) masks[size_t(c)] = 0;
        ints(s["staticCollisionMasks"], masks);
        s["totalMass"].set_float(total);
        Slot tm = s["transferMotionData"];
        tm["maxTranslationBlend"].set_float(1), tm["maxRotationBlend"].set_float(1);
        Slot lc = s["landscapeCollisionData"];
        lc["landscapeRadius"].set_float(0.05), lc["stuckParticlesStretchFactorSq"].set_float(9), lc["collisionTolerance"].set_float(0.2);
        ints(s["triangleIndices"], ch.cape_triangles);
        ints(s["triangleFlips"], std::vector<uint8_t>((ntri + 7) / 8, 0));
        ints(s["perParticlePinchDetectionEnabledFlags"], std::vector<uint8_t>(np, 0));
        s["collidablePinchingDatas"].resize(1);
    }

    Slot d = w.object(cd);
    d["name"].set_string("c9999_Cape");
    pointers(d["simClothDatas"], {sim});
    pointers(d["bufferDefinitions"], {bufs[0], bufs[1], bufs[2], bufs[3], bufs[4]});
    pointers(d["transformSetDefinitions"], {ts});
    pointers(d["operators"], ops);
    pointers(d["clothStateDatas"], state_items);
    d["targetPlatform"].set_int(2);
    return w.finish();
}

Result<std::vector<uint8_t>> skeleton_tagfile(const havok::TypeTable& registry) {
    const havok::TypeTable types = closure(registry, {"hkRootLevelContainer", "char", "hkaAnimationContainer", "hkaSkeleton"});
    TagfileWriter w(TagfileFlavour::v2018, types);
    const uint32_t root = object(w, "hkRootLevelContainer");
    const uint32_t anim = object(w, "hkaAnimationContainer");
    Slot nv = w.object(root)["namedVariants"];
    nv.resize(1);
    nv.at(0)["name"].set_string("Merged Animation Container");
    nv.at(0)["className"].set_string("hkaAnimationContainer");
    nv.at(0)["variant"].set_pointer(anim);
    const uint32_t sk = object(w, "hkaSkeleton");
    pointers(w.object(anim)["skeletons"], {sk});
    skeleton(w, sk);
    return w.finish();
}

// A walk-and-turn loop: the root turns and steps forward and back, the pelvis bobs, the legs
// and arms swing, so the cape swings and touches the capsule on the back.
Result<std::vector<uint8_t>> clip_tagfile(const havok::TypeTable& registry) {
    const havok::TypeTable types =
        closure(registry, {"hkRootLevelContainer", "char", "hkaAnimationContainer", "hkaInterleavedUncompressedAnimation", "hkaAnimationBinding"});
    TagfileWriter w(TagfileFlavour::v2018, types);
    if (!w.type("hkaInterleavedUncompressedAnimation")) return make_error("the registry has no hkaInterleavedUncompressedAnimation");
    const uint32_t root = object(w, "hkRootLevelContainer");
    const uint32_t container = object(w, "hkaAnimationContainer");
    Slot nv = w.object(root)["namedVariants"];
    nv.resize(1);
    nv.at(0)["name"].set_string("Merged Animation Container");
    nv.at(0)["className"].set_string("hkaAnimationContainer");
    nv.at(0)["variant"].set_pointer(container);
    const uint32_t anim = object(w, "hkaInterleavedUncompressedAnimation");
    const uint32_t binding = object(w, "hkaAnimationBinding");
    pointers(w.object(container)["animations"], {anim});
    pointers(w.object(container)["bindings"], {binding});

    const int frames = SampleFacts::clip_frames, tracks = SampleFacts::bones;
    const double period = double(frames - 1) / 30.0;
    Slot a = w.object(anim);
    a["type"].set_int(1);  // HK_INTERLEAVED_ANIMATION
    a["duration"].set_float(period);
    a["numberOfTransformTracks"].set_int(tracks);
    a["numberOfFloatTracks"].set_int(0);
    a["transforms"].resize(uint64_t(frames * tracks));
    const double pi = 3.14159265358979323846, deg = pi / 180.0;
    for (int f = 0; f < frames; ++f) {
        const double ph = 2 * pi * double(f) / double(frames - 1);
        const double s = std::sin(ph), c = std::cos(ph), s2 = std::sin(2 * ph);
        for (int t = 0; t < tracks; ++t) {
            V3 tr = k_bones[t].local;
            double ax = 0, ay = 0;  // rotations about X, then Y
            switch (t) {
                case 0: tr = {0, 0, float(q20(-0.3 * s))}, ay = 30 * deg * c; break;  // turn and step
                case 1: tr[1] = float(q20(1.0 + 0.03 * s2)), ay = -10 * deg * s; break;
                case 2: ay = 8 * deg * s; break;
                case 3: ax = 6 * deg * s2; break;
                case 5: ay = -12 * deg * s; break;
                case 6: ax = -30 * deg * s; break;
                case 7: ax = 25 * deg * (1 - c) / 2; break;
                case 8: ax = 30 * deg * s; break;
                case 9: ax = 25 * deg * (1 + c) / 2; break;
                case 10: ax = 25 * deg * s; break;
                case 11: ax = -20 * deg; break;
                case 12: ax = -25 * deg * s; break;
                case 13: ax = -20 * deg; break;
                default: break;
            }
            // q = qy * qx
            const double hx = ax / 2, hy = ay / 2;
            const double qx = std::cos(hy) * std::sin(hx), qy = std::sin(hy) * std::cos(hx), qz = -std::sin(hy) * std::sin(hx),
                         qw = std::cos(hy) * std::cos(hx);
            floats(w, a["transforms"].at(uint64_t(f * tracks + t)),
                   {tr[0], tr[1], tr[2], 0, float(q20(qx)), float(q20(qy)), float(q20(qz)), float(q20(qw)), 1, 1, 1, 1});
        }
    }
    Slot b = w.object(binding);
    b["originalSkeletonName"].set_string("Master");
    b["animation"].set_pointer(anim);
    std::vector<int16_t> map(static_cast<size_t>(tracks));
    for (int t = 0; t < tracks; ++t) map[size_t(t)] = int16_t(t);
    ints(b["transformTrackToBoneIndices"], map);
    return w.finish();
}

// The bytes of SplineClipSpec's one block (docs/formats.md): the masks (quantisation, position,
// rotation, scale byte per track), then per track its position, rotation and scale parts, each
// 4-aligned from the block's start.
std::vector<uint8_t> spline_block(const SplineClipSpec& spec) {
    std::vector<uint8_t> b;
    const auto u8 = [&](uint8_t v) { b.push_back(v); };
    const auto u16 = [&](uint16_t v) { u8(uint8_t(v)), u8(uint8_t(v >> 8)); };
    const auto f32 = [&](float f) {
        uint32_t v;
        std::memcpy(&v, &f, 4);
        u16(uint16_t(v)), u16(uint16_t(v >> 16));
    };
    const auto align4 = [&] {
        while (b.size() % 4) b.push_back(0);
    };
    constexpr uint8_t k_static_xyz = 0x07, k_spline_xyz = 0x70;
    for (int t = 0; t < SampleFacts::bones; ++t) {
        const bool spline = t == spec.track;
        u8(uint8_t(1 | (1 << 6)));  // 16-bit positions and scales (rotations are identity: no quantisation used)
        u8(spline && !spec.scale ? k_spline_xyz : k_static_xyz);
        u8(0);
        u8(spline && spec.scale ? k_spline_xyz : 0);
    }
    align4();
    // Degree 1, one control point per frame: n = frames - 1, knots 0 0 1 .. frames-1 frames-1.
    const auto spline_part = [&] {
        const int32_t n = spec.frames - 1;
        u16(uint16_t(n)), u8(1);
        u8(0);
        for (int32_t f = 0; f < spec.frames; ++f) u8(uint8_t(f));
        u8(uint8_t(n));
        align4();
        for (int k = 0; k < 3; ++k) f32(spec.min), f32(spec.max);
        for (int32_t f = 0; f < spec.frames; ++f)
            for (int k = 0; k < 3; ++k) u16(f < int32_t(spec.keys.size()) ? spec.keys[size_t(f)] : 0);
        align4();
    };
    for (int t = 0; t < SampleFacts::bones; ++t) {
        const bool spline = t == spec.track;
        if (spline && !spec.scale) spline_part();
        else
            for (float v : k_bones[t].local) f32(v);
        if (spline && spec.scale) spline_part();
    }
    return b;
}

Result<std::vector<uint8_t>> spline_clip_tagfile(const havok::TypeTable& registry, const SplineClipSpec& spec) {
    const havok::TypeTable types =
        closure(registry, {"hkRootLevelContainer", "char", "hkaAnimationContainer", "hkaSplineCompressedAnimation", "hkaAnimationBinding"});
    TagfileWriter w(TagfileFlavour::v2018, types);
    if (!w.type("hkaSplineCompressedAnimation")) return make_error("the registry has no hkaSplineCompressedAnimation");
    const uint32_t root = object(w, "hkRootLevelContainer");
    const uint32_t container = object(w, "hkaAnimationContainer");
    Slot nv = w.object(root)["namedVariants"];
    nv.resize(1);
    nv.at(0)["name"].set_string("Merged Animation Container");
    nv.at(0)["className"].set_string("hkaAnimationContainer");
    nv.at(0)["variant"].set_pointer(container);
    const uint32_t anim = object(w, "hkaSplineCompressedAnimation");
    const uint32_t binding = object(w, "hkaAnimationBinding");
    pointers(w.object(container)["animations"], {anim});
    pointers(w.object(container)["bindings"], {binding});

    constexpr int32_t per_block = 256;  // what the games' clips store
    const float frame = 1.0f / 30.0f;
    const std::vector<uint8_t> data = spline_block(spec);
    Slot a = w.object(anim);
    a["type"].set_int(3);  // HK_SPLINE_COMPRESSED_ANIMATION
    a["duration"].set_float(double(spec.frames - 1) * frame);
    a["numberOfTransformTracks"].set_int(SampleFacts::bones);
    a["numberOfFloatTracks"].set_int(0);
    a["numFrames"].set_int(spec.frames);
    a["numBlocks"].set_int(1);
    a["maxFramesPerBlock"].set_int(per_block);
    a["maskAndQuantizationSize"].set_int(SampleFacts::bones * 4);
    a["blockDuration"].set_float(double(per_block - 1) * frame);
    a["blockInverseDuration"].set_float(1.0 / (double(per_block - 1) * frame));
    a["frameDuration"].set_float(frame);
    ints(a["blockOffsets"], std::vector<uint32_t>{0});
    ints(a["floatBlockOffsets"], std::vector<uint32_t>{uint32_t(data.size())});
    ints(a["data"], data);
    Slot bd = w.object(binding);
    bd["originalSkeletonName"].set_string("Master");
    bd["animation"].set_pointer(anim);
    std::vector<int16_t> map(static_cast<size_t>(SampleFacts::bones));
    for (int t = 0; t < SampleFacts::bones; ++t) map[size_t(t)] = int16_t(t);
    ints(bd["transformTrackToBoneIndices"], map);
    bd["blendHint"].set_int(spec.blend_hint);
    return w.finish();
}

// A 32x32 BC1 texture: `base` with a band of `band` over the block rows [band_from, band_to).
std::vector<uint8_t> bc1_texture(uint16_t base, uint16_t band, int band_from, int band_to, uint16_t stripe) {
    std::vector<uint8_t> blocks;
    for (int by = 0; by < 8; ++by)
        for (int bx = 0; bx < 8; ++bx) {
            const uint16_t c0 = (by >= band_from && by < band_to) ? band : base;
            const uint16_t c1 = stripe;
            // colour0 > colour1 selects the four-colour mode; a thin diagonal line of colour1.
            const uint16_t hi = std::max(c0, c1), lo = std::min(c0, c1);
            const bool swapped = hi != c0;
            uint32_t idx = 0;
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 4; ++x) {
                    const bool line = ((bx * 4 + x) + (by * 4 + y)) % 16 == 0;
                    const uint32_t sel = line ? (swapped ? 0u : 1u) : (swapped ? 1u : 0u);
                    idx |= sel << (2 * (y * 4 + x));
                }
            const uint8_t b[8] = {uint8_t(hi), uint8_t(hi >> 8), uint8_t(lo), uint8_t(lo >> 8),
                                  uint8_t(idx), uint8_t(idx >> 8), uint8_t(idx >> 16), uint8_t(idx >> 24)};
            blocks.insert(blocks.end(), b, b + 8);
        }
    DdsSpec spec;
    spec.width = spec.height = 32;
    spec.fourcc = fourcc_code("DXT1");
    return make_dds(spec, blocks);
}

bnd::Binder game_binder() {
    bnd::Binder b;
    b.version = "07D7R6";
    b.raw_format = 0x74;  // IDs, names, compression field: what DS3, Sekiro and ER write
    b.format = 0x2E;
    b.extended = 4;
    b.unicode = true;
    return b;
}

Result<std::vector<uint8_t>> binder_dcx(const std::vector<std::pair<int32_t, std::string>>& entries, const std::vector<std::vector<uint8_t>>& payloads) {
    bnd::Binder b = game_binder();
    for (const auto& [id, name] : entries) {
        bnd::Entry e;
        e.flags = 0x40;
        e.id = id;
        e.name = std::string(k_root) + name;
        b.entries.push_back(e);
    }
    std::vector<Bytes> views;
    for (const auto& p : payloads) views.push_back(p);
    auto bnd = bnd::write_bnd4(b, views);
    if (!bnd) return bnd.error();
    dcx::EncodeOptions o;
    o.unk04 = 0x11000;  // Sekiro and Elden Ring
    return dcx::compress(*bnd, o);
}

}  // namespace

Result<std::vector<std::pair<std::string, std::vector<uint8_t>>>> sample_game_files() {
    auto registry = load_registry_xml(reference_dir() / "havok" / "HavokTypeRegistry20180100.xml");
    if (!registry) return registry.error();
    const Character ch = build_character();
    std::vector<std::pair<std::string, std::vector<uint8_t>>> out;

    auto cloth = cloth_tagfile(*registry, ch);
    if (!cloth) return cloth.error();
    auto chr = binder_dcx({{200, "c9999.flver"}, {700, "c9999_c.hkx"}}, {write_flver(ch.flver), *cloth});
    if (!chr) return chr.error();
    out.emplace_back("chr/c9999.chrbnd.dcx", std::move(*chr));

    auto skel = skeleton_tagfile(*registry);
    if (!skel) return skel.error();
    auto clip = clip_tagfile(*registry);
    if (!clip) return clip.error();
    auto ani = binder_dcx({{1000000, "hkx\\skeleton.hkx"}, {1000002000, std::string("hkx\\") + SampleFacts::clip + ".hkx"}}, {*skel, *clip});
    if (!ani) return ani.error();
    out.emplace_back("chr/c9999.anibnd.dcx", std::move(*ani));

    TpfTextureSpec body, cape;
    body.name = "c9999_body_a";
    body.dds = bc1_texture(0x6B4D, 0x4A49, 3, 4, 0x8C71);  // grey-blue with a darker belt
    cape.name = "c9999_cape_a";
    cape.dds = bc1_texture(0x9000, 0xD5A0, 6, 7, 0x6000);  // deep red with a gold hem
    auto tex = binder_dcx({{100, "c9999_h.tpf"}}, {make_tpf({body, cape})});
    if (!tex) return tex.error();
    out.emplace_back("chr/c9999_h.texbnd.dcx", std::move(*tex));
    return out;
}

Result<std::vector<uint8_t>> sample_anibnd_with_spline_clip(const SplineClipSpec& spec) {
    if (spec.track < 0 || spec.track >= SampleFacts::bones || spec.frames < 2 || spec.frames > 256)
        return make_error("a spline clip of the sample needs a track of 0.." + std::to_string(SampleFacts::bones - 1) + " and 2..256 frames");
    auto registry = load_registry_xml(reference_dir() / "havok" / "HavokTypeRegistry20180100.xml");
    if (!registry) return registry.error();
    auto skel = skeleton_tagfile(*registry);
    if (!skel) return skel.error();
    auto walk = clip_tagfile(*registry);
    if (!walk) return walk.error();
    auto clip = spline_clip_tagfile(*registry, spec);
    if (!clip) return clip.error();
    return binder_dcx({{1000000, "hkx\\skeleton.hkx"},
                       {1000002000, std::string("hkx\\") + SampleFacts::clip + ".hkx"},
                       {1000003000, "hkx\\" + spec.name + ".hkx"}},
                      {*skel, *walk, *clip});
}

Result<std::vector<std::string>> write_sample_game(const std::filesystem::path& root) {
    auto files = sample_game_files();
    if (!files) return files.error();
    std::vector<std::string> written;
    for (const auto& [rel, bytes] : *files) {
        auto path = safe_join(root, rel);
        if (!path) return path.error();
        std::error_code ec;
        std::filesystem::create_directories(path->parent_path(), ec);
        if (auto w = write_file(*path, bytes); !w) return w.error();
        written.push_back(rel);
    }
    return written;
}

}  // namespace drape::test
