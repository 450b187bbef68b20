#include "matbin_fixture.h"

#include <cstring>

namespace drape::test {

namespace {

void put32(std::vector<uint8_t>& o, uint32_t v) {
    for (int i = 0; i < 4; ++i) o.push_back(uint8_t(v >> (8 * i)));
}
void put64(std::vector<uint8_t>& o, uint64_t v) {
    for (int i = 0; i < 8; ++i) o.push_back(uint8_t(v >> (8 * i)));
}
void set64(std::vector<uint8_t>& o, size_t at, uint64_t v) {
    for (int i = 0; i < 8; ++i) o[at + size_t(i)] = uint8_t(v >> (8 * i));
}
uint32_t fbits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
// ASCII as UTF-16LE, NUL-terminated.
void put_utf16z(std::vector<uint8_t>& o, const std::string& s) {
    for (char c : s) {
        o.push_back(uint8_t(c));
        o.push_back(0);
    }
    o.push_back(0);
    o.push_back(0);
}

}  // namespace

std::vector<uint8_t> make_matbin(const MatbinSpec& spec) {
    std::vector<uint8_t> o;
    for (char c : {'M', 'A', 'B', '\0'}) o.push_back(uint8_t(c));
    put32(o, 2);
    put64(o, 0);  // shader offset, patched
    put64(o, 0);  // source offset, patched
    put32(o, spec.key);
    put32(o, uint32_t(spec.params.size()));
    put32(o, uint32_t(spec.samplers.size()));
    o.resize(0x38, 0);
    const size_t params_at = o.size();
    o.resize(params_at + spec.params.size() * 0x28, 0);
    const size_t samplers_at = o.size();
    o.resize(samplers_at + spec.samplers.size() * 0x30, 0);
    // String and value area, in the game's order: names then values per parameter.
    set64(o, 0x08, o.size());
    put_utf16z(o, spec.shader);
    set64(o, 0x10, o.size());
    put_utf16z(o, spec.source);
    for (size_t i = 0; i < spec.params.size(); ++i) {
        const auto& p = spec.params[i];
        const size_t rec = params_at + i * 0x28;
        set64(o, rec, o.size());
        put_utf16z(o, p.name);
        set64(o, rec + 8, o.size());
        if (p.type == 0) {
            o.push_back(uint8_t(p.words.empty() ? 0 : p.words[0]));
        } else {
            for (uint32_t w : p.words) put32(o, w);
        }
        const uint32_t key = 0x1000 + uint32_t(i);
        std::memcpy(&o[rec + 16], &key, 4);
        std::memcpy(&o[rec + 20], &p.type, 4);
    }
    for (size_t i = 0; i < spec.samplers.size(); ++i) {
        const auto& s = spec.samplers[i];
        const size_t rec = samplers_at + i * 0x30;
        set64(o, rec, o.size());
        put_utf16z(o, s.type);
        set64(o, rec + 8, o.size());
        put_utf16z(o, s.path);
        const uint32_t key = 0x2000 + uint32_t(i), sx = fbits(s.scale[0]), sy = fbits(s.scale[1]);
        std::memcpy(&o[rec + 16], &key, 4);
        std::memcpy(&o[rec + 20], &sx, 4);
        std::memcpy(&o[rec + 24], &sy, 4);
    }
    return o;
}

namespace {

struct MtdWriter {
    std::vector<uint8_t> o;
    void align() {
        while (o.size() % 4) o.push_back(0);
    }
    void marker(uint8_t m) {
        o.push_back(m);
        align();
    }
    // Block header with a length the reader must ignore (the game's own are unreliable).
    void block(int32_t type, int32_t version, uint8_t m) {
        put32(o, 0);
        put32(o, 0xDEAD);
        put32(o, uint32_t(type));
        put32(o, uint32_t(version));
        marker(m);
    }
    void str(const std::string& s, uint8_t m) {
        put32(o, uint32_t(s.size()));
        for (char c : s) o.push_back(uint8_t(c));
        marker(m);
    }
};

}  // namespace

std::vector<uint8_t> make_mtd(const MtdSpec& spec) {
    MtdWriter w;
    w.block(0, 3, 0x01);
    w.block(1, 2, 0xB0);
    w.str("MTD ", 0x34);
    put32(w.o, 1000);
    w.marker(0x01);
    w.block(2, 4, 0xA3);
    w.str(spec.shader, 0xA3);
    w.str(spec.description, 0x03);
    put32(w.o, 1);
    w.block(3, 4, 0xA3);
    put32(w.o, 0);
    w.marker(0x03);
    put32(w.o, uint32_t(spec.params.size()));
    for (const auto& p : spec.params) {
        w.block(4, 4, 0xA3);
        w.str(p.name, 0xA3);
        w.str(p.type, 0x04);
        put32(w.o, 1);
        const bool is_bool = p.type == "bool", is_int = p.type.rfind("int", 0) == 0;
        w.block(is_bool ? 0x1000 : is_int ? 0x1001 : 0x1002, 1, is_bool ? 0xC0 : is_int ? 0xC5 : 0xCA);
        put32(w.o, uint32_t(p.words.size()));
        for (uint32_t v : p.words) {
            if (is_bool)
                w.o.push_back(uint8_t(v));
            else
                put32(w.o, v);
        }
        w.marker(0x04);
        put32(w.o, 0);
    }
    w.marker(0x03);
    put32(w.o, uint32_t(spec.textures.size()));
    for (const auto& t : spec.textures) {
        w.block(0x2000, spec.texture_version, 0xA3);
        w.str(t.type, 0x35);
        put32(w.o, uint32_t(t.uv_index));
        w.marker(0x35);
        put32(w.o, 0);
        if (spec.texture_version == 5) {
            put32(w.o, 0xA3);
            w.str(t.path, 0xBA);
            put32(w.o, 2);
            put32(w.o, fbits(1.0f));
            put32(w.o, fbits(1.0f));
        }
    }
    for (int i = 0; i < 3; ++i) {
        w.marker(0x04);
        put32(w.o, 0);
    }
    return w.o;
}

}  // namespace drape::test
