#include "drcloth_fixtures.h"

#include <memory>

#include "drape/schema/cloth_generated.h"

namespace drape::test {

namespace fb = drape::cloth_fb;

namespace {

using Bytes = std::vector<uint8_t>;

fb::Vec4 v4(float x, float y, float z, float w = 0) { return fb::Vec4(x, y, z, w); }
const fb::Mat4 k_identity(v4(1, 0, 0), v4(0, 1, 0), v4(0, 0, 1), v4(0, 0, 0, 1));

// The cloth's four particles, a square of 1 m hanging in the xy plane; the top row is pinned.
const fb::Vec4 k_rest[4] = {v4(0, 1, 0, 1), v4(1, 1, 0, 1), v4(0, 0, 0, 1), v4(1, 0, 0, 1)};
const std::vector<uint16_t> k_triangles = {0, 1, 2, 2, 1, 3};

enum Buffer : uint32_t { sim_buffer = 0, display_buffer = 1, shadow_buffer = 2 };

std::unique_ptr<fb::BufferDefinitionT> buffer(const char* name, const char* cls, fb::BufferKind kind, int32_t type, bool stores_triangles) {
    auto b = std::make_unique<fb::BufferDefinitionT>();
    b->name = name;
    b->class_name = cls;
    b->kind = kind;
    b->type = type;
    b->num_vertices = 4;
    b->num_triangles = 2;
    if (stores_triangles) b->triangle_indices = k_triangles;
    return b;
}

std::unique_ptr<fb::OperatorT> op(const char* name, const char* cls, uint32_t id) {
    auto o = std::make_unique<fb::OperatorT>();
    o->name = name;
    o->class_name = cls;
    o->operator_id = id;
    return o;
}

std::unique_ptr<fb::SimClothDataT> sim_cloth() {
    auto s = std::make_unique<fb::SimClothDataT>();
    s->name = "sim";
    s->version = 14;
    s->simulation_info = std::make_unique<fb::SimulationInfoT>();
    s->simulation_info->gravity = std::make_unique<fb::Vec4>(v4(0, -9.81f, 0));
    s->simulation_info->global_damping_per_second = 0.1f;
    s->particle_datas = {fb::ParticleData(0, 0, 0.01f, 0.5f), fb::ParticleData(0, 0, 0.01f, 0.5f), fb::ParticleData(1, 1, 0.01f, 0.5f),
                         fb::ParticleData(1, 1, 0.01f, 0.5f)};
    s->fixed_particles = {0, 1};
    auto pose = std::make_unique<fb::SimClothPoseT>();
    pose->name = "rest";
    pose->positions.assign(std::begin(k_rest), std::end(k_rest));
    s->sim_cloth_poses.push_back(std::move(pose));
    auto links = std::make_unique<fb::ConstraintSetT>();
    links->name = "links";
    links->class_name = "hclStandardLinkConstraintSetMx";
    fb::StandardLinkSetT l;
    l.links = {fb::StandardLink(0, 2, 1, 1), fb::StandardLink(1, 3, 1, 1), fb::StandardLink(2, 3, 1, 1)};
    links->data.Set(std::move(l));
    s->static_constraint_sets.push_back(std::move(links));
    auto range = std::make_unique<fb::ConstraintSetT>();
    range->name = "range";
    range->class_name = "hclLocalRangeConstraintSet";
    fb::LocalRangeSetT r;
    r.local_constraints = {fb::LocalConstraint(2, 2, 0.5f, 0.1f, -0.1f), fb::LocalConstraint(3, 3, 0.5f, 0.1f, -0.1f)};
    r.reference_mesh_buffer_index = display_buffer;
    r.stiffness = 1;
    range->data.Set(std::move(r));
    s->static_constraint_sets.push_back(std::move(range));
    s->collidables = {0};
    s->static_collision_masks = {1, 1, 1, 1};
    s->collidable_transform_map = std::make_unique<fb::CollidableTransformMapT>();
    s->collidable_transform_map->transform_set_index = 0;
    s->collidable_transform_map->transform_indices = {1};
    s->collidable_transform_map->offsets = {k_identity};
    s->triangle_indices = k_triangles;
    s->total_mass = 2;
    s->max_particle_radius = 0.01f;
    return s;
}

// An object-space skin of the display buffer: one 1-blend block of 16 vertices (the four
// vertices, each four times), the top row on bone 1, the bottom row on bone 0.
std::unique_ptr<fb::OperatorT> skin() {
    auto o = op("skin", "hclObjectSpaceSkinPOperator", 1);
    fb::ObjectSpaceSkinOperatorT s;
    s.channels = fb::VertexChannels::P;
    s.output_buffer_index = display_buffer;
    s.transform_set_index = 0;
    s.transform_subset = {0, 1};
    s.bone_from_skin_mesh_transforms = {k_identity, k_identity};
    auto block = std::make_unique<fb::BlendBlockT>();
    block->blends = 1;
    s.local = std::make_unique<fb::LocalBlocksT>();
    for (uint16_t j = 0; j < 16; ++j) {
        const uint16_t v = j % 4;
        block->vertex_indices.push_back(v);
        block->bone_indices.push_back(v < 2 ? 1 : 0);
        s.local->positions.push_back(k_rest[v]);
    }
    s.deformer = std::make_unique<fb::DeformerT>();
    s.deformer->blocks.push_back(std::move(block));
    s.deformer->control_bytes = {3};  // control byte 3: the 1-blend group
    s.deformer->end_vertex_index = 3;
    o->data.Set(std::move(s));
    return o;
}

fb::ClothFileT small_cloth() {
    fb::ClothFileT f;
    f.format_version = std::make_unique<fb::FormatVersionT>();
    f.source = std::make_unique<fb::SourceT>();
    f.source->tool = "drape test fixture";
    auto capsule = std::make_unique<fb::CollidableT>();
    capsule->name = "capsule";
    capsule->transform = std::make_unique<fb::Mat4>(k_identity);
    capsule->shape_class_name = "hclCapsuleShape";
    fb::CapsuleShapeT cap;
    cap.start = std::make_unique<fb::Vec4>(v4(0.5f, 0.5f, -0.3f));
    cap.end = std::make_unique<fb::Vec4>(v4(0.5f, 0.5f, 0.3f));
    cap.radius = 0.1f;
    capsule->shape.Set(std::move(cap));
    f.collidables.push_back(std::move(capsule));

    auto cd = std::make_unique<fb::ClothDataT>();
    cd->name = "cloth";
    cd->target_platform = 2;
    auto ts = std::make_unique<fb::TransformSetDefinitionT>();
    ts->name = "skeleton";
    ts->num_transforms = 2;
    ts->bone_names = {"root", "spine"};
    cd->transform_set_definitions.push_back(std::move(ts));
    cd->buffer_definitions.push_back(buffer("sim", "hclBufferDefinition", fb::BufferKind::Sim, 1, false));
    cd->buffer_definitions.push_back(buffer("cape", "hclBufferDefinition", fb::BufferKind::Display, 4, false));
    cd->buffer_definitions.push_back(buffer("cape_shadow", "hclShadowBufferDefinition", fb::BufferKind::Shadow, 7, true));
    cd->sim_cloth_datas.push_back(sim_cloth());

    // Operators 0..6; the conversions last (small_drcloth_with_larger_shadow leaves them out).
    cd->operators.push_back(skin());
    {
        auto o = op("move", "hclMoveParticlesOperator", 2);
        fb::MoveParticlesOperatorT m;
        m.sim_cloth_index = 0;
        m.ref_buffer_index = display_buffer;
        m.vertex_particle_pairs = {fb::VertexParticlePair(0, 0), fb::VertexParticlePair(1, 1)};
        o->data.Set(std::move(m));
        cd->operators.push_back(std::move(o));
    }
    {
        auto o = op("simulate", "hclSimulateOperator", 3);
        fb::SimulateOperatorT s;
        auto config = std::make_unique<fb::SimulateConfigT>();
        config->name = "default";
        config->constraint_execution = {0, 1};
        s.configs.push_back(std::move(config));
        o->data.Set(std::move(s));
        cd->operators.push_back(std::move(o));
    }
    {
        auto o = op("gather", "hclGatherAllVerticesOperator", 4);
        fb::GatherAllVerticesOperatorT g;
        g.input_buffer_index = sim_buffer;
        g.output_buffer_index = display_buffer;
        g.vertex_input_from_vertex_output = {0, 1, 2, 3};
        o->data.Set(std::move(g));
        cd->operators.push_back(std::move(o));
    }
    {
        auto o = op("frames", "hclUpdateAllVertexFramesOperator", 5);
        fb::UpdateAllVertexFramesOperatorT u;
        u.buffer_index = display_buffer;
        u.num_unique_normal_ids = 4;
        u.vert_to_normal_id = {0, 1, 2, 3};
        u.update_normals = true;
        o->data.Set(std::move(u));
        cd->operators.push_back(std::move(o));
    }
    {
        auto o = op("input", "hclInputConvertOperator", 6);
        fb::InputConvertOperatorT c;
        c.user_buffer_index = display_buffer;
        c.shadow_buffer_index = shadow_buffer;
        o->data.Set(std::move(c));
        cd->operators.push_back(std::move(o));
    }
    {
        auto o = op("output", "hclOutputConvertOperator", 7);
        fb::OutputConvertOperatorT c;
        c.user_buffer_index = display_buffer;
        c.shadow_buffer_index = shadow_buffer;
        o->data.Set(std::move(c));
        cd->operators.push_back(std::move(o));
    }
    auto state = std::make_unique<fb::ClothStateT>();
    state->name = "#01#Default";
    state->operators = {5, 0, 1, 2, 3, 4, 6};
    state->used_buffers = {fb::BufferAccess(display_buffer, false, shadow_buffer)};
    state->used_sim_cloths = {0};
    cd->cloth_state_datas.push_back(std::move(state));
    f.cloth_datas.push_back(std::move(cd));
    return f;
}

Bytes pack(const fb::ClothFileT& f) {
    flatbuffers::FlatBufferBuilder b;
    b.Finish(fb::ClothFile::Pack(b, &f), fb::ClothFileIdentifier());
    return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

// A file of one cloth data `cloth` and the collidables `collidables`, both built in `b`.
Bytes finish(flatbuffers::FlatBufferBuilder& b, flatbuffers::Offset<fb::ClothData> cloth,
             flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Collidable>>> collidables = 0) {
    const auto version = fb::CreateFormatVersion(b);
    const auto cloths = b.CreateVector(std::vector<flatbuffers::Offset<fb::ClothData>>{cloth});
    b.Finish(fb::CreateClothFile(b, version, 0, collidables, 0, cloths), fb::ClothFileIdentifier());
    return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

// An operator whose union type is `kind` and which holds no table: the object API cannot write
// one (it packs the table of the type it names), the builder can.
flatbuffers::Offset<fb::Operator> operator_without_table(flatbuffers::FlatBufferBuilder& b, const char* name, const char* cls, fb::OperatorData kind) {
    const auto n = b.CreateString(name), c = b.CreateString(cls);
    return fb::CreateOperator(b, n, c, 1, 0, 0, kind, 0);
}

Bytes cloth_of_operators(flatbuffers::FlatBufferBuilder& b, const std::vector<flatbuffers::Offset<fb::Operator>>& ops) {
    const auto name = b.CreateString("cloth");
    const auto list = b.CreateVector(ops);
    return finish(b, fb::CreateClothData(b, name, 0, 0, 0, list));
}

}  // namespace

std::vector<uint8_t> small_drcloth() { return pack(small_cloth()); }

std::vector<uint8_t> small_drcloth_with_larger_shadow(uint32_t extra, bool conversions) {
    fb::ClothFileT f = small_cloth();
    fb::ClothDataT& cd = *f.cloth_datas[0];
    cd.buffer_definitions[shadow_buffer]->num_vertices += extra;
    if (!conversions) {
        cd.operators.resize(5);  // the conversions are the last two
        cd.cloth_state_datas[0]->operators = {0, 1, 2, 3, 4};
    }
    return pack(f);
}

std::vector<std::pair<std::string, std::vector<uint8_t>>> drcloth_unions_without_table() {
    std::vector<std::pair<std::string, Bytes>> out;
    {
        flatbuffers::FlatBufferBuilder b;
        const auto skin = operator_without_table(b, "skin", "hclObjectSpaceSkinPNOperator", fb::OperatorData::ObjectSpaceSkinOperator);
        out.emplace_back("object_space_skin_without_table.drcloth", cloth_of_operators(b, {skin}));
    }
    {
        flatbuffers::FlatBufferBuilder b;
        const auto move = operator_without_table(b, "move", "hclMoveParticlesOperator", fb::OperatorData::MoveParticlesOperator);
        out.emplace_back("move_particles_without_table.drcloth", cloth_of_operators(b, {move}));
    }
    {
        // The runtime's loader refuses the copy (its buffers do not exist) before it reaches the
        // simulate operator; the .drcloth reader behind `drape check` reads every operator.
        flatbuffers::FlatBufferBuilder b;
        const auto copy_data = fb::CreateCopyVerticesOperator(b, 7, 7, 1);
        const auto n = b.CreateString("copy"), c = b.CreateString("hclCopyVerticesOperator");
        const auto copy = fb::CreateOperator(b, n, c, 1, 0, 0, fb::OperatorData::CopyVerticesOperator, copy_data.Union());
        const auto simulate = operator_without_table(b, "simulate", "hclSimulateOperator", fb::OperatorData::SimulateOperator);
        out.emplace_back("simulate_without_table_after_a_refused_operator.drcloth", cloth_of_operators(b, {copy, simulate}));
    }
    {
        flatbuffers::FlatBufferBuilder b;
        const auto set_name = b.CreateString("links"), set_class = b.CreateString("hclStandardLinkConstraintSetMx");
        const auto set = fb::CreateConstraintSet(b, set_name, set_class, 0, fb::ConstraintSetData::StandardLinkSet, 0);
        const auto sets = b.CreateVector(std::vector{set});
        const fb::ParticleData particles[2] = {fb::ParticleData(0, 0, 0.01f, 0.5f), fb::ParticleData(1, 1, 0.01f, 0.5f)};
        const auto particle_vector = b.CreateVectorOfStructs(particles, 2);
        const auto sim_name = b.CreateString("sim");
        const auto sim = fb::CreateSimClothData(b, sim_name, 14, 0, particle_vector, 0, false, 0, 0, sets);
        const auto sims = b.CreateVector(std::vector{sim});
        const auto name = b.CreateString("cloth");
        out.emplace_back("constraint_set_without_table.drcloth", finish(b, fb::CreateClothData(b, name, 0, 0, sims)));
    }
    {
        flatbuffers::FlatBufferBuilder b;
        const auto col_name = b.CreateString("sphere"), col_class = b.CreateString("hclSphereShape");
        const auto col = fb::CreateCollidable(b, col_name, nullptr, nullptr, nullptr, 0, col_class, fb::ShapeData::SphereShape, 0);
        const auto cols = b.CreateVector(std::vector{col});
        const auto name = b.CreateString("cloth");
        const auto cloth = fb::CreateClothData(b, name);
        out.emplace_back("collidable_shape_without_table.drcloth", finish(b, cloth, cols));
    }
    return out;
}

}  // namespace drape::test
