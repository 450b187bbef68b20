// schema/include/drape/schema/verify.h: the one verifier of .drcloth 2.0 files. A small file built
// here through the generated object API (not through the exporter under test) is accepted whole and
// refused at every shorter length, and every status has its test.
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "drape/schema/verify.h"
#include "drcloth_fixtures.h"

namespace fb = drape::cloth_fb;
using drape::schema::Status;
using drape::schema::verify_cloth_file;

namespace {

std::vector<uint8_t> small_file(uint16_t major = 2) {
    fb::ClothFileT file;
    file.format_version = std::make_unique<fb::FormatVersionT>();
    file.format_version->major = major;
    file.format_version->minor = 0;
    auto col = std::make_unique<fb::CollidableT>();
    col->name = "capsule";
    fb::CapsuleShapeT cap;
    cap.radius = 0.25f;
    col->shape.Set(std::move(cap));
    file.collidables.push_back(std::move(col));
    auto cd = std::make_unique<fb::ClothDataT>();
    cd->name = "cloth";
    auto sim = std::make_unique<fb::SimClothDataT>();
    sim->name = "sim";
    sim->particle_datas = {fb::ParticleData(1, 1, 0.01f, 0.5f), fb::ParticleData(0, 0, 0.01f, 0.5f)};
    sim->fixed_particles = {1};
    sim->collidables = {0};
    auto set = std::make_unique<fb::ConstraintSetT>();
    set->name = "links";
    fb::StandardLinkSetT links;
    links.links = {fb::StandardLink(0, 1, 0.5f, 1.0f)};
    set->data.Set(std::move(links));
    sim->static_constraint_sets.push_back(std::move(set));
    cd->sim_cloth_datas.push_back(std::move(sim));
    auto op = std::make_unique<fb::OperatorT>();
    op->name = "Skin";
    op->class_name = "hclObjectSpaceSkinPNOperator";
    fb::ObjectSpaceSkinOperatorT skin;
    skin.channels = fb::VertexChannels::PN;
    skin.transform_subset = {3};
    skin.deformer = std::make_unique<fb::DeformerT>();
    skin.deformer->control_bytes = {0};
    skin.local = std::make_unique<fb::LocalBlocksT>();
    op->data.Set(std::move(skin));
    cd->operators.push_back(std::move(op));
    file.cloth_datas.push_back(std::move(cd));
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(fb::ClothFile::Pack(fbb, &file), fb::ClothFileIdentifier());
    return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

}  // namespace

TEST_CASE("verify_cloth_file accepts a 2.0 file and exposes its tree") {
    const auto bytes = small_file();
    const auto r = verify_cloth_file(bytes.data(), bytes.size());
    REQUIRE(r.ok());
    CHECK(r.major == 2);
    CHECK(std::strcmp(r.message, "ok") == 0);
    const auto* cd = r.file->cloth_datas()->Get(0);
    const auto* skin = cd->operators()->Get(0)->data_as_ObjectSpaceSkinOperator();
    REQUIRE(skin);
    CHECK(skin->channels() == fb::VertexChannels::PN);
    CHECK(skin->transform_subset()->Get(0) == 3);
    CHECK(cd->sim_cloth_datas()->Get(0)->static_constraint_sets()->Get(0)->data_as_StandardLinkSet()->links()->Get(0)->rest_length() == 0.5f);
    CHECK(r.file->collidables()->Get(0)->shape_as_CapsuleShape()->radius() == 0.25f);
}

TEST_CASE("verify_cloth_file refuses every truncation of a small file") {
    const auto bytes = small_file();
    REQUIRE(bytes.size() > 100);
    for (size_t n = 0; n < bytes.size(); ++n) {
        // A copy of exactly n bytes, so a read past the end is caught by ASan.
        std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + long(n));
        const auto r = verify_cloth_file(cut.empty() ? nullptr : cut.data(), cut.size());
        CAPTURE(n);
        CHECK(!r.ok());
        CHECK(r.file == nullptr);
        CHECK(r.status == (n < 8 ? Status::too_small : Status::invalid_flatbuffer));
    }
}

TEST_CASE("verify_cloth_file: too small") {
    const uint8_t four[4] = {1, 2, 3, 4};
    CHECK(verify_cloth_file(nullptr, 0).status == Status::too_small);
    CHECK(verify_cloth_file(four, 4).status == Status::too_small);
    CHECK(std::string(verify_cloth_file(four, 4).message).find("too small") != std::string::npos);
}

TEST_CASE("verify_cloth_file: a zstd frame is reported as such, not decoded") {
    std::vector<uint8_t> z = {0x28, 0xB5, 0x2F, 0xFD, 0, 0, 0, 0, 0, 0};
    const auto r = verify_cloth_file(z.data(), z.size());
    CHECK(r.status == Status::zstd_frame);
    CHECK(std::string(r.message).find("zstd") != std::string::npos);
    CHECK(verify_cloth_file(z.data(), 4).status == Status::zstd_frame);
}

TEST_CASE("verify_cloth_file: wrong identifier") {
    auto bytes = small_file();
    bytes[4] = 'X';
    const auto r = verify_cloth_file(bytes.data(), bytes.size());
    CHECK(r.status == Status::wrong_identifier);
    CHECK(std::string(r.message).find("DRCL") != std::string::npos);
}

TEST_CASE("verify_cloth_file: a corrupt offset is refused by the FlatBuffers verifier") {
    auto bytes = small_file();
    // The root offset (bytes 0..3) pointed past the end.
    const uint32_t past = uint32_t(bytes.size() + 64);
    std::memcpy(bytes.data(), &past, 4);
    const auto r = verify_cloth_file(bytes.data(), bytes.size());
    CHECK(r.status == Status::invalid_flatbuffer);
    CHECK(std::string(r.message).find("verifier") != std::string::npos);
}

TEST_CASE("verify_cloth_file: another major version is refused") {
    const auto bytes = small_file(3);
    const auto r = verify_cloth_file(bytes.data(), bytes.size());
    CHECK(r.status == Status::unsupported_version);
    CHECK(r.major == 3);
    CHECK(r.file == nullptr);
    CHECK(std::string(r.message).find("2.x") != std::string::npos);
}

TEST_CASE("verify_cloth_file: a file without format_version is refused") {
    // format_version is required by the schema. An empty table written by hand: the generated
    // Pack() would assert on the missing field in a build without NDEBUG.
    flatbuffers::FlatBufferBuilder fbb;
    const auto start = fbb.StartTable();
    fbb.Finish(flatbuffers::Offset<fb::ClothFile>(fbb.EndTable(start)), fb::ClothFileIdentifier());
    const auto r = verify_cloth_file(fbb.GetBufferPointer(), fbb.GetSize());
    CHECK(r.status == Status::invalid_flatbuffer);
}

namespace {

// One cloth data whose only operator is built by `make_operator` in the builder.
template <class MakeOperator>
std::vector<uint8_t> file_of_one_operator(MakeOperator make_operator) {
    flatbuffers::FlatBufferBuilder b;
    const auto op = make_operator(b);
    const auto ops = b.CreateVector(std::vector{op});
    const auto name = b.CreateString("cloth");
    const auto cd = fb::CreateClothData(b, name, 0, 0, 0, ops);
    const auto cds = b.CreateVector(std::vector{cd});
    const auto version = fb::CreateFormatVersion(b);
    b.Finish(fb::CreateClothFile(b, version, 0, 0, 0, cds), fb::ClothFileIdentifier());
    return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

std::string refusal(const std::vector<uint8_t>& bytes) {
    const auto r = verify_cloth_file(bytes.data(), bytes.size());
    return r.status == Status::incomplete && r.file == nullptr ? r.message : "(not refused as incomplete: " + std::string(r.message) + ")";
}

}  // namespace

TEST_CASE("verify_cloth_file: every union naming a kind without its table is refused, with the object's path") {
    // The FlatBuffers verifier lets these through; the generated accessor then returns null where
    // every reader expects the kind's table.
    const auto files = drape::test::drcloth_unions_without_table();
    REQUIRE(files.size() == 5);
    std::map<std::string, std::string> expected = {
        {"object_space_skin_without_table.drcloth",
         "cloth_datas[0] 'cloth' operators[0] 'skin' data: the union's type is ObjectSpaceSkinOperator but it holds no table"},
        {"move_particles_without_table.drcloth",
         "cloth_datas[0] 'cloth' operators[0] 'move' data: the union's type is MoveParticlesOperator but it holds no table"},
        {"simulate_without_table_after_a_refused_operator.drcloth",
         "cloth_datas[0] 'cloth' operators[1] 'simulate' data: the union's type is SimulateOperator but it holds no table"},
        {"constraint_set_without_table.drcloth",
         "cloth_datas[0] 'cloth' sim_cloth_datas[0] 'sim' static_constraint_sets[0] 'links' data: the union's type is StandardLinkSet but it holds no table"},
        {"collidable_shape_without_table.drcloth", "collidables[0] 'sphere' shape: the union's type is SphereShape but it holds no table"},
    };
    for (const auto& file : files) {
        CAPTURE(file.first);
        REQUIRE(expected.count(file.first));
        CHECK(refusal(file.second) == expected[file.first]);
    }
}

TEST_CASE("verify_cloth_file: a union holding a table under NONE is refused, one of a later minor's kind is accepted") {
    const auto under_none = file_of_one_operator([](flatbuffers::FlatBufferBuilder& b) {
        const auto data = fb::CreateUnknownOperator(b);
        const auto name = b.CreateString("slot");
        return fb::CreateOperator(b, name, 0, 0, 0, 0, fb::OperatorData::NONE, data.Union());
    });
    CHECK(refusal(under_none) == "cloth_datas[0] 'cloth' operators[0] 'slot' data: the union holds a table but its type is NONE");
    // Union members are appended (schema rule 4): a 2.x file of a later minor may name a kind this
    // reader does not know, with or without a table; no reader here reads it.
    for (const bool with_table : {false, true}) {
        const auto later = file_of_one_operator([&](flatbuffers::FlatBufferBuilder& b) {
            const auto data = fb::CreateUnknownOperator(b);
            const auto name = b.CreateString("later");
            return fb::CreateOperator(b, name, 0, 0, 0, 0, fb::OperatorData(uint8_t(fb::OperatorData::MAX) + 1), with_table ? data.Union() : 0);
        });
        CAPTURE(with_table);
        CHECK(verify_cloth_file(later.data(), later.size()).ok());
    }
    // An empty slot (NONE, nothing held) is a file's own business.
    const auto empty_slot = file_of_one_operator([](flatbuffers::FlatBufferBuilder& b) {
        const auto name = b.CreateString("empty");
        return fb::CreateOperator(b, name);
    });
    CHECK(verify_cloth_file(empty_slot.data(), empty_slot.size()).ok());
}

TEST_CASE("verify_cloth_file: a deformer operator without its deformer or its local blocks is refused") {
    for (const bool has_deformer : {false, true}) {
        const auto bytes = file_of_one_operator([&](flatbuffers::FlatBufferBuilder& b) {
            const auto deformer = fb::CreateDeformer(b);
            const auto local = fb::CreateLocalBlocks(b);
            const auto skin = fb::CreateBoneSpaceSkinOperator(b, fb::VertexChannels::P, 0, 0, 0, has_deformer ? deformer : 0, has_deformer ? 0 : local);
            const auto name = b.CreateString("skin");
            return fb::CreateOperator(b, name, 0, 0, 0, 0, fb::OperatorData::BoneSpaceSkinOperator, skin.Union());
        });
        CAPTURE(has_deformer);
        CHECK(refusal(bytes) == std::string("cloth_datas[0] 'cloth' operators[0] 'skin' data.") + (has_deformer ? "local" : "deformer") +
                                    ": missing (a deformer operator needs its deformer and local blocks)");
    }
}

// ---- the .drcloth -> hcl reader (exporters/cloth/cloth_read.cpp) ----------------------------

#include <zstd.h>

#include "drape/exporters/cloth_export.h"
#include "drape/exporters/cloth_read.h"

namespace {

// A small hcl cloth: one sim cloth with a collidable, one skin operator, one state.
drape::hcl::ClothContainer small_cloth() {
    using namespace drape;
    hcl::ClothContainer c;
    hcl::ClothData cd;
    cd.name = "small";
    hcl::SimClothData s;
    s.name = "sim";
    s.particles.resize(2);
    s.fixed_particles = {0};
    hcl::Collidable col;
    col.item = 7;
    col.name = "capsule";
    hcl::Shape shape;
    shape.class_name = "hclCapsuleShape";
    shape.kind = hcl::ShapeKind::capsule;
    shape.radius = 0.25f;
    col.shape = shape;
    s.per_instance_collidables = {col};
    s.collidable_transform_map.transform_set_index = 0;
    s.collidable_transform_map.transform_indices = {1};
    s.collidable_transform_map.offsets = {hcl::Mat4{}};
    cd.sim_cloths.push_back(s);
    hcl::Operator op;
    op.item = 3;
    op.class_name = "hclObjectSpaceSkinPOperator";
    op.kind = hcl::OperatorKind::object_space_skin_p;
    op.transform_subset = {1};
    op.deformer.control_bytes = {3};
    cd.operators.push_back(op);
    c.cloth_datas.push_back(cd);
    return c;
}

std::vector<uint8_t> pack(fb::ClothFileT& file) {
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(fb::ClothFile::Pack(fbb, &file), fb::ClothFileIdentifier());
    return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

}  // namespace

TEST_CASE("cloth_read: a small exported file reads back whole and is refused at every shorter length") {
    auto c = small_cloth();
    auto bytes = drape::cloth_export::export_cloth(c, {});
    REQUIRE(bytes);
    auto back = drape::cloth_read::drcloth_to_hcl(*bytes);
    REQUIRE_MESSAGE(back, back.error().to_string());
    drape::cloth_read::clear_items(c);
    drape::cloth_read::clear_items(*back);
    CHECK(*back == c);
    for (size_t n = 0; n < bytes->size(); ++n) {
        std::vector<uint8_t> cut(bytes->begin(), bytes->begin() + long(n));
        CAPTURE(n);
        CHECK_FALSE(drape::cloth_read::drcloth_to_hcl(cut));
    }
}

TEST_CASE("cloth_read: one test per error message") {
    using drape::cloth_read::drcloth_to_hcl;
    auto message = [](const drape::Result<drape::hcl::ClothContainer>& r) { return r ? std::string() : r.error().to_string(); };
    // zstd: a frame without a content size, one declaring too much, a corrupt one.
    {
        const std::vector<uint8_t> no_size = {0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x00, 0x01, 0x00, 0x00};
        CHECK(message(drcloth_to_hcl(no_size)).find("zstd frame without a readable content size") != std::string::npos);
        std::vector<uint8_t> big(1 << 20, 0);
        std::vector<uint8_t> z(ZSTD_compressBound(big.size()));
        z.resize(ZSTD_compress(z.data(), z.size(), big.data(), big.size(), 1));
        CHECK(message(drcloth_to_hcl(z)).find("refused as too large") != std::string::npos);
        auto plain = drape::cloth_export::export_cloth(small_cloth(), {});
        REQUIRE(plain);
        std::vector<uint8_t> zz(ZSTD_compressBound(plain->size()));
        zz.resize(ZSTD_compress(zz.data(), zz.size(), plain->data(), plain->size(), 1));
        zz.resize(zz.size() - 3);  // the frame's last block cut short
        CHECK(message(drcloth_to_hcl(zz)).find("corrupt zstd frame") != std::string::npos);
    }
    // The verifier's refusals carry its sentence.
    std::vector<uint8_t> junk(64, 0);
    CHECK(message(drcloth_to_hcl(junk)).find("DRCL") != std::string::npos);
    CHECK(message(drcloth_to_hcl(std::vector<uint8_t>(3, 0))).find("too small") != std::string::npos);
    // A verified tree whose collidable indices are out of range.
    {
        fb::ClothFileT file;
        file.format_version = std::make_unique<fb::FormatVersionT>();
        auto cd = std::make_unique<fb::ClothDataT>();
        auto sim = std::make_unique<fb::SimClothDataT>();
        sim->name = "sim";
        sim->collidables = {5};
        cd->sim_cloth_datas.push_back(std::move(sim));
        file.cloth_datas.push_back(std::move(cd));
        const auto bytes = pack(file);
        CHECK(message(drcloth_to_hcl(bytes)).find("sim cloth 'sim' names collidable 5 of 0") != std::string::npos);
    }
    {
        fb::ClothFileT file;
        file.format_version = std::make_unique<fb::FormatVersionT>();
        file.container_collidables = {2};
        const auto bytes = pack(file);
        CHECK(message(drcloth_to_hcl(bytes)).find("names collidable 2 of 0") != std::string::npos);
    }
}
