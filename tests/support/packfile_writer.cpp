#include "packfile_writer.h"

#include <cstring>
#include <map>

namespace drape::test {

namespace {

using Buf = std::vector<uint8_t>;

void put(Buf& b, size_t at, const void* v, size_t n) {
    if (b.size() < at + n) b.resize(at + n, 0);
    std::memcpy(b.data() + at, v, n);
}
template <class T>
void put(Buf& b, size_t at, T v) {
    put(b, at, &v, sizeof v);
}
void align(Buf& b, size_t to, uint8_t fill = 0) {
    while (b.size() % to) b.push_back(fill);
}

// __classnames__: {u32 signature, 0x09, name\0} per class; a class is named by the offset of its
// name in the section.
struct ClassNames {
    Buf bytes;
    std::map<std::string, uint32_t> offset;
    void add(const std::string& name) {
        const uint32_t signature = 0;
        put(bytes, bytes.size(), signature);
        bytes.push_back(0x09);
        offset[name] = uint32_t(bytes.size());
        bytes.insert(bytes.end(), name.begin(), name.end());
        bytes.push_back(0);
    }
};

// __data__ with its fixups: local (a pointer to bytes of the section), global (a pointer to an
// object), virtual (an object and its class).
struct Data {
    Buf bytes;
    std::vector<std::pair<uint32_t, uint32_t>> local;
    std::vector<std::pair<uint32_t, uint32_t>> global;
    std::vector<std::pair<uint32_t, std::string>> objects;
    uint32_t object(const std::string& cls, size_t size) {
        align(bytes, 16);
        const uint32_t at = uint32_t(bytes.size());
        bytes.resize(at + size, 0);
        objects.emplace_back(at, cls);
        return at;
    }
    uint32_t block(size_t size) {
        align(bytes, 16);
        const uint32_t at = uint32_t(bytes.size());
        bytes.resize(at + size, 0);
        return at;
    }
    void string(uint32_t field, const std::string& s) {
        align(bytes, 16);
        local.emplace_back(field, uint32_t(bytes.size()));
        bytes.insert(bytes.end(), s.begin(), s.end());
        bytes.push_back(0);
    }
    // An hkArray field (pointer, size, capacity with the don't-deallocate flag) over `count`
    // elements at `elements`.
    void array(uint32_t field, uint32_t elements, uint32_t count) {
        if (count) local.emplace_back(field, elements);
        put(bytes, field + 8, count);
        put(bytes, field + 12, count | 0x80000000u);
    }
};

}  // namespace

std::vector<uint8_t> make_skeleton_packfile(const std::string& skeleton_name, const std::vector<std::string>& bone_names) {
    ClassNames names;
    for (const char* cls : {"hkClass", "hkClassMember", "hkClassEnum", "hkClassEnumItem", "hkRootLevelContainer", "hkaAnimationContainer",
                            "hkaSkeleton"})
        names.add(cls);
    align(names.bytes, 16, 0xFF);

    Data d;
    // hkRootLevelContainer: namedVariants (one: name, className, variant).
    const uint32_t root = d.object("hkRootLevelContainer", 16);
    const uint32_t variant = d.block(24);
    d.array(root, variant, 1);
    d.string(variant, "Merged Animation Container");
    d.string(variant + 8, "hkaAnimationContainer");
    // hkaAnimationContainer (hkReferencedObject, then skeletons, animations, bindings,
    // attachments, skins): one skeleton.
    const uint32_t container = d.object("hkaAnimationContainer", 96);
    d.global.emplace_back(variant + 16, container);
    const uint32_t skeletons = d.block(8);
    d.array(container + 16, skeletons, 1);
    // hkaSkeleton: name @16, parentIndices @24, bones @40, referencePose @56, then four empty arrays.
    const uint32_t skeleton = d.object("hkaSkeleton", 136);
    d.global.emplace_back(skeletons, skeleton);
    put(d.bytes, skeleton + 8, uint32_t(0xFFFF0001));  // memSizeAndRefCount as the games store it
    d.string(skeleton + 16, skeleton_name);
    const uint32_t n = uint32_t(bone_names.size());
    const uint32_t parents = d.block(n * 2);
    for (uint32_t i = 0; i < n; ++i) put(d.bytes, parents + i * 2, int16_t(int32_t(i) - 1));
    d.array(skeleton + 24, parents, n);
    const uint32_t bones = d.block(n * 16);  // hkaBone: name, lockTranslation
    d.array(skeleton + 40, bones, n);
    for (uint32_t i = 0; i < n; ++i) d.string(bones + i * 16, bone_names[i]);
    const uint32_t pose = d.block(n * 48);  // hkQsTransform: translation, rotation, scale
    d.array(skeleton + 56, pose, n);
    for (uint32_t i = 0; i < n; ++i) {
        const float t[12] = {0, i ? 0.1f : 0.0f, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1};
        put(d.bytes, pose + i * 48, t, sizeof t);
    }
    align(d.bytes, 16);

    // The fixup tables after the section's data, each padded to 16 with 0xFF.
    Buf fixups;
    const uint32_t local_at = uint32_t(d.bytes.size());
    for (auto [src, dst] : d.local) put(fixups, fixups.size(), src), put(fixups, fixups.size(), dst);
    align(fixups, 16, 0xFF);
    const uint32_t global_at = local_at + uint32_t(fixups.size());
    for (auto [src, dst] : d.global) put(fixups, fixups.size(), src), put(fixups, fixups.size(), int32_t(2)), put(fixups, fixups.size(), dst);
    align(fixups, 16, 0xFF);
    const uint32_t virtual_at = local_at + uint32_t(fixups.size());
    for (const auto& [at, cls] : d.objects)
        put(fixups, fixups.size(), at), put(fixups, fixups.size(), int32_t(0)), put(fixups, fixups.size(), names.offset[cls]);
    align(fixups, 16, 0xFF);
    const uint32_t data_end = local_at + uint32_t(fixups.size());

    Buf out;
    const uint32_t magic[2] = {0x57E0E057, 0x10C0C010};
    put(out, 0, magic, 8);
    put(out, 0x08, int32_t(0));   // userTag
    put(out, 0x0C, int32_t(11));  // fileVersion
    const uint8_t layout[4] = {8, 1, 0, 1};  // pointer size, little endian, reusePaddingOptimization, emptyBaseClassOptimization
    put(out, 0x10, layout, 4);
    put(out, 0x14, int32_t(3));   // sections
    put(out, 0x18, int32_t(2));   // contents: __data__, offset 0, class name in __classnames__
    put(out, 0x1C, int32_t(0));
    put(out, 0x20, int32_t(0));
    put(out, 0x24, int32_t(names.offset["hkRootLevelContainer"]));
    char version[16];
    std::memset(version, 0xFF, sizeof version);
    std::memcpy(version, "hk_2014.1.0-r1", 15);
    put(out, 0x28, version, 16);
    put(out, 0x38, int32_t(0));   // flags
    put(out, 0x3C, int16_t(-1));  // maxPredicate: none
    put(out, 0x3E, int16_t(0));
    // Section headers: tag (20 bytes), start, then the offsets of local, global, virtual fixups,
    // exports, imports and the end, relative to the start; 16 bytes of padding.
    const uint32_t names_start = 0x40 + 3 * 0x40;
    const uint32_t types_start = names_start + uint32_t(names.bytes.size());
    const uint32_t data_start = types_start;
    auto section = [&](uint32_t index, const char* tag, uint32_t start, uint32_t local, uint32_t global, uint32_t virt, uint32_t end) {
        const uint32_t at = 0x40 + index * 0x40;
        char t[20];
        std::memset(t, 0xFF, sizeof t);
        std::memcpy(t, tag, std::strlen(tag) + 1);
        put(out, at, t, 20);
        const uint32_t offsets[7] = {start, local, global, virt, end, end, end};
        put(out, at + 20, offsets, sizeof offsets);
        uint8_t pad[16];
        std::memset(pad, 0xFF, sizeof pad);
        put(out, at + 48, pad, 16);
    };
    const uint32_t names_size = uint32_t(names.bytes.size());
    section(0, "__classnames__", names_start, names_size, names_size, names_size, names_size);
    section(1, "__types__", types_start, 0, 0, 0, 0);
    section(2, "__data__", data_start, local_at, global_at, virtual_at, data_end);
    out.insert(out.end(), names.bytes.begin(), names.bytes.end());
    out.insert(out.end(), d.bytes.begin(), d.bytes.end());
    out.insert(out.end(), fixups.begin(), fixups.end());
    return out;
}

}  // namespace drape::test
