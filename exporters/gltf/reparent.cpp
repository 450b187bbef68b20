// Shared bones moved under the parents the Havok skeleton gives them, keeping world bind poses.
#include <unordered_map>

#include "drape/exporters/gltf.h"
#include "xform.h"

namespace drape::exporters {

using json = nlohmann::json;

namespace {

xf::Mat4 havok_local_gltf(const havok::Skeleton& s, size_t i) {
    if (i >= s.reference_pose.size()) return xf::identity();
    const auto& t = s.reference_pose[i];
    xf::Quat q{t.rotation[0], t.rotation[1], t.rotation[2], t.rotation[3]};
    const double l = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (l > 0) q = {q[0] / l, q[1] / l, q[2] / l, q[3] / l};
    // Same change of basis as the model (negate Z): P M P.
    return xf::mirror(xf::trs({t.translation[0], t.translation[1], t.translation[2]}, q, {t.scale[0], t.scale[1], t.scale[2]}));
}

void set_trs(json& node, const xf::Mat4& local) {
    xf::V3 t, s;
    xf::Quat q;
    xf::decompose(local, t, q, s);
    node["translation"] = t;
    node["rotation"] = q;
    if (std::fabs(s[0] - 1) > 1e-6 || std::fabs(s[1] - 1) > 1e-6 || std::fabs(s[2] - 1) > 1e-6) node["scale"] = s;
    else node.erase("scale");
}

void remove_child(json& parent, int child) {
    if (!parent.contains("children")) return;
    json kept = json::array();
    for (const auto& c : parent["children"])
        if (c.get<int>() != child) kept.push_back(c);
    if (kept.empty()) parent.erase("children");
    else parent["children"] = std::move(kept);
}

void add_child(json& parent, int child) {
    if (!parent.contains("children")) parent["children"] = json::array();
    parent["children"].push_back(child);
}

}  // namespace

ReparentReport reparent_to_skeleton(GltfDocument& doc, const ModelNodes& placed, const flver::Model& model, const havok::Skeleton& skel) {
    ReparentReport report;
    json& nodes = doc.json()["nodes"];
    const size_t nb = std::min(skel.bone_names.size(), skel.parents.size());
    std::unordered_map<std::string, size_t> flver_by_name;
    for (size_t i = 0; i < model.nodes.size() && i < placed.flver_node.size(); ++i) flver_by_name.emplace(model.nodes[i].name, i);
    std::vector<int> flver_of(nb, -1);
    for (size_t b = 0; b < nb; ++b)
        if (auto it = flver_by_name.find(skel.bone_names[b]); it != flver_by_name.end()) flver_of[b] = int(it->second);
    // Havok-only bones are needed as nodes when a shared bone hangs below them.
    std::vector<uint8_t> needed(nb);
    for (size_t b = 0; b < nb; ++b) {
        if (flver_of[b] < 0) continue;
        for (int p = skel.parents[b]; p >= 0 && size_t(p) < b && !needed[size_t(p)]; p = skel.parents[size_t(p)])
            if (flver_of[size_t(p)] < 0) needed[size_t(p)] = 1;
    }
    // glTF node and world matrix (glTF space) of every placed bone, parents first.
    std::vector<int> node_of(nb, -1);
    std::vector<xf::Mat4> world(nb, xf::identity());
    auto parent_node = [&](size_t b) -> int {
        const int p = skel.parents[b];
        return p >= 0 && size_t(p) < b && node_of[size_t(p)] >= 0 ? node_of[size_t(p)] : placed.root;
    };
    auto parent_world = [&](size_t b) -> xf::Mat4 {
        const int p = skel.parents[b];
        return p >= 0 && size_t(p) < b && node_of[size_t(p)] >= 0 ? world[size_t(p)] : xf::identity();
    };
    // Current parent of every node (to detach re-parented ones).
    std::vector<int> current_parent(nodes.size(), -1);
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].contains("children"))
            for (const auto& c : nodes[i]["children"]) current_parent[c.get<size_t>()] = int(i);
    for (size_t b = 0; b < nb; ++b) {
        if (flver_of[b] >= 0) {
            const size_t f = size_t(flver_of[b]);
            const int node = placed.flver_node[f];
            node_of[b] = node;
            world[b] = f < placed.world_bind.size() ? xf::mirror(placed.world_bind[f]) : xf::identity();
            const int want = parent_node(b);
            const int have = current_parent[size_t(node)];
            if (want == have) continue;
            // Move the node; its local bind becomes inverse(new parent world) * its world.
            if (have >= 0) remove_child(nodes[size_t(have)], node);
            add_child(nodes[size_t(want)], node);
            current_parent[size_t(node)] = want;
            set_trs(nodes[size_t(node)], xf::mul(xf::affine_inverse(parent_world(b)), world[b]));
            const int fp = model.nodes[f].parent;
            report.reparented.push_back({skel.bone_names[b], fp >= 0 && size_t(fp) < model.nodes.size() ? model.nodes[size_t(fp)].name : "",
                                         skel.parents[b] >= 0 ? skel.bone_names[size_t(skel.parents[b])] : ""});
        } else if (needed[b]) {
            const xf::Mat4 local = havok_local_gltf(skel, b);
            json n = {{"name", skel.bone_names[b]}, {"extras", {{"havok_only", true}}}};
            set_trs(n, local);
            nodes.push_back(std::move(n));
            const int node = int(nodes.size()) - 1;
            current_parent.push_back(parent_node(b));
            add_child(nodes[size_t(parent_node(b))], node);
            node_of[b] = node;
            world[b] = xf::mul(parent_world(b), local);
            report.added_nodes.push_back(skel.bone_names[b]);
        }
    }
    return report;
}

}  // namespace drape::exporters
