// PNG and Radiance HDR writers, and TPF texture export.
#include "drape/exporters/png.h"
#include "kept_buffer.h"

#include <libdeflate.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#include "drape/exporters/fast_deflate.h"
#include "drape/io/file.h"

namespace drape::image {

namespace {

void put_be32(std::vector<uint8_t>& out, uint32_t v) {
    out.push_back(uint8_t(v >> 24));
    out.push_back(uint8_t(v >> 16));
    out.push_back(uint8_t(v >> 8));
    out.push_back(uint8_t(v));
}

void put_chunk(std::vector<uint8_t>& out, const char type[4], const uint8_t* data, size_t size) {
    put_be32(out, uint32_t(size));
    const size_t start = out.size();
    out.insert(out.end(), type, type + 4);
    if (size) out.insert(out.end(), data, data + size);
    put_be32(out, libdeflate_crc32(0, out.data() + start, 4 + size));
}

inline uint8_t paeth(int a, int b, int c) {
    const int p = a + b - c;
    const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
    if (pa <= pb && pa <= pc) return uint8_t(a);
    if (pb <= pc) return uint8_t(b);
    return uint8_t(c);
}

// Filters one row with PNG filter `type` (0 none .. 4 Paeth) into out (row_bytes). bpp: bytes
// per complete pixel; prev is null on the first row. One tight loop per filter: this runs over
// every byte of every texture.
void filter_row(int type, const uint8_t* row, const uint8_t* prev, size_t row_bytes, size_t bpp, uint8_t* out) {
    const size_t lead = std::min(bpp, row_bytes);
    switch (type) {
        case 1:
            std::memcpy(out, row, lead);
            for (size_t i = bpp; i < row_bytes; ++i) out[i] = uint8_t(row[i] - row[i - bpp]);
            return;
        case 2:
            if (!prev) break;
            for (size_t i = 0; i < row_bytes; ++i) out[i] = uint8_t(row[i] - prev[i]);
            return;
        case 3:
            if (!prev) {
                std::memcpy(out, row, lead);
                for (size_t i = bpp; i < row_bytes; ++i) out[i] = uint8_t(row[i] - (row[i - bpp] >> 1));
                return;
            }
            for (size_t i = 0; i < lead; ++i) out[i] = uint8_t(row[i] - (prev[i] >> 1));
            for (size_t i = bpp; i < row_bytes; ++i) out[i] = uint8_t(row[i] - ((row[i - bpp] + prev[i]) >> 1));
            return;
        case 4:
            if (!prev) {  // Paeth with no row above is Sub
                filter_row(1, row, nullptr, row_bytes, bpp, out);
                return;
            }
            for (size_t i = 0; i < lead; ++i) out[i] = uint8_t(row[i] - prev[i]);
            for (size_t i = bpp; i < row_bytes; ++i) out[i] = uint8_t(row[i] - paeth(row[i - bpp], prev[i], prev[i - bpp]));
            return;
        default:
            break;
    }
    std::memcpy(out, row, row_bytes);  // none (and Up on the first row)
}

uint64_t filter_cost(const uint8_t* v, size_t n) {
    uint64_t cost = 0;
    for (size_t i = 0; i < n; ++i) cost += uint64_t(v[i] < 128 ? v[i] : 256 - v[i]);
    return cost;
}

// One libdeflate compressor per thread and level: allocating one costs more than compressing
// a small texture.
libdeflate_compressor* compressor_for(int level) {
    struct Cache {
        libdeflate_compressor* c[13] = {};
        ~Cache() {
            for (auto* p : c)
                if (p) libdeflate_free_compressor(p);
        }
    };
    thread_local Cache cache;
    if (!cache.c[level]) cache.c[level] = libdeflate_alloc_compressor(level);
    return cache.c[level];
}

// RGBA -> RGB for n pixels.
static_assert(std::endian::native == std::endian::little, "drop_alpha packs little-endian words");
// Four pixels at a time: two 8-byte loads, the three colour bytes of each packed by shifts
// and masks into one 8-byte and one 4-byte store (about 3 instructions a pixel instead of 6).
void drop_alpha_scalar(const uint8_t* rgba, size_t n, uint8_t* rgb) {
    size_t x = 0;
    for (; x + 4 <= n; x += 4) {
        uint64_t a, b;
        std::memcpy(&a, rgba + x * 4, 8);  // pixels 0, 1 (little-endian: R in the low byte)
        std::memcpy(&b, rgba + x * 4 + 8, 8);  // pixels 2, 3
        const uint64_t lo = (a & 0xFFFFFFu) | ((a >> 8) & 0xFFFFFF000000u) | (b << 48);  // RGB0 RGB1 RG2
        const uint32_t hi = uint32_t((b >> 16) & 0xFFu) | uint32_t((b >> 24) & 0xFFFFFF00u);  // B2 RGB3
        std::memcpy(rgb + x * 3, &lo, 8);
        std::memcpy(rgb + x * 3 + 8, &hi, 4);
    }
    for (; x + 1 < n; ++x) std::memcpy(rgb + x * 3, rgba + x * 4, 4);
    if (x < n) std::memcpy(rgb + x * 3, rgba + x * 4, 3);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define DRAPE_PNG_SSSE3 1
// With SSSE3 (every x86-64 CPU since about 2008, checked at run time): one byte shuffle packs
// four pixels into 12 bytes, stored as 16 (the next store overwrites the 4 extra bytes; the
// loop stops while those are still inside the n * 3 bytes). About 1 instruction a pixel; the
// scalar version was a tenth of the encoding's instructions.
[[gnu::target("ssse3")]] void drop_alpha_ssse3(const uint8_t* rgba, size_t n, uint8_t* rgb) {
    const __m128i pack = _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    size_t x = 0;
    for (; x + 6 <= n; x += 4) {  // stores rgb[3x, 3x + 16) and 3x + 16 <= 3n
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rgba + x * 4));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(rgb + x * 3), _mm_shuffle_epi8(v, pack));
    }
    drop_alpha_scalar(rgba + x * 4, n - x, rgb + x * 3);
}
#endif

#ifdef DRAPE_PNG_SSSE3
// AVX2: eight pixels per 32-byte load, shuffled to 12 bytes in each 128-bit lane and the two
// lanes' 12 bytes joined by a 32-bit word permute; stored as 32 bytes (the next store
// overwrites the 8 extra; the loop stops while those are inside the n * 3 bytes).
[[gnu::target("avx2")]] inline void drop_alpha8_avx2(const uint8_t* from, uint8_t* to, __m256i pack, __m256i join) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, pack), join));
}
[[gnu::target("avx2")]] void drop_alpha_avx2(const uint8_t* rgba, size_t n, uint8_t* rgb) {
    const __m256i pack = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12,
                                          13, 14, -1, -1, -1, -1);
    const __m256i join = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
    // 16 pixels a step while the second store, rgb[3x + 24, 3x + 56), ends inside 3n.
    const size_t steps = n >= 19 ? (n - 19) / 16 + 1 : 0;
    for (size_t k = 0; k < steps; ++k, rgba += 64, rgb += 48) {
        drop_alpha8_avx2(rgba, rgb, pack, join);
        drop_alpha8_avx2(rgba + 32, rgb + 24, pack, join);
    }
    drop_alpha_ssse3(rgba, n - 16 * steps, rgb);
}

// AND of every byte of n pixels, 64 bytes per step.
[[gnu::target("avx2")]] uint8_t alpha_and_avx2(const uint8_t* rgba, size_t n, size_t& done) {
    __m256i a = _mm256_set1_epi8(-1), b = a;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        a = _mm256_and_si256(a, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rgba + i * 4)));
        b = _mm256_and_si256(b, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rgba + i * 4 + 32)));
    }
    alignas(32) uint8_t lanes[32];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), _mm256_and_si256(a, b));
    uint8_t all = 255;
    for (int k = 3; k < 32; k += 4) all &= lanes[k];
    done = i;
    return all;
}
#endif

// The level of the vector code: avx2 2, ssse3 1, portable 0 (FastDeflateCpu as PngOptions::cpu).
int vector_level(FastDeflateCpu cpu) {
#ifdef DRAPE_PNG_SSSE3
    static const bool ssse3 = __builtin_cpu_supports("ssse3"), avx2 = __builtin_cpu_supports("avx2");
    switch (cpu) {
        case FastDeflateCpu::automatic: return avx2 ? 2 : ssse3 ? 1 : 0;
        case FastDeflateCpu::avx2: return avx2 ? 2 : 0;
        case FastDeflateCpu::ssse3: return ssse3 ? 1 : 0;
        default: return 0;
    }
#else
    (void)cpu;
    return 0;
#endif
}

void drop_alpha(const uint8_t* rgba, size_t n, uint8_t* rgb, int level) {
#ifdef DRAPE_PNG_SSSE3
    if (level == 2) return drop_alpha_avx2(rgba, n, rgb);
    if (level == 1) return drop_alpha_ssse3(rgba, n, rgb);
#else
    (void)level;
#endif
    drop_alpha_scalar(rgba, n, rgb);
}

// True when every fourth byte of n pixels (alpha) is 255: the AND of every byte, 16 (SSE2) or
// 64 (AVX2) at a time (no early exit: one pass at memory speed).
bool all_opaque(const uint8_t* rgba, size_t n, int level) {
    size_t i = 0;
    uint8_t all = 255;
#ifdef DRAPE_PNG_SSSE3
    if (level == 2) all = alpha_and_avx2(rgba, n, i);
#else
    (void)level;
#endif
#if defined(__SSE2__)
    __m128i acc = _mm_set1_epi8(-1);
    for (; level > 0 && i + 4 <= n; i += 4) acc = _mm_and_si128(acc, _mm_loadu_si128(reinterpret_cast<const __m128i*>(rgba + i * 4)));
    alignas(16) uint8_t lanes[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes), acc);
    all &= uint8_t(lanes[3] & lanes[7] & lanes[11] & lanes[15]);
#endif
    for (; i < n; ++i) all &= rgba[i * 4 + 3];
    return all == 255;
}

using KeptBytes = image_detail::KeptBuffer<uint8_t>;  // the filtered scanlines, per thread (kept_buffer.h)

void put_be32_at(uint8_t* p, uint32_t v) {
    p[0] = uint8_t(v >> 24);
    p[1] = uint8_t(v >> 16);
    p[2] = uint8_t(v >> 8);
    p[3] = uint8_t(v);
}

// `raw` holds height rows of width * src_channels samples (already in PNG byte order).
// src_channels == 4 with channels == 3 drops the alpha byte of every pixel (8-bit only).
Result<std::vector<uint8_t>> encode_rows(const uint8_t* raw, uint32_t width, uint32_t height, uint32_t channels,
                                         uint32_t bit_depth, const PngOptions& options, uint32_t src_channels = 0) {
    if (width == 0 || height == 0 || width > 0x7FFFFFFFu || height > 0x7FFFFFFFu)
        return make_error("PNG size " + std::to_string(width) + " x " + std::to_string(height) + " is out of range",
                          "png.size");
    if (channels < 1 || channels > 4) return make_error(std::to_string(channels) + " channels (1..4 allowed)", "png.channels");
    if (src_channels == 0) src_channels = channels;
    static const uint8_t k_colour_type[5] = {0, 0, 4, 2, 6};
    const size_t bpp = size_t(channels) * (bit_depth / 8);
    const size_t row_bytes = size_t(width) * bpp;
    const size_t src_row_bytes = size_t(width) * src_channels * (bit_depth / 8);
    const bool repack = src_channels != channels;
    const int level = vector_level(options.cpu);

    // Filtered scanlines, each prefixed by its filter byte (not zero-filled: every byte is
    // written below).
    const size_t filtered_size = size_t(height) * (row_bytes + 1);
    thread_local KeptBytes kept_scanlines;
    uint8_t* const filtered = kept_scanlines.get(filtered_size);
    struct Release {
        KeptBytes& k;
        ~Release() { k.done(); }
    } release{kept_scanlines};
    std::vector<uint8_t> trial(options.filter == PngFilter::adaptive ? row_bytes : 0);
    std::vector<uint8_t> packed(repack ? 2 * row_bytes : 0);  // this row and the one above
    for (uint32_t y = 0; y < height; ++y) {
        const uint8_t* row = raw + size_t(y) * src_row_bytes;
        const uint8_t* prev = y ? row - src_row_bytes : nullptr;
        uint8_t* dst = &filtered[size_t(y) * (row_bytes + 1)];
        if (repack && options.filter == PngFilter::none) {  // straight into the scanline
            dst[0] = 0;
            drop_alpha(row, width, dst + 1, level);
            continue;
        }
        if (repack) {
            uint8_t* cur = packed.data() + (y & 1) * row_bytes;
            drop_alpha(row, width, cur, level);
            prev = y ? packed.data() + ((y + 1) & 1) * row_bytes : nullptr;
            row = cur;
        }
        if (options.filter != PngFilter::adaptive) {
            const int type = int(options.filter) - 1;
            dst[0] = uint8_t(type);
            filter_row(type, row, prev, row_bytes, bpp, dst + 1);
            continue;
        }
        // Adaptive: the filter with the smallest sum of absolute values (PNG spec heuristic).
        uint64_t best_cost = UINT64_MAX;
        for (int type = 0; type < 5; ++type) {
            filter_row(type, row, prev, row_bytes, bpp, trial.data());
            const uint64_t cost = filter_cost(trial.data(), row_bytes);
            if (cost < best_cost) {
                best_cost = cost;
                dst[0] = uint8_t(type);
                std::memcpy(dst + 1, trial.data(), row_bytes);
            }
        }
    }

    std::vector<uint8_t> out;
    static const uint8_t k_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    auto put_header = [&]() {
        out.insert(out.end(), k_signature, k_signature + 8);
        uint8_t ihdr[13];
        put_be32_at(ihdr, width);
        put_be32_at(ihdr + 4, height);
        ihdr[8] = uint8_t(bit_depth);
        ihdr[9] = k_colour_type[channels];
        ihdr[10] = 0;  // deflate
        ihdr[11] = 0;  // adaptive filtering
        ihdr[12] = 0;  // no interlace
        put_chunk(out, "IHDR", ihdr, sizeof ihdr);
        if (options.srgb) {
            const uint8_t intent = 0;  // perceptual
            put_chunk(out, "sRGB", &intent, 1);
        }
    };
    // One IDAT chunk, compressed in place (a chunk may hold up to 2^31 - 1 bytes).
    if (options.deflate == PngDeflate::fast) {
        // Never larger than the stored size plus 5 bytes per 64 KiB and the zlib framing.
        if (filtered_size + 5 * (filtered_size / 65535 + 1) + 6 > 0x7FFFFFFFu)
            return make_error("image too large for one IDAT chunk", "png.idat");
        out.reserve(filtered_size / 2 + 256);
        put_header();
        const size_t chunk = out.size();
        out.resize(chunk + 8);
        std::memcpy(&out[chunk + 4], "IDAT", 4);
        // Matches at the previous pixel and at the same byte of the previous filtered row.
        fast_zlib_compress_png(filtered, height, row_bytes, uint32_t(bpp), out, options.cpu);
        const size_t zsize = out.size() - chunk - 8;
        put_be32_at(&out[chunk], uint32_t(zsize));
        put_be32(out, libdeflate_crc32(0, &out[chunk + 4], 4 + zsize));
        put_chunk(out, "IEND", nullptr, 0);
        return out;
    }

    const int lib_level = std::clamp(options.level, 0, 12);
    libdeflate_compressor* compressor = compressor_for(lib_level);
    if (!compressor) return make_error("libdeflate: cannot allocate a level " + std::to_string(lib_level) + " compressor", "png.idat");
    const size_t bound = libdeflate_zlib_compress_bound(compressor, filtered_size);
    out.reserve(bound + 128);
    put_header();
    if (bound > 0x7FFFFFFFu) return make_error("image too large for one IDAT chunk", "png.idat");
    const size_t chunk = out.size();
    out.resize(chunk + 8 + bound);
    std::memcpy(&out[chunk + 4], "IDAT", 4);
    const size_t zsize = libdeflate_zlib_compress(compressor, filtered, filtered_size, &out[chunk + 8], bound);
    if (zsize == 0) return make_error("libdeflate compression failed", "png.idat");
    out.resize(chunk + 8 + zsize);
    put_be32_at(&out[chunk], uint32_t(zsize));
    put_be32(out, libdeflate_crc32(0, &out[chunk + 4], 4 + zsize));
    put_chunk(out, "IEND", nullptr, 0);
    return out;
}

}  // namespace

Result<std::vector<uint8_t>> encode_png(const uint8_t* pixels, uint32_t width, uint32_t height, uint32_t channels,
                                        const PngOptions& options) {
    return encode_rows(pixels, width, height, channels, 8, options);
}

Result<std::vector<uint8_t>> encode_png16(const uint16_t* pixels, uint32_t width, uint32_t height, uint32_t channels,
                                          const PngOptions& options) {
    const size_t n = size_t(width) * height * channels;
    std::vector<uint8_t> be(n * 2);
    for (size_t i = 0; i < n; ++i) {
        be[2 * i] = uint8_t(pixels[i] >> 8);
        be[2 * i + 1] = uint8_t(pixels[i]);
    }
    return encode_rows(be.data(), width, height, channels, 16, options);
}

namespace {
// width * height * channels, or SIZE_MAX where that does not fit a size_t (no buffer holds that
// many samples, so the size checks below refuse the image).
size_t sample_count(const tpf::Image& image) {
    const size_t pixels = size_t(image.width) * image.height;  // below 2^64: two 32-bit factors
    if (image.channels != 0 && pixels > SIZE_MAX / image.channels) return SIZE_MAX;
    return pixels * image.channels;
}
}  // namespace

Result<std::vector<uint8_t>> encode_png(const tpf::Image& image, const PngOptions& options) {
    const size_t n = sample_count(image);
    if (!image.is_float) {
        if (image.u8.size() != n) return make_error("pixel buffer size does not match the image size", "png.pixels");
        if (image.channels == 4 && options.drop_opaque_alpha) {
            if (all_opaque(image.u8.data(), n / 4, vector_level(options.cpu))) return encode_rows(image.u8.data(), image.width, image.height, 3, 8, options, 4);
        }
        return encode_png(image.u8.data(), image.width, image.height, image.channels, options);
    }
    if (image.f32.size() != n) return make_error("pixel buffer size does not match the image size", "png.pixels");
    std::vector<uint16_t> samples(n);
    for (size_t i = 0; i < n; ++i) {
        const float v = image.f32[i];
        samples[i] = v > 0.0f ? (v < 1.0f ? uint16_t(std::lround(v * 65535.0f)) : 65535) : 0;  // NaN -> 0
    }
    return encode_png16(samples.data(), image.width, image.height, image.channels, options);
}

Result<std::vector<uint8_t>> encode_hdr(const tpf::Image& image) {
    if (!image.is_float || image.channels < 3)
        return make_error("a Radiance .hdr needs a float RGB or RGBA image", "hdr.image");
    const size_t pixels = size_t(image.width) * image.height;
    if (image.f32.size() != sample_count(image)) return make_error("pixel buffer size does not match the image size", "hdr.pixels");
    std::string header = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y " + std::to_string(image.height) + " +X " +
                         std::to_string(image.width) + "\n";
    std::vector<uint8_t> out(header.begin(), header.end());
    out.reserve(out.size() + pixels * 4);
    for (size_t i = 0; i < pixels; ++i) {
        const float* p = &image.f32[i * image.channels];
        float rgb[3];
        for (int c = 0; c < 3; ++c) rgb[c] = (p[c] > 0.0f && std::isfinite(p[c])) ? p[c] : 0.0f;
        const float v = std::max({rgb[0], rgb[1], rgb[2]});
        if (v < 1e-32f) {
            out.insert(out.end(), {0, 0, 0, 0});
            continue;
        }
        int e = 0;
        const float scale = std::frexp(v, &e) * 256.0f / v;
        // Flat scanlines: the largest mantissa is >= 128, so no pixel reads as an RLE marker.
        out.push_back(uint8_t(rgb[0] * scale));
        out.push_back(uint8_t(rgb[1] * scale));
        out.push_back(uint8_t(rgb[2] * scale));
        out.push_back(uint8_t(e + 128));
    }
    return out;
}

Result<std::vector<ExportedTexture>> export_tpf_textures(const tpf::Tpf& tpf, const std::filesystem::path& folder,
                                                        const PngOptions& options) {
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec) return make_error("cannot create folder " + folder.string() + ": " + ec.message(), "export.folder");
    std::vector<ExportedTexture> out;
    std::set<std::string> used;  // lower-case file names
    for (const tpf::Texture& tex : tpf.textures) {
        ExportedTexture e;
        e.name = tex.name;
        auto dds = tpf::parse_dds(tex.dds);
        if (!dds) {
            e.error = dds.error().to_string();
            out.push_back(std::move(e));
            continue;
        }
        e.format = tpf::pixel_format_name(dds->format);
        auto img = tpf::decode_surface(*dds, 0, 0, 0);
        if (!img) {
            e.error = img.error().to_string();
            out.push_back(std::move(e));
            continue;
        }
        e.width = img->width;
        e.height = img->height;

        // One file name: path separators inside the texture name become '_'.
        std::string flat = tex.name;
        std::replace(flat.begin(), flat.end(), '/', '_');
        std::replace(flat.begin(), flat.end(), '\\', '_');
        std::string base = sanitize_member_path(flat);
        std::string candidate = base;
        for (int n = 2;; ++n) {
            std::string lower = candidate;
            std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
            if (used.insert(lower).second) break;
            candidate = base + "_" + std::to_string(n);
        }
        auto png_path = safe_join(folder, candidate + ".png");
        if (!png_path) return png_path.error();
        PngOptions opts = options;
        opts.srgb = options.srgb || dds->srgb;
        auto png = encode_png(*img, opts);
        if (!png) {
            e.error = png.error().to_string();
            out.push_back(std::move(e));
            continue;
        }
        if (auto w = write_file(*png_path, *png); !w) return w.error();
        e.png = *png_path;
        e.file_name = candidate + ".png";
        if (img->is_float) {
            auto hdr_path = safe_join(folder, candidate + ".hdr");
            if (!hdr_path) return hdr_path.error();
            auto hdr = encode_hdr(*img);
            if (hdr) {
                if (auto w = write_file(*hdr_path, *hdr); !w) return w.error();
                e.hdr = *hdr_path;
            }
        }
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace drape::image
