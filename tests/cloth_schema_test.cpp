// Nothing is dropped silently: every member of every census class of the Havok 2018 registry is
// carried by schema/cloth.fbs or listed, with its reason, in cloth_export::dropped_members();
// and every field of the schema is explained in docs/cloth-format.md.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "corpus.h"
#include "drape/exporters/cloth_export.h"

using namespace drape;

namespace {

std::string slurp(const std::filesystem::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// Table/struct name -> field names, from the .fbs text.
std::map<std::string, std::set<std::string>> schema_fields() {
    std::string text = slurp(std::filesystem::path(DRAPE_SOURCE_DIR) / "schema" / "cloth.fbs");
    // Strip comments.
    text = std::regex_replace(text, std::regex("//[^\n]*"), "");
    std::map<std::string, std::set<std::string>> out;
    static const std::regex block(R"((table|struct)\s+(\w+)\s*\{([^}]*)\})");
    static const std::regex field(R"((?:[{;\n])\s*(\w+)\s*:)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), block); it != std::sregex_iterator(); ++it) {
        std::string body = ";" + std::string((*it)[3]);
        auto& set = out[(*it)[2]];
        for (auto f = std::sregex_iterator(body.begin(), body.end(), field); f != std::sregex_iterator(); ++f) set.insert((*f)[1]);
    }
    return out;
}

std::string snake(const std::string& s) {
    std::string o;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        bool upper = c >= 'A' && c <= 'Z';
        if (upper && i > 0) {
            char p = s[i - 1];
            bool prev_lower = (p >= 'a' && p <= 'z') || (p >= '0' && p <= '9');
            bool next_lower = i + 1 < s.size() && s[i + 1] >= 'a' && s[i + 1] <= 'z';
            bool prev_upper = p >= 'A' && p <= 'Z';
            if (prev_lower || (prev_upper && next_lower)) o += '_';
        }
        o += upper ? char(c + 32) : c;
    }
    return o;
}

struct RegistryType {
    std::string name;
    std::vector<std::string> members;
};

std::map<std::string, RegistryType> registry() {
    std::ifstream f(test::reference_dir() / "havok" / "HavokTypeRegistry20180100.xml");
    REQUIRE(f);
    std::map<std::string, RegistryType> out;
    std::string line, current;
    static const std::regex type_re(R"re(<HavokType Id="\d+" Name="([^"]+)")re");
    static const std::regex member_re(R"re(<Member Name="([^"]+)")re");
    std::smatch m;
    while (std::getline(f, line)) {
        if (std::regex_search(line, m, type_re)) {
            current = m[1];
            if (!out.count(current)) out[current].name = current;
            else current.clear();  // template instances share names: keep the first
        } else if (!current.empty() && std::regex_search(line, m, member_re)) {
            out[current].members.push_back(m[1]);
        }
    }
    return out;
}

}  // namespace

TEST_CASE("cloth schema: every member of every census class is carried or listed as dropped") {
    auto reg = registry();
    auto schema = schema_fields();
    REQUIRE(reg.count("hclSimClothData"));
    REQUIRE(schema.count("SimClothData"));

    // Census classes (docs/havok-cloth.md) and the nested types their members use -> schema table.
    const std::vector<std::pair<std::string, std::string>> classes = {
        {"hclClothContainer", "ClothFile"},
        {"hclClothData", "ClothData"},
        {"hclSimClothData", "SimClothData"},
        {"hclSimClothData::ParticleData", "ParticleData"},
        {"hclSimClothData::OverridableSimulationInfo", "SimulationInfo"},
        {"hclSimClothData::CollidableTransformMap", "CollidableTransformMap"},
        {"hclSimClothData::LandscapeCollisionData", "LandscapeCollisionData"},
        {"hclSimClothData::TransferMotionData", "TransferMotionData"},
        {"hclSimClothData::CollidablePinchingData", "CollidablePinchingData"},
        {"hclSimClothPose", "SimClothPose"},
        {"hclVirtualCollisionPointsData", "VirtualCollisionPointsData"},
        {"hclVirtualCollisionPointsData::Block", "VcpBlock"},
        {"hclVirtualCollisionPointsData::BarycentricDictionaryEntry", "BarycentricDictionaryEntry"},
        {"hclVirtualCollisionPointsData::BarycentricPair", "BarycentricPair"},
        {"hclVirtualCollisionPointsData::EdgeFanSection", "EdgeFanSection"},
        {"hclVirtualCollisionPointsData::EdgeFan", "EdgeFan"},
        {"hclVirtualCollisionPointsData::EdgeFanLandscape", "EdgeFanLandscape"},
        {"hclVirtualCollisionPointsData::TriangleFanSection", "TriangleFanSection"},
        {"hclVirtualCollisionPointsData::TriangleFan", "TriangleFan"},
        {"hclVirtualCollisionPointsData::TriangleFanLandscape", "TriangleFanLandscape"},
        {"hclClothState", "ClothState"},
        {"hclClothState::BufferAccess", "BufferAccess"},
        {"hclClothState::TransformSetAccess", "TransformSetAccess"},
        {"hclBufferUsage", "BufferAccess"},
        {"hclTransformSetUsage", "TransformSetAccess"},
        {"hclBufferDefinition", "BufferDefinition"},
        {"hclScratchBufferDefinition", "BufferDefinition"},
        {"hclShadowBufferDefinition", "BufferDefinition"},
        {"hclBufferLayout", "BufferLayout"},
        {"hclBufferLayout::BufferElement", "BufferElement"},
        {"hclBufferLayout::Slot", "BufferSlot"},
        {"hclTransformSetDefinition", "TransformSetDefinition"},
        {"hclConstraintSet", "ConstraintSet"},
        {"hclStandardLinkConstraintSet", "StandardLinkSet"},
        {"hclStandardLinkConstraintSet::Link", "StandardLink"},
        {"hclStretchLinkConstraintSet", "StretchLinkSet"},
        {"hclStretchLinkConstraintSet::Link", "StretchLink"},
        {"hclBendLinkConstraintSet", "BendLinkSet"},
        {"hclBendLinkConstraintSet::Link", "BendLink"},
        {"hclBendStiffnessConstraintSet", "BendStiffnessSet"},
        {"hclBendStiffnessConstraintSet::Link", "BendStiffnessLink"},
        {"hclCompressibleLinkConstraintSet", "CompressibleLinkSet"},
        {"hclCompressibleLinkConstraintSet::Link", "CompressibleLink"},
        {"hclLocalRangeConstraintSet", "LocalRangeSet"},
        {"hclLocalRangeConstraintSet::LocalConstraint", "LocalConstraint"},
        {"hclTransitionConstraintSet", "TransitionSet"},
        {"hclTransitionConstraintSet::PerParticle", "TransitionParticle"},
        {"hclVolumeConstraintMx", "VolumeMxSet"},
        {"hclVolumeConstraintMx::FrameSingleData", "VolumeEntry"},
        {"hclVolumeConstraintMx::ApplySingleData", "VolumeEntry"},
        {"hclVolumeConstraintMx::FrameBatchData", "VolumeEntry"},
        {"hclVolumeConstraintMx::ApplyBatchData", "VolumeEntry"},
        {"hclCollidable", "Collidable"},
        {"hclShape", "Collidable"},
        {"hclSphereShape", "SphereShape"},
        {"hclPlaneShape", "PlaneShape"},
        {"hclCapsuleShape", "CapsuleShape"},
        {"hclTaperedCapsuleShape", "TaperedCapsuleShape"},
        {"hclConvexGeometryShape", "ConvexGeometryShape"},
        {"hclOperator", "Operator"},
        {"hclSimulateOperator", "SimulateOperator"},
        {"hclSimulateOperator::Config", "SimulateConfig"},
        {"hclMoveParticlesOperator", "MoveParticlesOperator"},
        {"hclMoveParticlesOperator::VertexParticlePair", "VertexParticlePair"},
        {"hclObjectSpaceSkinOperator", "ObjectSpaceSkinOperator"},
        {"hclObjectSpaceSkinPOperator", "ObjectSpaceSkinOperator"},
        {"hclObjectSpaceSkinPNOperator", "ObjectSpaceSkinOperator"},
        {"hclObjectSpaceSkinPNTOperator", "ObjectSpaceSkinOperator"},
        {"hclObjectSpaceDeformer", "Deformer"},
        {"hclBoneSpaceSkinOperator", "BoneSpaceSkinOperator"},
        {"hclBoneSpaceSkinPOperator", "BoneSpaceSkinOperator"},
        {"hclBoneSpaceSkinPNOperator", "BoneSpaceSkinOperator"},
        {"hclBoneSpaceSkinPNTOperator", "BoneSpaceSkinOperator"},
        {"hclBoneSpaceDeformer", "Deformer"},
        {"hclCopyVerticesOperator", "CopyVerticesOperator"},
        {"hclGatherAllVerticesOperator", "GatherAllVerticesOperator"},
        {"hclGatherSomeVerticesOperator", "GatherSomeVerticesOperator"},
        {"hclGatherSomeVerticesOperator::VertexPair", "GatherPair"},
        {"hclInputConvertOperator", "InputConvertOperator"},
        {"hclOutputConvertOperator", "OutputConvertOperator"},
        {"hclUpdateAllVertexFramesOperator", "UpdateAllVertexFramesOperator"},
        {"hclUpdateSomeVertexFramesOperator", "UpdateSomeVertexFramesOperator"},
        {"hclUpdateSomeVertexFramesOperator::Triangle", "Triangle"},
        {"hclSimpleMeshBoneDeformOperator", "SimpleMeshBoneDeformOperator"},
        {"hclSimpleMeshBoneDeformOperator::TriangleBonePair", "SimpleTriangleBonePair"},
        {"hclMeshBoneDeformOperator", "MeshBoneDeformOperator"},
        {"hclMeshBoneDeformOperator::TriangleBonePair", "MeshTriangleBonePair"},
        {"hclObjectSpaceMeshMeshDeformOperator", "ObjectSpaceMeshMeshDeformOperator"},
        {"hclObjectSpaceMeshMeshDeformPOperator", "ObjectSpaceMeshMeshDeformOperator"},
        {"hclObjectSpaceMeshMeshDeformPNOperator", "ObjectSpaceMeshMeshDeformOperator"},
        {"hclObjectSpaceMeshMeshDeformPNTOperator", "ObjectSpaceMeshMeshDeformOperator"},
        {"hclBoneSpaceMeshMeshDeformOperator", "BoneSpaceMeshMeshDeformOperator"},
        {"hclBoneSpaceMeshMeshDeformPOperator", "BoneSpaceMeshMeshDeformOperator"},
        {"hclBoneSpaceMeshMeshDeformPNOperator", "BoneSpaceMeshMeshDeformOperator"},
        {"hclBoneSpaceMeshMeshDeformPNTOperator", "BoneSpaceMeshMeshDeformOperator"},
    };
    // Members carried under another name: (class, member) -> schema field.
    const std::map<std::pair<std::string, std::string>, std::string> renamed = {
        {{"hclBufferUsage", "perComponentFlags"}, "per_component_flags"},
        {{"hclClothState::BufferAccess", "bufferUsage"}, "per_component_flags"},  // flattened with triangles_read
        {{"hclClothState::TransformSetAccess", "transformSetUsage"}, "per_component_flags"},
        {{"hclBufferLayout", "elementsLayout"}, "elements"},
        {{"hclBufferDefinition", "bufferLayout"}, "buffer_layout"},
        {{"hclVolumeConstraintMx::FrameSingleData", "weight"}, "weight_or_stiffness"},
        {{"hclVolumeConstraintMx::FrameBatchData", "weight"}, "weight_or_stiffness"},
        {{"hclVolumeConstraintMx::ApplySingleData", "stiffness"}, "weight_or_stiffness"},
        {{"hclVolumeConstraintMx::ApplyBatchData", "stiffness"}, "weight_or_stiffness"},
        {{"hclVirtualCollisionPointsData::Block", "numVCPs"}, "num_vcps"},
        {{"hclConvexGeometryShape", "objAabb"}, "obj_aabb_min"},
        {{"hclSimClothData", "perInstanceCollidables"}, "collidables"},  // collidable indices: shared objects
        {{"hclSimulateOperator", "simulateOpConfigs"}, "configs"},
        {{"hclObjectSpaceSkinOperator", "objectSpaceDeformer"}, "deformer"},
        {{"hclBoneSpaceSkinOperator", "boneSpaceDeformer"}, "deformer"},
        {{"hclObjectSpaceMeshMeshDeformOperator", "objectSpaceDeformer"}, "deformer"},
        {{"hclBoneSpaceMeshMeshDeformOperator", "boneSpaceDeformer"}, "deformer"},
        {{"hclUpdateSomeVertexFramesOperator::Triangle", "indices"}, "a"},
        {{"hclUpdateAllVertexFramesOperator", "numUniqueNormalIDs"}, "num_unique_normal_ids"},
        {{"hclUpdateSomeVertexFramesOperator", "numUniqueNormalIDs"}, "num_unique_normal_ids"},
    };
    // Local and blend blocks: the deformer's blocks and the local vectors, flattened.
    auto local_field = [](const std::string& member) -> std::string {
        if (member == "localBoneTransforms") return {};  // a member of its own, not local vectors
        if (member.rfind("localUnpacked", 0) == 0) return "positions";
        if (member.rfind("local", 0) == 0) return "packed_positions";
        return {};
    };

    std::set<std::pair<std::string, std::string>> dropped;
    for (const auto& d : cloth_export::dropped_members()) {
        CHECK_MESSAGE(!d.reason.empty(), d.class_name << "." << d.member << " is dropped without a reason");
        dropped.insert({d.class_name, d.member});
    }

    size_t carried = 0, listed = 0;
    for (const auto& entry : classes) {
        const std::string cls = entry.first, table = entry.second;
        CAPTURE(cls);
        REQUIRE_MESSAGE(reg.count(cls), cls << " is not in the registry");
        REQUIRE_MESSAGE(schema.count(table), table << " is not a table or struct of cloth.fbs");
        const auto& fields = schema[table];
        for (const std::string& m : reg[cls].members) {
            CAPTURE(m);
            std::string field;
            if (auto it = renamed.find({cls, m}); it != renamed.end()) field = it->second;
            else if (table.size() > 8 && table.ends_with("Operator") && !local_field(m).empty()) {
                field = "local";
                CHECK(schema["LocalBlocks"].count(local_field(m)));
            } else if (table == "Deformer" && m.find("BlendEntries") != std::string::npos) {
                field = "blocks";
            } else {
                // Havok's *Idx members are *_index fields (inputBufferIdx -> input_buffer_index).
                field = snake(m);
                if (field.ends_with("_idx")) field = field.substr(0, field.size() - 4) + "_index";
            }
            if (dropped.count({cls, m})) {
                ++listed;
                continue;
            }
            CHECK_MESSAGE(fields.count(field), cls << "." << m << " is neither in table " << table << " (as " << field
                                                   << ") nor in the dropped list");
            ++carried;
        }
    }
    // hkReferencedObject's own member is listed.
    for (const std::string& m : reg["hkReferencedObject"].members) CHECK(dropped.count({"hkReferencedObject", m}));
    MESSAGE("census members carried: " << carried << ", listed as dropped: " << listed);
    CHECK(carried > 300);
}

TEST_CASE("cloth schema: every field of cloth.fbs is explained in docs/cloth-format.md") {
    std::string doc = slurp(std::filesystem::path(DRAPE_SOURCE_DIR) / "docs" / "cloth-format.md");
    REQUIRE(!doc.empty());
    auto schema = schema_fields();
    size_t n = 0;
    for (const auto& entry : schema) {
        const std::string table = entry.first;
        const auto& fields = entry.second;
        CHECK_MESSAGE(doc.find(table) != std::string::npos, "table " << table << " is not in the doc");
        for (const auto& f : fields) {
            // A field is explained when it appears in backquotes (alone or as the last part of a range a..b).
            bool found = doc.find("`" + f + "`") != std::string::npos || doc.find("`" + f + "..") != std::string::npos ||
                         doc.find(".." + f + "`") != std::string::npos;
            CHECK_MESSAGE(found, table << "." << f << " is not explained in docs/cloth-format.md");
            ++n;
        }
    }
    CHECK(n > 250);
}
