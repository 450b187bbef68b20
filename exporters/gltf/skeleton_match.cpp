// Matching FLVER nodes to a Havok (or any named) skeleton, and the bone-match report.
#include <cmath>
#include <sstream>
#include <unordered_map>

#include "drape/exporters/gltf.h"
#include "xform.h"

namespace drape::exporters {

Skeleton skeleton_from_flver(const flver::Model& model) {
    Skeleton s;
    for (const auto& n : model.nodes) {
        SkeletonBone b;
        b.name = n.name;
        b.parent = n.parent;
        b.translation = {n.translation.x, n.translation.y, n.translation.z};
        xf::Quat q = xf::euler_to_quat(n.rotation.x, n.rotation.y, n.rotation.z);
        b.rotation = {float(q[0]), float(q[1]), float(q[2]), float(q[3])};
        b.scale = {n.scale.x, n.scale.y, n.scale.z};
        s.bones.push_back(b);
    }
    return s;
}

BoneMatchReport match_skeleton(const flver::Model& model, const Skeleton& skeleton, float tol_t, float tol_r) {
    BoneMatchReport rep;
    rep.tolerance_translation = tol_t;
    rep.tolerance_rotation_deg = tol_r;
    std::unordered_map<std::string, size_t> by_name;
    for (size_t i = 0; i < skeleton.bones.size(); ++i) by_name.emplace(skeleton.bones[i].name, i);
    std::vector<uint8_t> seen(skeleton.bones.size());
    const Skeleton flv = skeleton_from_flver(model);
    for (size_t i = 0; i < flv.bones.size(); ++i) {
        const auto& f = flv.bones[i];
        auto it = by_name.find(f.name);
        if (it == by_name.end()) {
            rep.flver_only.push_back(f.name);
            continue;
        }
        seen[it->second] = 1;
        rep.matched.push_back(f.name);
        const auto& h = skeleton.bones[it->second];
        const std::string fp = f.parent >= 0 ? flv.bones[size_t(f.parent)].name : "";
        const std::string hp =
            h.parent >= 0 && size_t(h.parent) < skeleton.bones.size() ? skeleton.bones[size_t(h.parent)].name : "";
        if (fp != hp) rep.parent_mismatches.push_back(f.name + " (FLVER parent '" + fp + "', skeleton parent '" + hp + "')");
        BoneMatchReport::Mismatch mm;
        mm.name = f.name;
        double dt = 0;
        for (int k = 0; k < 3; ++k) dt += double(f.translation[size_t(k)] - h.translation[size_t(k)]) * (f.translation[size_t(k)] - h.translation[size_t(k)]);
        mm.translation_error = float(std::sqrt(dt));
        double hl = 0, d = 0;
        for (int k = 0; k < 4; ++k) {
            hl += double(h.rotation[size_t(k)]) * h.rotation[size_t(k)];
            d += double(f.rotation[size_t(k)]) * h.rotation[size_t(k)];
        }
        d = hl > 0 ? std::fabs(d) / std::sqrt(hl) : 0;
        mm.rotation_error_deg = float(2 * std::acos(std::min(1.0, d)) * 180.0 / 3.14159265358979323846);
        for (int k = 0; k < 3; ++k)
            mm.scale_error = std::max(mm.scale_error, std::fabs(f.scale[size_t(k)] - h.scale[size_t(k)]));
        if (mm.translation_error > tol_t || mm.rotation_error_deg > tol_r || mm.scale_error > rep.tolerance_scale)
            rep.pose_mismatches.push_back(mm);
    }
    for (size_t i = 0; i < skeleton.bones.size(); ++i)
        if (!seen[i]) rep.havok_only.push_back(skeleton.bones[i].name);
    return rep;
}

std::string BoneMatchReport::to_text() const {
    std::ostringstream o;
    o << "bone match: " << matched.size() << " matched, " << flver_only.size() << " FLVER-only, " << havok_only.size()
      << " skeleton-only, " << pose_mismatches.size() << " bind-pose mismatches (tolerance " << tolerance_translation
      << " m, " << tolerance_rotation_deg << " deg, scale " << tolerance_scale << ")\n";
    for (const auto& n : flver_only) o << "flver-only " << n << "\n";
    for (const auto& n : havok_only) o << "skeleton-only " << n << "\n";
    for (const auto& n : parent_mismatches) o << "parent-differs " << n << "\n";
    for (const auto& m : pose_mismatches)
        o << "pose-differs " << m.name << " translation " << m.translation_error << " m, rotation " << m.rotation_error_deg
          << " deg, scale " << m.scale_error << "\n";
    return o.str();
}

}  // namespace drape::exporters
