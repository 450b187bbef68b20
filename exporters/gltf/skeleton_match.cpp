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

Skeleton skeleton_from_havok(const havok::Skeleton& s) {
    Skeleton out;
    for (size_t i = 0; i < s.bone_names.size(); ++i) {
        SkeletonBone b;
        b.name = s.bone_names[i];
        b.parent = i < s.parents.size() ? s.parents[i] : -1;
        if (i < s.reference_pose.size()) {
            const auto& t = s.reference_pose[i];
            b.translation = {t.translation[0], t.translation[1], t.translation[2]};
            b.rotation = {t.rotation[0], t.rotation[1], t.rotation[2], t.rotation[3]};
            b.scale = {t.scale[0], t.scale[1], t.scale[2]};
        }
        out.bones.push_back(b);
    }
    return out;
}

namespace {

std::vector<xf::Mat4> world_matrices(const Skeleton& s) {
    const size_t n = s.bones.size();
    std::vector<xf::Mat4> w(n, xf::identity());
    std::vector<uint8_t> state(n);  // 0 new, 1 in progress, 2 done
    for (size_t i = 0; i < n; ++i) {
        std::vector<size_t> chain;
        size_t k = i;
        while (state[k] == 0) {
            state[k] = 1;
            chain.push_back(k);
            int32_t p = s.bones[k].parent;
            if (p < 0 || size_t(p) >= n || state[size_t(p)] == 1) break;  // root, bad index or cycle
            k = size_t(p);
        }
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
            const auto& b = s.bones[*it];
            xf::Mat4 local = xf::trs({b.translation[0], b.translation[1], b.translation[2]},
                                     {b.rotation[0], b.rotation[1], b.rotation[2], b.rotation[3]}, {b.scale[0], b.scale[1], b.scale[2]});
            int32_t p = b.parent;
            w[*it] = (p >= 0 && size_t(p) < n && state[size_t(p)] == 2) ? xf::mul(w[size_t(p)], local) : local;
            state[*it] = 2;
        }
    }
    return w;
}

}  // namespace

BoneMatchReport match_skeleton(const flver::Model& model, const Skeleton& skeleton, float tol_t, float tol_r) {
    BoneMatchReport rep;
    rep.tolerance_translation = tol_t;
    rep.tolerance_rotation_deg = tol_r;
    std::unordered_map<std::string, size_t> by_name;
    for (size_t i = 0; i < skeleton.bones.size(); ++i) by_name.emplace(skeleton.bones[i].name, i);
    std::vector<uint8_t> seen(skeleton.bones.size());
    const Skeleton flv = skeleton_from_flver(model);
    // Bind poses are compared in model space (each skeleton through its own hierarchy), so a
    // FLVER whose nodes are flattened to the root still matches a hierarchical skeleton.
    const std::vector<xf::Mat4> flv_world = world_matrices(flv), sk_world = world_matrices(skeleton);
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
        xf::V3 ft, hs, fs;
        xf::Quat fq, hq;
        xf::V3 ht;
        xf::decompose(flv_world[i], ft, fq, fs);
        xf::decompose(sk_world[it->second], ht, hq, hs);
        mm.translation_error = float(xf::length({ft[0] - ht[0], ft[1] - ht[1], ft[2] - ht[2]}));
        double d = std::fabs(fq[0] * hq[0] + fq[1] * hq[1] + fq[2] * hq[2] + fq[3] * hq[3]);
        mm.rotation_error_deg = float(2 * std::acos(std::min(1.0, d)) * 180.0 / 3.14159265358979323846);
        for (int k = 0; k < 3; ++k) mm.scale_error = std::max(mm.scale_error, float(std::fabs(fs[size_t(k)] - hs[size_t(k)])));
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
