// drape cloth format: the one check every reader of a .drcloth makes before it touches the
// FlatBuffer (the runtime's loader, `drape check`, `drape inspect`, the .drcloth -> hcl reader).
//
// Header-only, no dependency but FlatBuffers and the generated cloth_generated.h, no allocation,
// no exceptions. Contract:
//   - `bytes` may be any untrusted memory of `size` bytes (nullptr with size 0 is fine); it is
//     only read, never past `size`.
//   - On Status::ok, `file` points into `bytes` and every table, vector, string and union of the
//     tree passed the FlatBuffers verifier, so every accessor of the generated code is safe.
//   - On Status::ok the structure a reader relies on is complete too (check_structure below): the
//     FlatBuffers verifier accepts a union whose type names a kind but whose table is absent (its
//     accessor then returns null where every reader expects the kind's table), so every union of
//     the file is checked here, once, for all readers; and the tables an operator cannot run
//     without (a deformer operator's deformer and local blocks) are present.
//   - Values are NOT checked: indices may still be out of range (`drape check` checks those; a
//     runtime must bound-check what it indexes with them).
//   - A zstd frame (magic 28 B5 2F FD) is reported as Status::zstd_frame and not decoded: drape may
//     write compressed files, the runtime does not decompress; the caller unwraps and calls again.
//   - The format version must be 2.x (any minor: additions are append-only).
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "drape/schema/cloth_generated.h"

namespace drape::schema {

enum class Status {
    ok,
    too_small,            // fewer bytes than a FlatBuffer header (8)
    zstd_frame,           // starts with zstd's magic: decompress first
    wrong_identifier,     // bytes 4..7 are not "DRCL"
    invalid_flatbuffer,   // the FlatBuffers verifier refused the tree
    unsupported_version,  // format_version.major is not 2
    incomplete,           // a union without the table its type names (or with one under NONE), or a
                          // table an operator needs is absent; the message names table, field, index
};

inline constexpr size_t k_check_message_size = 256;  // as the runtime's DRAPE_ERROR_MESSAGE_SIZE

struct ClothFileCheck {
    Status status = Status::too_small;
    // An English sentence, NUL-terminated; for Status::incomplete it names the object's path
    // ("cloth_datas[0] operators[3] 'Skin' data: ..."). An array, not a pointer, so a copy of the
    // check keeps its message.
    char message[k_check_message_size] = "";
    const cloth_fb::ClothFile* file = nullptr;      // set only when status == ok
    uint16_t major = 0, minor = 0;                  // the file's version, once it verified
    bool ok() const { return status == Status::ok; }
};

inline constexpr uint16_t k_format_major = 2;
inline constexpr uint8_t k_zstd_magic[4] = {0x28, 0xB5, 0x2F, 0xFD};

inline bool is_zstd_frame(const void* bytes, size_t size) {
    return bytes && size >= 4 && std::memcmp(bytes, k_zstd_magic, 4) == 0;
}

namespace detail {

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
inline void set_message(ClothFileCheck& r, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(r.message, sizeof r.message, fmt, ap);
    va_end(ap);
}

inline const char* name_of(const flatbuffers::String* s) { return s ? s->c_str() : ""; }

// What is wrong with a union of `type` holding `value` (nullptr when it holds nothing), written
// into `problem`; false when nothing is. A known kind needs its table and NONE holds nothing. A
// type past the last kind this reader knows is a kind of a later 2.x minor (union members are
// appended, schema rule 4): no reader here reads its table.
template <class Kind>
bool union_problem(Kind type, const void* value, const char* const* names, char (&problem)[80]) {
    if (type == Kind::NONE && value) {
        std::snprintf(problem, sizeof problem, "the union holds a table but its type is NONE");
        return true;
    }
    if (type != Kind::NONE && uint8_t(type) <= uint8_t(Kind::MAX) && !value) {
        std::snprintf(problem, sizeof problem, "the union's type is %.36s but it holds no table", names[uint8_t(type)]);
        return true;
    }
    return false;
}

// The deformer operators (skins and mesh-mesh deforms) run their deformer's blocks over their
// local blocks: an operator without either has nothing to run (the exporter writes both always).
template <class DeformerOperator>
const char* missing_deformer_table(const DeformerOperator* op) {
    return !op->deformer() ? "deformer" : !op->local() ? "local" : nullptr;
}

inline const char* missing_operator_table(const cloth_fb::Operator* o) {
    if (const auto* s = o->data_as_ObjectSpaceSkinOperator()) return missing_deformer_table(s);
    if (const auto* s = o->data_as_BoneSpaceSkinOperator()) return missing_deformer_table(s);
    if (const auto* s = o->data_as_ObjectSpaceMeshMeshDeformOperator()) return missing_deformer_table(s);
    if (const auto* s = o->data_as_BoneSpaceMeshMeshDeformOperator()) return missing_deformer_table(s);
    return nullptr;
}

// Every union of the file (collidable shapes, constraint sets, operators) and the tables the
// operators need. The paths are those of the runtime loader's messages ("cloth_datas[c] 'name'
// operators[i] 'name' ..."), names cut so that a message fits k_check_message_size.
inline bool check_structure(ClothFileCheck& r, const cloth_fb::ClothFile* file) {
    char problem[80];
    auto refuse = [&] {
        r.status = Status::incomplete;
        return false;
    };
    if (const auto* cols = file->collidables())
        for (flatbuffers::uoffset_t i = 0; i < cols->size(); ++i) {
            const cloth_fb::Collidable* c = cols->Get(i);
            if (!union_problem(c->shape_type(), c->shape(), cloth_fb::EnumNamesShapeData(), problem)) continue;
            set_message(r, "collidables[%u] '%.40s' shape: %s", unsigned(i), name_of(c->name()), problem);
            return refuse();
        }
    const auto* cds = file->cloth_datas();
    for (flatbuffers::uoffset_t c = 0; cds && c < cds->size(); ++c) {
        const cloth_fb::ClothData* cd = cds->Get(c);
        const auto* sims = cd->sim_cloth_datas();
        for (flatbuffers::uoffset_t s = 0; sims && s < sims->size(); ++s) {
            const cloth_fb::SimClothData* sd = sims->Get(s);
            for (const bool anti_pinch : {false, true}) {
                const auto* sets = anti_pinch ? sd->anti_pinch_constraint_sets() : sd->static_constraint_sets();
                for (flatbuffers::uoffset_t k = 0; sets && k < sets->size(); ++k) {
                    const cloth_fb::ConstraintSet* cs = sets->Get(k);
                    if (!union_problem(cs->data_type(), cs->data(), cloth_fb::EnumNamesConstraintSetData(), problem)) continue;
                    set_message(r, "cloth_datas[%u] '%.30s' sim_cloth_datas[%u] '%.30s' %s[%u] '%.30s' data: %s", unsigned(c), name_of(cd->name()),
                                unsigned(s), name_of(sd->name()), anti_pinch ? "anti_pinch_constraint_sets" : "static_constraint_sets", unsigned(k),
                                name_of(cs->name()), problem);
                    return refuse();
                }
            }
        }
        const auto* ops = cd->operators();
        for (flatbuffers::uoffset_t i = 0; ops && i < ops->size(); ++i) {
            const cloth_fb::Operator* o = ops->Get(i);
            if (union_problem(o->data_type(), o->data(), cloth_fb::EnumNamesOperatorData(), problem)) {
                set_message(r, "cloth_datas[%u] '%.40s' operators[%u] '%.40s' data: %s", unsigned(c), name_of(cd->name()), unsigned(i),
                            name_of(o->name()), problem);
                return refuse();
            }
            if (const char* missing = missing_operator_table(o)) {
                set_message(r, "cloth_datas[%u] '%.40s' operators[%u] '%.40s' data.%s: missing (a deformer operator needs its deformer and local blocks)",
                            unsigned(c), name_of(cd->name()), unsigned(i), name_of(o->name()), missing);
                return refuse();
            }
        }
    }
    return true;
}

}  // namespace detail

// Limits of the verifier: the deepest real file nests 9 tables; the largest holds well under a
// million tables (one per operator, set, pose, block...). Both limits bound the verifier's work on
// hostile input.
inline ClothFileCheck verify_cloth_file(const void* bytes, size_t size) {
    ClothFileCheck r;
    if (is_zstd_frame(bytes, size)) {
        r.status = Status::zstd_frame;
        detail::set_message(r, "a zstd frame: decompress it before reading (the runtime reads plain .drcloth only)");
        return r;
    }
    if (!bytes || size < 8) {
        r.status = Status::too_small;
        detail::set_message(r, "too small for a .drcloth (a FlatBuffer needs at least 8 bytes)");
        return r;
    }
    const auto* p = static_cast<const uint8_t*>(bytes);
    if (!flatbuffers::BufferHasIdentifier(p, cloth_fb::ClothFileIdentifier())) {
        r.status = Status::wrong_identifier;
        detail::set_message(r, "not a .drcloth (no DRCL file identifier at offset 4)");
        return r;
    }
    if (size >= size_t(FLATBUFFERS_MAX_BUFFER_SIZE)) {
        r.status = Status::invalid_flatbuffer;
        detail::set_message(r, "larger than a FlatBuffer can be (2 GiB)");
        return r;
    }
    flatbuffers::Verifier verifier(p, size, /*max_depth=*/64, /*max_tables=*/4000000);
    if (!cloth_fb::VerifyClothFileBuffer(verifier)) {
        r.status = Status::invalid_flatbuffer;
        detail::set_message(r, "the FlatBuffers verifier refused the file (truncated or corrupt)");
        return r;
    }
    const cloth_fb::ClothFile* file = cloth_fb::GetClothFile(p);
    r.major = file->format_version()->major();
    r.minor = file->format_version()->minor();
    if (r.major != k_format_major) {
        r.status = Status::unsupported_version;
        detail::set_message(r, "a .drcloth of another major format version (this reader reads 2.x)");
        return r;
    }
    if (!detail::check_structure(r, file)) return r;
    r.status = Status::ok;
    detail::set_message(r, "ok");
    r.file = file;
    return r;
}

}  // namespace drape::schema
