// schema/include/drape/schema/verify.h: the one verifier of .drcloth 2.0 files. A small file built
// here through the generated object API (not through the exporter under test) is accepted whole and
// refused at every shorter length, and every status has its test.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "drape/schema/verify.h"

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
    fb::ClothFileT file;  // format_version is required by the schema
    flatbuffers::FlatBufferBuilder fbb;
    fbb.Finish(fb::ClothFile::Pack(fbb, &file), fb::ClothFileIdentifier());
    const auto r = verify_cloth_file(fbb.GetBufferPointer(), fbb.GetSize());
    CHECK(r.status == Status::invalid_flatbuffer);
}
