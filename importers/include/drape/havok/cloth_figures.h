// drape: the figures that test the games' cloth rules on a real cloth file: the rest-pose figure
// of a sim cloth (its pinned particles computed by the file's own program at the bind pose) and
// the bind positions of the vertices an object-space skin writes. Pure arithmetic on the typed hcl
// views; nothing here reads bytes.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "drape/havok/cloth.h"

namespace drape::hcl {

// How a deformer's control byte value c names the blend group (N influences) of a block of 16
// vertices. The deformer stores its N-blend blocks in members ordered eight, seven, ... one;
// control byte k says which group the k-th processed block comes from.
enum class ControlByteRule : uint8_t {
    four_minus_c,   // N = 4 - c: c indexes the four..one groups (2014, and, proven on the corpus, 2016/2018)
    eight_minus_c,  // N = 8 - c: c indexes the member order eight..one (the old inference for 2016/2018)
};
const char* control_byte_rule_name(ControlByteRule r);
// The blend count c names under `rule`, or 0 when c names no group.
int control_byte_blends(uint8_t c, ControlByteRule rule);
// The rule drape applies to files of the SDK ("hk_2014...", "20160200", "20180100"): the one the
// corpus proves (docs/cloth-format.md "controlBytes").
ControlByteRule control_byte_rule_for_sdk(std::string_view sdk);

bool is_object_space_skin(OperatorKind k);
bool is_bone_space_skin(OperatorKind k);

// The bind-pose position of every vertex an object-space skin operator writes, indexed by vertex
// of its output buffer (NaN where it writes none). At the bind pose each bone times its
// boneFromSkinMesh matrix is the identity, so a vertex's skinned position is its stored local
// position; the control bytes tell which local block belongs to which blend block.
std::vector<std::array<float, 3>> skin_bind_positions(const Operator& skin, uint32_t vertex_count, ControlByteRule rule);
// The same, with each vertex's quantisation step: the value of one unit of its packed local block
// (2^16 * f32bits(scale << 16)); 0 for unpacked blocks, NaN where the skin writes no vertex.
std::vector<std::array<float, 3>> skin_bind_positions(const Operator& skin, uint32_t vertex_count, ControlByteRule rule,
                                                      std::vector<float>* steps);

// The model-space bind pose of a skeleton's bones (each bone's reference pose composed with its
// parents'), as column-major matrices (c3 the translation): what a transform set holds at the
// bind pose, transform i being bone i (docs/havok-cloth.md#transform-sets-and-their-skeleton).
std::vector<Mat4> bind_pose_model_space(const havok::Skeleton& skeleton);

// The bind-pose position of every vertex a bone-space skin writes: vertex = sum over its N bones of
// bind(transform_subset[bone]) x local, the local vectors stored vertex-major (vertex j's bone b at
// entry j*N + b of its local block) with the weight in w. A bone-space N-blend block holds 16 / N
// vertices. `bind` is indexed by transform of the skin's transform set.
std::vector<std::array<float, 3>> bone_space_bind_positions(const Operator& skin, uint32_t vertex_count, ControlByteRule rule,
                                                            const std::vector<Mat4>& bind);

// The operator indices of `cd` that write buffer `buffer` (by each kind's output member).
std::vector<uint32_t> writers_of_buffer(const ClothData& cd, uint32_t buffer);

// The rest-pose figure of sim cloth `sim_index` of `cd`: every move-particles operator of the sim
// cloth takes its reference buffer's vertices from the skins that write that buffer, computed at the
// bind pose; the pinned particles are compared with the first rest pose. Object-space skins need
// nothing more (bone x inverse bind = identity); bone-space skins need the bind pose of their
// transform set: the skeleton of `skeletons` with the transform set's name and bone count.
struct RestPoseFigure {
    bool checked = false;
    float error_m = 0;             // the largest distance, metres
    // The largest per-axis difference in units of the packed block's quantisation step: the rule is
    // right when it is at most 0.5 (rounding to the nearest step); 0 when the blocks are unpacked.
    float error_steps = 0;
    uint32_t particles_checked = 0;
    std::vector<uint32_t> move_particles_operators, skin_operators;
    std::string reason;            // why not checked
};
RestPoseFigure rest_pose_figure(const ClothData& cd, size_t sim_index, ControlByteRule rule,
                                const std::vector<havok::Skeleton>& skeletons = {});

// A fact of the file that is not an error of it but that a runtime must handle, with its kind
// (JSON: "kind"). Kinds:
//   "unmapped_collidables": a sim cloth lists collidables while its collidable transform map is
//     -1 and empty (it drives none of them). `message` names the sim cloths that map the same
//     collidable objects to bones; docs/cloth-format.md "Collidables shared between sim cloths"
//     says what such collidables do.
struct Finding {
    std::string kind, object, member, message;
};
std::vector<Finding> findings(const ClothContainer& cloth);

// Objects per class as the typed view sees them (each object of the source once, by its item):
// the classes the typed view reads. `cloth_data` >= 0 counts that cloth data's objects only
// (collidables it references included). Equal to hcl::census() (the generic view) on every
// class it lists, over a whole file (tests/cloth_corpus_test.cpp).
std::map<std::string, size_t> typed_census(const ClothContainer& cloth, int cloth_data = -1);
// The hcl classes the generic census counts that the typed view does not read as objects.
bool typed_census_skips(std::string_view class_name);

}  // namespace drape::hcl
