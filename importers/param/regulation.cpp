// drape: decryption of the games' regulation files (AES-256-CBC through OpenSSL's EVP interface).
#include <cstring>
#include <memory>

#include <openssl/evp.h>

#include "drape/param/param.h"

namespace drape::param {

namespace {

constexpr size_t k_iv_size = 16;
constexpr size_t k_block = 16;

struct KeyEntry {
    RegulationKey id;
    uint8_t key[32];
};

// The published keys (SoulsFormats' regulation decryptor lists the same constants).
constexpr KeyEntry k_keys[] = {
    {RegulationKey::elden_ring, {0x99, 0xBF, 0xFC, 0x36, 0x6A, 0x6B, 0xC8, 0xC6, 0xF5, 0x82, 0x7D, 0x09, 0x36, 0x02, 0xD6, 0x76,
                                 0xC4, 0x28, 0x92, 0xA0, 0x1C, 0x20, 0x7F, 0xB0, 0x24, 0xD3, 0xAF, 0x4E, 0x49, 0x3F, 0xEF, 0x99}},
    {RegulationKey::nightreign, {0x9A, 0x8E, 0xE9, 0x0C, 0x4C, 0x01, 0xA4, 0x31, 0x68, 0xA1, 0x7D, 0x9D, 0x75, 0xE4, 0xA7, 0xD0,
                                 0x21, 0x07, 0xEB, 0xCF, 0x43, 0xD5, 0xAC, 0xB0, 0x55, 0x4F, 0x94, 0x16, 0x01, 0xB5, 0x79, 0x18}},
    // DS3's key is the ASCII text ds3#jn/8_7(rsY9pg55GFN7VFL#+3n/)
    {RegulationKey::dark_souls_3, {'d', 's', '3', '#', 'j', 'n', '/', '8', '_', '7', '(', 'r', 's', 'Y', '9', 'p',
                                   'g', '5', '5', 'G', 'F', 'N', '7', 'V', 'F', 'L', '#', '+', '3', 'n', '/', ')'}},
};

struct CtxFree {
    void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};

// AES-256-CBC without padding removal over whole blocks; false when OpenSSL refuses.
bool aes_cbc_decrypt(const uint8_t* key, const uint8_t* iv, const uint8_t* in, size_t n, uint8_t* out) {
    std::unique_ptr<EVP_CIPHER_CTX, CtxFree> ctx(EVP_CIPHER_CTX_new());
    if (!ctx) return false;
    if (EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_cbc(), nullptr, key, iv) != 1) return false;
    EVP_CIPHER_CTX_set_padding(ctx.get(), 0);
    size_t done = 0;
    // EVP takes int lengths: feed large inputs in pieces.
    while (done < n) {
        const size_t piece = std::min<size_t>(n - done, size_t(1) << 30);
        int len = 0;
        if (EVP_DecryptUpdate(ctx.get(), out + done, &len, in + done, int(piece)) != 1 || size_t(len) != piece) return false;
        done += piece;
    }
    int tail = 0;
    return EVP_DecryptFinal_ex(ctx.get(), out + done, &tail) == 1 && tail == 0;
}

bool plain_magic(const uint8_t* block) {
    return std::memcmp(block, "DCX\0", 4) == 0 || std::memcmp(block, "DCP\0", 4) == 0 || std::memcmp(block, "BND4", 4) == 0;
}

const KeyEntry* entry_of(RegulationKey k) {
    for (const auto& e : k_keys)
        if (e.id == k) return &e;
    return nullptr;
}

}  // namespace

const char* regulation_key_name(RegulationKey k) {
    switch (k) {
        case RegulationKey::dark_souls_3: return "Dark Souls III";
        case RegulationKey::elden_ring: return "Elden Ring";
        case RegulationKey::nightreign: return "Elden Ring Nightreign";
    }
    return "?";
}

std::optional<RegulationKey> regulation_key(Bytes data) {
    if (data.size() < k_iv_size + k_block || (data.size() - k_iv_size) % k_block != 0) return std::nullopt;
    for (const auto& e : k_keys) {
        uint8_t block[k_block];
        if (aes_cbc_decrypt(e.key, data.data(), data.data() + k_iv_size, k_block, block) && plain_magic(block)) return e.id;
    }
    return std::nullopt;
}

Result<std::vector<uint8_t>> decrypt_regulation(Bytes data, RegulationKey* key_out) {
    const auto key = regulation_key(data);
    if (!key)
        return make_error("no published regulation key (Elden Ring, Nightreign, Dark Souls III) decrypts the first block to a DCX or "
                          "BND4 (" + std::to_string(data.size()) + " B; a regulation is a 16-byte IV and whole 16-byte blocks)",
                          "regulation");
    std::vector<uint8_t> out(data.size() - k_iv_size);
    if (!aes_cbc_decrypt(entry_of(*key)->key, data.data(), data.data() + k_iv_size, out.size(), out.data()))
        return make_error("AES-256-CBC decryption failed", "regulation");
    // PKCS#7 padding: n bytes of value n (1..16). A regulation whose tail is not well-formed
    // padding is kept whole: the DCX inside states its own size.
    const uint8_t pad = out.back();
    if (pad >= 1 && pad <= k_block) {
        bool padded = true;
        for (size_t i = 0; i < pad; ++i) padded = padded && out[out.size() - 1 - i] == pad;
        if (padded) out.resize(out.size() - pad);
    }
    if (key_out) *key_out = *key;
    return out;
}

}  // namespace drape::param
