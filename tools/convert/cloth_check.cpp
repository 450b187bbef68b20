// drape::cloth_check (see cloth_check.h): .drcloth files judged by the runtime's loader and the
// game-file rules.
#include "drape/convert/cloth_check.h"

#include <memory>
#include <ostream>

#include "drape/game/identify.h"
#include "drape/havok/cloth.h"
#include "drape/exporters/cloth_read.h"
#include "drape/schema/cloth_generated.h"
#include "drape/runtime.h"
#include "drape/schema/verify.h"

namespace drape::cloth_check {

namespace fb = drape::cloth_fb;
using cloth_read::drcloth_to_hcl;

bool looks_like_drcloth(Bytes b) {
    if (game::is_drcloth(b)) return true;
    return schema::is_zstd_frame(b.data(), b.size());
}

const char* result_name(drape_result r) {
    switch (r) {
        case DRAPE_RESULT_OK: return "ok";
        case DRAPE_RESULT_INVALID_ARGUMENT: return "invalid argument";
        case DRAPE_RESULT_NOT_CLOTH_FILE: return "not a cloth file";
        case DRAPE_RESULT_UNSUPPORTED_VERSION: return "unsupported version";
        case DRAPE_RESULT_BAD_INDEX: return "bad index";
        case DRAPE_RESULT_BAD_DATA: return "bad data";
        case DRAPE_RESULT_OUT_OF_MEMORY: return "out of memory";
        case DRAPE_RESULT_NOT_FOUND: return "not found";
        case DRAPE_RESULT_BUFFER_TOO_SMALL: return "buffer too small";
        case DRAPE_RESULT_FULL: return "full";
    }
    return "unknown";
}

Result<void> runtime_load(Bytes bytes) {
    std::vector<uint8_t> storage;
    auto plain = cloth_read::unwrap_zstd(bytes, storage);
    if (!plain) return plain.error();
    drape_error err{};
    drape_cloth_file* file = nullptr;
    const drape_result r = drape_cloth_file_load(plain->data(), plain->size(), &file, &err);
    std::unique_ptr<drape_cloth_file, void (*)(drape_cloth_file*)> guard(file, drape_cloth_file_destroy);
    if (r != DRAPE_RESULT_OK) return make_error(std::string("runtime loader: ") + result_name(r) + ": " + err.message);
    return {};
}

bool check_drcloth(const std::string& label, Bytes bytes, std::ostream& out, bool quiet) {
    // The runtime's loader first: what an engine would refuse.
    const Result<void> loaded = runtime_load(bytes);
    if (!loaded) out << label << ": error: " << loaded.error().to_string() << "\n";
    std::vector<std::vector<std::string>> bones;
    auto c = drcloth_to_hcl(bytes, &bones);
    if (!c) {
        // Both readers unwrap and verify through the same code first (verify_cloth_file): a file
        // both refuse is reported once, by the runtime's line above.
        if (loaded) out << label << ": error: " << c.error().to_string() << "\n";
        return false;
    }
    // The transform-set rule needs a skeleton of the same name and size: the bone names the
    // file carries stand for it.
    std::vector<havok::Skeleton> skeletons;
    size_t k = 0;
    for (const auto& cd : c->cloth_datas)
        for (const auto& ts : cd.transform_sets) {
            bool known = false;
            for (const auto& s : skeletons) known |= s.name == ts.name;
            if (k < bones.size() && !bones[k].empty() && !known) {
                havok::Skeleton s;
                s.name = ts.name;
                s.bone_names = bones[k];
                s.parents.assign(bones[k].size(), -1);
                skeletons.push_back(std::move(s));
            }
            ++k;
        }
    auto violations = hcl::check(*c, skeletons);
    if (!quiet) {
        size_t sims = 0, particles = 0, ops = 0;
        for (const auto& cd : c->cloth_datas) {
            sims += cd.sim_cloths.size();
            ops += cd.operators.size();
            for (const auto& s : cd.sim_cloths) particles += s.particles.size();
        }
        out << label << " (drape cloth, verified" << (loaded ? ", loaded by the runtime" : "") << ")\n  " << c->cloth_datas.size() << " cloth data(s), " << sims << " sim cloth(s), "
            << particles << " particles, " << ops << " operators\n";
    }
    for (const auto& v : violations) out << label << ": " << v.object << " " << v.member << ": " << v.message << "\n";
    if (!quiet) {
        // Nothing is dropped silently: what the exporter left out of this file, with the reason.
        std::vector<uint8_t> plain;
        if (drcloth_to_hcl(bytes, nullptr, &plain)) {
            const auto* f = fb::GetClothFile(plain.data());
            for (flatbuffers::uoffset_t i = 0; f->dropped() && i < f->dropped()->size(); ++i) {
                const auto* d = f->dropped()->Get(i);
                if (d->count() == 0) continue;
                out << "  not carried: " << (d->class_name() ? d->class_name()->str() : "") << "."
                    << (d->member() ? d->member()->str() : "") << " (" << d->count()
                    << " object(s)): " << (d->reason() ? d->reason()->str() : "") << "\n";
            }
        }
        const size_t n = violations.size() + (loaded ? 0 : 1);
        out << "  " << (n == 0 ? "clean" : std::to_string(n) + " violation(s)") << "\n";
    }
    return violations.empty() && bool(loaded);
}

namespace {
nlohmann::ordered_json rest_pose(const fb::SimClothData* sc) {
    const auto* r = sc->rest_pose_check();
    if (!r || r->status() != fb::CheckStatus::Checked) return nullptr;
    return r->error_m();
}
}  // namespace

Result<nlohmann::ordered_json> drcloth_summary(Bytes bytes) {
    if (const Result<void> loaded = runtime_load(bytes); !loaded) return loaded.error();
    std::vector<uint8_t> plain;
    auto c = drcloth_to_hcl(bytes, nullptr, &plain);
    if (!c) return c.error();
    const auto* f = fb::GetClothFile(plain.data());
    nlohmann::ordered_json j;
    if (f->format_version()) j["format_version"] = std::to_string(f->format_version()->major()) + "." + std::to_string(f->format_version()->minor());
    if (const auto* s = f->source()) {
        auto str = [](const flatbuffers::String* x) { return x ? x->str() : std::string(); };
        j["source"] = {{"game", str(s->game())}, {"sdk", str(s->sdk())}, {"file", str(s->file())}, {"model", str(s->model())},
                       {"tool", str(s->tool())}};
    }
    j["collidables"] = f->collidables() ? f->collidables()->size() : 0;
    auto& cds = j["cloth_datas"] = nlohmann::ordered_json::array();
    for (flatbuffers::uoffset_t i = 0; f->cloth_datas() && i < f->cloth_datas()->size(); ++i) {
        const auto* cd = f->cloth_datas()->Get(i);
        nlohmann::ordered_json d;
        d["name"] = cd->name() ? cd->name()->str() : "";
        auto& bufs = d["buffers"] = nlohmann::ordered_json::array();
        for (flatbuffers::uoffset_t b = 0; cd->buffer_definitions() && b < cd->buffer_definitions()->size(); ++b) {
            const auto* bd = cd->buffer_definitions()->Get(b);
            nlohmann::ordered_json bj = {{"name", bd->name() ? bd->name()->str() : ""},
                                         {"kind", fb::EnumNameBufferKind(bd->kind())},
                                         {"vertices", bd->num_vertices()},
                                         {"triangles", bd->num_triangles()}};
            if (const auto* db = bd->display_binding()) {
                if (db->status() == fb::CheckStatus::Checked && db->mesh_name()) bj["bound_mesh"] = db->mesh_name()->str();
                else bj["bound_mesh"] = nullptr;
                if (db->position_status() == fb::CheckStatus::Checked) bj["bind_position_error"] = db->bind_position_error();
                else bj["bind_position_error"] = nullptr;
                if (db->reason() && db->reason()->size()) bj["reason"] = db->reason()->str();
            }
            bufs.push_back(bj);
        }
        auto& sims = d["sim_cloths"] = nlohmann::ordered_json::array();
        for (flatbuffers::uoffset_t s = 0; cd->sim_cloth_datas() && s < cd->sim_cloth_datas()->size(); ++s) {
            const auto* sc = cd->sim_cloth_datas()->Get(s);
            nlohmann::ordered_json sets = nlohmann::ordered_json::array();
            for (flatbuffers::uoffset_t k = 0; sc->static_constraint_sets() && k < sc->static_constraint_sets()->size(); ++k)
                sets.push_back(fb::EnumNameConstraintSetData(sc->static_constraint_sets()->Get(k)->data_type()));
            sims.push_back({{"name", sc->name() ? sc->name()->str() : ""},
                            {"particles", sc->particle_datas() ? sc->particle_datas()->size() : 0},
                            {"fixed_particles", sc->fixed_particles() ? sc->fixed_particles()->size() : 0},
                            {"constraint_sets", sets},
                            {"collidables", sc->collidables() ? sc->collidables()->size() : 0},
                            {"rest_pose_error_m", rest_pose(sc)}});
        }
        auto& ops = d["operators"] = nlohmann::ordered_json::array();
        for (flatbuffers::uoffset_t o = 0; cd->operators() && o < cd->operators()->size(); ++o) {
            const auto* op = cd->operators()->Get(o);
            ops.push_back({{"name", op->name() ? op->name()->str() : ""}, {"kind", fb::EnumNameOperatorData(op->data_type())}});
        }
        auto& states = d["states"] = nlohmann::ordered_json::array();
        for (flatbuffers::uoffset_t s = 0; cd->cloth_state_datas() && s < cd->cloth_state_datas()->size(); ++s)
            states.push_back(cd->cloth_state_datas()->Get(s)->name() ? cd->cloth_state_datas()->Get(s)->name()->str() : "");
        if (cd->transform_set_definitions() && cd->transform_set_definitions()->size()) {
            const auto* ts = cd->transform_set_definitions()->Get(0);
            d["transform_set"] = {{"name", ts->name() ? ts->name()->str() : ""},
                                  {"transforms", ts->num_transforms()},
                                  {"bone_names", ts->bone_names() ? ts->bone_names()->size() : 0}};
        }
        cds.push_back(d);
    }
    auto& dropped = j["dropped"] = nlohmann::ordered_json::array();
    for (flatbuffers::uoffset_t i = 0; f->dropped() && i < f->dropped()->size(); ++i) {
        const auto* d = f->dropped()->Get(i);
        dropped.push_back({{"class", d->class_name() ? d->class_name()->str() : ""},
                           {"member", d->member() ? d->member()->str() : ""},
                           {"count", d->count()},
                           {"reason", d->reason() ? d->reason()->str() : ""}});
    }
    return j;
}

}  // namespace drape::cloth_check
