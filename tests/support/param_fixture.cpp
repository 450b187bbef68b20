#include "param_fixture.h"

#include <cstring>
#include <memory>
#include <stdexcept>

#include <openssl/evp.h>

namespace drape::test {

namespace {

template <class T>
void put(std::vector<uint8_t>& b, size_t at, T v) {
    if (b.size() < at + sizeof(T)) b.resize(at + sizeof(T));
    std::memcpy(b.data() + at, &v, sizeof(T));
}

}  // namespace

std::vector<uint8_t> make_param(const ParamSpec& spec) {
    const size_t n = spec.rows.size();
    const size_t row_size = n ? spec.rows[0].data.size() : 0;
    const size_t header = spec.long_form ? 0x40 : 0x30;
    const size_t entry = spec.long_form ? 24 : 12;
    const size_t data_start = header + n * entry;
    std::vector<uint8_t> b(data_start, 0);
    for (const auto& r : spec.rows) b.insert(b.end(), r.data.begin(), r.data.end());
    const size_t strings = b.size();
    size_t type_offset = 0;
    if (spec.long_form) {
        type_offset = b.size();
        b.insert(b.end(), spec.type.begin(), spec.type.end());
        b.push_back(0);
        if (b.size() % 2) b.push_back(0);
    }
    std::vector<size_t> name_offsets(n, 0);
    for (size_t i = 0; i < n; ++i) {
        const std::string& name = spec.rows[i].name;
        if (name.empty()) continue;
        name_offsets[i] = b.size();
        for (char c : name) {
            b.push_back(uint8_t(c));
            if (spec.long_form) b.push_back(0);
        }
        b.push_back(0);
        if (spec.long_form) b.push_back(0);
    }
    put<uint32_t>(b, 0x00, uint32_t(strings));
    put<uint16_t>(b, 0x04, spec.long_form ? uint16_t(0) : uint16_t(data_start));
    put<int16_t>(b, 0x06, 1);
    put<int16_t>(b, 0x08, spec.data_version);
    put<uint16_t>(b, 0x0A, uint16_t(n));
    if (spec.long_form) {
        put<uint64_t>(b, 0x10, type_offset);
    } else {
        std::string t = spec.type;
        t.resize(0x20, ' ');
        t[spec.type.size() < 0x20 ? spec.type.size() : 0x1F] = '\0';
        std::memcpy(b.data() + 0x0C, t.data(), 0x20);
    }
    b[0x2C] = 0;
    b[0x2D] = spec.long_form ? 0x85 : 0x01;
    b[0x2E] = spec.long_form ? 0x07 : 0x00;
    b[0x2F] = 0;
    if (spec.long_form) put<uint64_t>(b, 0x30, data_start);
    for (size_t i = 0; i < n; ++i) {
        const size_t at = header + i * entry;
        const size_t data = data_start + i * row_size;
        put<int32_t>(b, at, spec.rows[i].id);
        if (spec.long_form) {
            put<uint64_t>(b, at + 8, data);
            put<uint64_t>(b, at + 16, name_offsets[i]);
        } else {
            put<uint32_t>(b, at + 4, uint32_t(data));
            put<uint32_t>(b, at + 8, uint32_t(name_offsets[i]));
        }
    }
    return b;
}

std::vector<uint8_t> elden_ring_regulation_key() {
    return {0x99, 0xBF, 0xFC, 0x36, 0x6A, 0x6B, 0xC8, 0xC6, 0xF5, 0x82, 0x7D, 0x09, 0x36, 0x02, 0xD6, 0x76,
            0xC4, 0x28, 0x92, 0xA0, 0x1C, 0x20, 0x7F, 0xB0, 0x24, 0xD3, 0xAF, 0x4E, 0x49, 0x3F, 0xEF, 0x99};
}

std::vector<uint8_t> encrypt_regulation(const std::vector<uint8_t>& plain, const std::vector<uint8_t>& key,
                                        const std::vector<uint8_t>& iv) {
    std::unique_ptr<EVP_CIPHER_CTX, void (*)(EVP_CIPHER_CTX*)> ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    std::vector<uint8_t> out(iv);
    out.resize(iv.size() + plain.size() + 16);
    int len = 0, tail = 0;
    if (!ctx || key.size() != 32 || iv.size() != 16 ||
        EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_cbc(), nullptr, key.data(), iv.data()) != 1 ||
        EVP_EncryptUpdate(ctx.get(), out.data() + 16, &len, plain.data(), int(plain.size())) != 1 ||
        EVP_EncryptFinal_ex(ctx.get(), out.data() + 16 + len, &tail) != 1)
        return {};
    out.resize(16 + size_t(len) + size_t(tail));
    return out;
}

}  // namespace drape::test
