// drape: FLVER material textures from MATBIN / MTD samplers.
#include "drape/game/materials.h"

#include <cctype>

namespace drape::game {

namespace {

bool same_type(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
    return true;
}

std::string file_name(const std::string& path) {
    const size_t slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::vector<std::string> resolve_material_textures(flver::Model& model, const matbin::MaterialLibrary& library) {
    std::vector<std::string> warnings;
    for (auto& mat : model.materials) {
        if (mat.mtd.empty()) continue;
        auto found = library.find(mat.mtd);
        if (!found) {
            warnings.push_back("material " + mat.name + ": " + found.error().to_string());
            continue;
        }
        const matbin::Material* def = *found;
        if (!def) {
            warnings.push_back("material " + mat.name + ": no definition " + file_name(mat.mtd) + " in the material binders");
            continue;
        }
        std::vector<bool> used(def->samplers.size());
        for (auto& t : mat.textures) {
            for (size_t i = 0; i < def->samplers.size(); ++i) {
                if (!same_type(def->samplers[i].type, t.type)) continue;
                used[i] = true;
                if (t.path.empty()) t.path = def->samplers[i].path;
                break;
            }
        }
        for (size_t i = 0; i < def->samplers.size(); ++i) {
            if (used[i] || def->samplers[i].path.empty()) continue;
            flver::Texture t;
            t.type = def->samplers[i].type;
            t.path = def->samplers[i].path;
            mat.textures.push_back(std::move(t));
        }
        mat.definition = def->member;
        mat.shader = def->shader_path;
        mat.params.clear();
        for (const auto& p : def->params) {
            flver::MaterialParam fp;
            fp.name = p.name;
            fp.type = p.type;
            for (int32_t v : p.ints) fp.values.push_back(double(v));
            for (float v : p.floats) fp.values.push_back(double(v));
            mat.params.push_back(std::move(fp));
        }
    }
    return warnings;
}

size_t resolved_material_count(const flver::Model& model) {
    size_t n = 0;
    for (const auto& m : model.materials) n += m.definition.empty() ? 0 : 1;
    return n;
}

}  // namespace drape::game
