// drape's fast PNG deflate (exporters/fast_deflate.h): every stream is inflated by zlib AND
// by libdeflate, and every PNG is read back by a reader written here (chunk CRCs by zlib,
// every filter type undone) and compared pixel for pixel with the input, on real corpus
// textures (BC1, BC3, BC5, BC7 decoded) and on synthetic edge cases.
#include <doctest/doctest.h>
#include <libdeflate.h>
#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "corpus.h"
#include "drape/dcx/dcx.h"
#include "drape/exporters/fast_deflate.h"
#include "drape/exporters/png.h"
#include "drape/tpf/bc.h"
#include "drape/tpf/tpf.h"
#include "lcg.h"

using namespace drape;

namespace {


// Inflates a zlib stream with zlib; empty on any error (the size must be exact).
std::vector<uint8_t> inflate_zlib(const std::vector<uint8_t>& z, size_t expected) {
    std::vector<uint8_t> out(expected + 1);
    uLongf n = uLongf(out.size());
    if (uncompress(out.data(), &n, z.data(), uLong(z.size())) != Z_OK || n != expected) return {};
    out.resize(n);
    return out;
}

std::vector<uint8_t> inflate_libdeflate(const std::vector<uint8_t>& z, size_t expected) {
    std::vector<uint8_t> out(expected);
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    size_t in_used = 0, n = 0;
    const auto r = libdeflate_zlib_decompress_ex(d, z.data(), z.size(), out.data(), out.size(), &in_used, &n);
    libdeflate_free_decompressor(d);
    if (r != LIBDEFLATE_SUCCESS || n != expected || in_used != z.size()) return {};
    return out;
}

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

struct Decoded {
    std::string error;
    uint32_t width = 0, height = 0, channels = 0, bit_depth = 0;
    std::vector<uint8_t> pixels;  // rows of width * channels * bit_depth / 8 bytes
};

// A small PNG reader for what encode_png writes (no interlace, colour types 0 2 4 6); the IDAT
// data is inflated by both zlib and libdeflate, which must agree.
Decoded read_png(const std::vector<uint8_t>& png) {
    Decoded d;
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (png.size() < 8 || std::memcmp(png.data(), sig, 8) != 0) return d.error = "signature", d;
    std::vector<uint8_t> idat;
    bool end = false;
    for (size_t pos = 8; pos < png.size() && !end;) {
        if (png.size() - pos < 12) return d.error = "truncated chunk", d;
        const uint32_t len = be32(&png[pos]);
        if (png.size() - pos - 12 < len) return d.error = "chunk length", d;
        const std::string type(reinterpret_cast<const char*>(&png[pos + 4]), 4);
        const uint32_t crc = uint32_t(crc32(0, &png[pos + 4], uInt(4 + len)));
        if (crc != be32(&png[pos + 8 + len])) return d.error = "crc of " + type, d;
        const uint8_t* data = &png[pos + 8];
        if (type == "IHDR") {
            d.width = be32(data);
            d.height = be32(data + 4);
            d.bit_depth = data[8];
            static const std::map<int, uint32_t> channels = {{0, 1}, {4, 2}, {2, 3}, {6, 4}};
            if (!channels.count(data[9]) || data[12] != 0) return d.error = "colour type", d;
            d.channels = channels.at(data[9]);
        } else if (type == "IDAT") {
            idat.insert(idat.end(), data, data + len);
        } else if (type == "IEND") {
            end = true;
        }
        pos += 12 + len;
    }
    if (!end) return d.error = "no IEND", d;
    const size_t bpp = size_t(d.channels) * d.bit_depth / 8;
    const size_t row = size_t(d.width) * bpp;
    const size_t raw_size = size_t(d.height) * (row + 1);
    const std::vector<uint8_t> raw = inflate_zlib(idat, raw_size);
    if (raw.empty()) return d.error = "zlib cannot inflate the IDAT stream", d;
    if (inflate_libdeflate(idat, raw_size) != raw) return d.error = "libdeflate disagrees with zlib", d;
    d.pixels.resize(size_t(d.height) * row);
    for (uint32_t y = 0; y < d.height; ++y) {
        const uint8_t filter = raw[y * (row + 1)];
        const uint8_t* in = &raw[y * (row + 1) + 1];
        uint8_t* out = &d.pixels[y * row];
        const uint8_t* up = y ? out - row : nullptr;
        for (size_t i = 0; i < row; ++i) {
            const int a = i >= bpp ? out[i - bpp] : 0, b = up ? up[i] : 0, c = (up && i >= bpp) ? up[i - bpp] : 0;
            int pred = 0;
            switch (filter) {
                case 0: pred = 0; break;
                case 1: pred = a; break;
                case 2: pred = b; break;
                case 3: pred = (a + b) / 2; break;
                case 4: {
                    const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
                    pred = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
                    break;
                }
                default: return d.error = "filter type " + std::to_string(filter), d;
            }
            out[i] = uint8_t(in[i] + pred);
        }
    }
    return d;
}

// Encodes with the fast deflate, reads back, compares; returns the PNG size (0 on failure).
size_t check_fast_png(const uint8_t* pixels, uint32_t w, uint32_t h, uint32_t ch, image::PngFilter filter = image::PngFilter::none) {
    image::PngOptions o;
    o.deflate = image::PngDeflate::fast;
    o.filter = filter;
    auto png = image::encode_png(pixels, w, h, ch, o);
    REQUIRE(png);
    const Decoded d = read_png(*png);
    CHECK(d.error == "");
    CHECK(d.width == w);
    CHECK(d.height == h);
    CHECK(d.channels == ch);
    REQUIRE(d.pixels.size() == size_t(w) * h * ch);
    CHECK(std::memcmp(d.pixels.data(), pixels, d.pixels.size()) == 0);
    return d.error.empty() ? png->size() : 0;
}

size_t libdeflate_png_size(const uint8_t* pixels, uint32_t w, uint32_t h, uint32_t ch) {
    image::PngOptions o;
    o.deflate = image::PngDeflate::libdeflate;
    o.level = 1;
    auto png = image::encode_png(pixels, w, h, ch, o);
    REQUIRE(png);
    return png->size();
}

}  // namespace

TEST_CASE("fast deflate: raw streams inflate in zlib and libdeflate to the input") {
    test::Lcg rng{7};
    std::vector<std::vector<uint8_t>> inputs;
    inputs.push_back({0});
    inputs.push_back({1, 2});
    inputs.push_back(std::vector<uint8_t>(7, 9));
    inputs.push_back(std::vector<uint8_t>(8, 9));
    inputs.push_back(std::vector<uint8_t>(100000, 0xAB));  // runs longer than 258, many blocks of matches
    std::vector<uint8_t> noise(200000);
    for (auto& b : noise) b = uint8_t(rng.next31());
    inputs.push_back(noise);  // stored blocks (over 65535 bytes: several)
    std::vector<uint8_t> mixed(50001);
    for (size_t i = 0; i < mixed.size(); ++i) mixed[i] = (i / 300) % 2 ? uint8_t(rng.next31()) : uint8_t(i % 7);
    inputs.push_back(mixed);
    std::vector<uint8_t> skewed(70000);  // a few very common literals and many rare ones: long codes
    for (size_t i = 0; i < skewed.size(); ++i) {
        const uint32_t r = rng.next31();
        skewed[i] = (r & 1023) == 0 ? uint8_t(r >> 12) : uint8_t((r >> 20) & 3);
    }
    inputs.push_back(skewed);
    std::vector<uint8_t> fib;  // Fibonacci-like frequencies force the 15-bit length limit
    {
        uint64_t a = 1, b = 1;
        for (int s = 0; s < 30; ++s) {
            for (uint64_t k = 0; k < a && fib.size() < 3000000; ++k) fib.push_back(uint8_t(s * 7 + 1));
            const uint64_t c = a + b;
            a = b;
            b = c;
        }
        for (size_t i = 0; i + 1 < fib.size(); i += 2) std::swap(fib[i], fib[(i * 7919) % fib.size()]);  // break the runs
    }
    inputs.push_back(fib);
    const std::pair<uint32_t, uint32_t> distance_sets[] = {{1, 0}, {3, 97}, {4, 4097}, {0, 2}, {2, 40000}, {32768, 5}};
    int checked = 0;
    for (const auto& in : inputs)
        for (const auto& d : distance_sets) {
            const uint32_t first = d.first, second = d.second;
            std::vector<uint8_t> z;
            image::fast_zlib_compress(in.data(), in.size(), {first, second}, z);
            CAPTURE(in.size());
            CAPTURE(first);
            CHECK(inflate_zlib(z, in.size()) == in);
            CHECK(inflate_libdeflate(z, in.size()) == in);
            CHECK(z.size() <= in.size() + 5 * (in.size() / 65535 + 1) + 6);
            ++checked;
        }
    CHECK(checked == 54);
    // Appends to what out already holds.
    std::vector<uint8_t> z = {1, 2, 3};
    image::fast_zlib_compress(inputs[4].data(), inputs[4].size(), {1, 0}, z);
    CHECK(z[0] == 1);
    CHECK(std::vector<uint8_t>(z.begin() + 3, z.end()).size() < 1000);
    CHECK(inflate_zlib(std::vector<uint8_t>(z.begin() + 3, z.end()), inputs[4].size()) == inputs[4]);
}

TEST_CASE("fast deflate: synthetic PNG edge cases read back exactly") {
    test::Lcg rng{11};
    int images = 0;
    for (uint32_t ch = 1; ch <= 4; ++ch) {
        // 1x1 up to widths around the 3-byte minimum match, a word, and odd widths.
        for (uint32_t w : {1u, 2u, 3u, 5u, 7u, 8u, 9u, 31u, 86u, 87u, 255u, 1023u})
            for (uint32_t h : {1u, 2u, 9u}) {
                std::vector<uint8_t> same(size_t(w) * h * ch, 0x5A), noise(size_t(w) * h * ch), blocks(size_t(w) * h * ch);
                for (auto& b : noise) b = uint8_t(rng.next31());
                // BC-like: 4x4 tiles of two colours.
                for (uint32_t y = 0; y < h; ++y)
                    for (uint32_t x = 0; x < w; ++x)
                        for (uint32_t c = 0; c < ch; ++c)
                            blocks[(size_t(y) * w + x) * ch + c] = uint8_t(((x / 4 + y / 4) * 37 + ((x ^ y) & 1) * 90 + c * 11) & 0xFF);
                CAPTURE(w);
                CAPTURE(h);
                CAPTURE(ch);
                check_fast_png(same.data(), w, h, ch);
                check_fast_png(noise.data(), w, h, ch);
                check_fast_png(blocks.data(), w, h, ch);
                check_fast_png(blocks.data(), w, h, ch, image::PngFilter::up);
                check_fast_png(blocks.data(), w, h, ch, image::PngFilter::adaptive);
                images += 5;
            }
    }
    CHECK(images == 4 * 12 * 3 * 5);
    // A row wider than the deflate window (32 KiB): the previous-row distance is left out.
    std::vector<uint8_t> wide(size_t(9000) * 3 * 4);
    for (size_t i = 0; i < wide.size(); ++i) wide[i] = uint8_t((i / 12) % 5 * 40);
    CHECK(check_fast_png(wide.data(), 9000, 3, 4) > 0);
    // 16-bit.
    std::vector<uint16_t> p16(size_t(33) * 7 * 3);
    for (size_t i = 0; i < p16.size(); ++i) p16[i] = uint16_t((i / 3) % 4 * 9000 + i % 3);
    auto png16 = image::encode_png16(p16.data(), 33, 7, 3);
    REQUIRE(png16);
    const Decoded d = read_png(*png16);
    CHECK(d.error == "");
    REQUIRE(d.pixels.size() == p16.size() * 2);
    for (size_t i = 0; i < p16.size(); ++i) CHECK((d.pixels[2 * i] << 8 | d.pixels[2 * i + 1]) == p16[i]);
}

TEST_CASE("fast deflate: opaque RGBA images of every width 1..40 are written as RGB and read back exactly, the same on every CPU path") {
    // encode_png(Image) drops an opaque image's alpha (16-byte shuffles, 4 pixels at a time,
    // whose stores run 4 bytes past each group, or 32-byte ones, 16 pixels a step, whose stores
    // run 8 bytes past; the last groups of a row are written by bytes): every width around
    // those group sizes, each filter, and heights that split the rows into the deflate's two
    // halves unevenly. Widths up to 40 reach the AVX2 loop's second step (from 35 pixels).
    test::Lcg rng{23};
    int images = 0, paths = 0;
    for (uint32_t w = 1; w <= 40; ++w)
        for (uint32_t h : {1u, 2u, 3u, 8u}) {
            tpf::Image img;
            img.width = w;
            img.height = h;
            img.channels = 4;
            img.u8.resize(size_t(w) * h * 4);
            std::vector<uint8_t> rgb;
            for (size_t px = 0; px < size_t(w) * h; ++px) {
                // Runs of equal pixels (matches) between random ones (literals).
                const uint32_t r = rng.next31();
                const bool repeat = px > 0 && (r & 3) != 0;
                for (int c = 0; c < 3; ++c) img.u8[px * 4 + c] = repeat ? img.u8[(px - 1) * 4 + c] : uint8_t(r >> (8 + 7 * c));
                img.u8[px * 4 + 3] = 255;
                rgb.insert(rgb.end(), &img.u8[px * 4], &img.u8[px * 4] + 3);
            }
            for (auto filter : {image::PngFilter::none, image::PngFilter::up, image::PngFilter::paeth}) {
                image::PngOptions o;
                o.filter = filter;
                auto png = image::encode_png(img, o);
                REQUIRE(png);
                const Decoded d = read_png(*png);
                CAPTURE(w);
                CAPTURE(h);
                CHECK(d.error == "");
                CHECK(d.channels == 3);
                CHECK(d.pixels == rgb);
                ++images;
                // The opacity test and the repacking (scalar, SSSE3, AVX2) give the same file.
                for (auto cpu : {image::FastDeflateCpu::portable, image::FastDeflateCpu::ssse3, image::FastDeflateCpu::avx2}) {
                    if (!image::fast_deflate_cpu_supported(cpu)) continue;
                    o.cpu = cpu;
                    auto other = image::encode_png(img, o);
                    REQUIRE(other);
                    CAPTURE(int(cpu));
                    CHECK(*other == *png);
                    ++paths;
                }
            }
        }
    CHECK(images == 40 * 4 * 3);
    CHECK(paths >= images);  // the portable path at least
}

TEST_CASE("fast deflate: corpus BC1 BC3 BC5 BC7 textures encode to PNGs that decode to the same pixels" * doctest::test_suite("corpus")) {
    // EliteKnight.tpf (DS3: BC1 and BC7), the Elden Ring texbnds (KRAK) and the rest below.
    const auto corpus = test::corpus_tpfs({"ds3/EliteKnight.tpf", "er/game/chr/c4361_h.texbnd.dcx", "er/game/chr/c3061_h.texbnd.dcx",
                                            "er/game/chr/c5000_l.texbnd.dcx", "er/game/chr/c2030_l.texbnd.dcx", "ds3/bd_m_11010.partsbnd.dcx",
                                            "ds3/c1400.chrbnd.dcx", "sekiro/c7190.chrbnd.dcx", "er/systex.tpf.dcx"});
    REQUIRE(corpus.unreadable.empty());
    const auto& tpfs = corpus.tpfs;
    REQUIRE(tpfs.size() >= 3);
    std::map<std::string, int> formats;
    size_t fast_total = 0, libdeflate_total = 0;
    int textures = 0;
    for (const auto& bytes : tpfs) {
        auto tpf = tpf::read_tpf(bytes);
        REQUIRE(tpf);
        for (const auto& tex : tpf->textures) {
            auto dds = tpf::parse_dds(tex.dds);
            REQUIRE(dds);
            auto img = tpf::decode_surface(*dds);
            REQUIRE(img);
            if (img->is_float) continue;
            CAPTURE(tex.name);
            // What convert writes: opaque RGBA as RGB.
            std::vector<uint8_t> px = img->u8;
            uint32_t ch = img->channels;
            bool opaque = ch == 4;
            for (size_t i = 3; opaque && i < px.size(); i += 4) opaque = px[i] == 255;
            if (opaque) {
                std::vector<uint8_t> rgb;
                rgb.reserve(px.size() / 4 * 3);
                for (size_t i = 0; i < px.size(); i += 4) rgb.insert(rgb.end(), &px[i], &px[i] + 3);
                px = std::move(rgb);
                ch = 3;
            }
            const size_t fast = check_fast_png(px.data(), img->width, img->height, ch);
            CHECK(fast > 0);
            // encode_png(Image) takes the same path.
            auto via_image = image::encode_png(*img);
            REQUIRE(via_image);
            CHECK(via_image->size() == fast);
            // ... and its pixels (an opaque RGBA image goes through the RGBA -> RGB repacking).
            const Decoded back = read_png(*via_image);
            CHECK(back.error == "");
            CHECK(back.channels == ch);
            CHECK(back.pixels == px);
            const size_t slow = libdeflate_png_size(px.data(), img->width, img->height, ch);
            fast_total += fast;
            libdeflate_total += slow;
            ++formats[tpf::pixel_format_name(dds->format)];
            ++textures;
        }
    }
    MESSAGE("all " << textures << " textures: fast " << fast_total << " B, libdeflate level 1 " << libdeflate_total << " B");
    for (const auto& f : formats) MESSAGE(f.first << ": " << f.second);
    CHECK(textures >= 130);  // 133 in the corpus files above (c2030_l: 37)
    for (const char* f : {"BC1", "BC3", "BC5", "BC7"}) CHECK_MESSAGE(formats.count(f) == 1, f);
    // Sane size: at most half again libdeflate's fastest level over the set (1.35x measured:
    // libdeflate also finds repeats at other distances, e.g. the DS3 BC3 masks).
    CHECK(fast_total * 2 <= libdeflate_total * 3);
}

namespace {

// PNG scanlines with filter byte 0 (none) before each row of `pixels`.
std::vector<uint8_t> scanlines(const std::vector<uint8_t>& pixels, size_t rows, size_t row_bytes) {
    std::vector<uint8_t> out;
    out.reserve(rows * (row_bytes + 1));
    for (size_t y = 0; y < rows; ++y) {
        out.push_back(0);
        out.insert(out.end(), pixels.begin() + ptrdiff_t(y * row_bytes), pixels.begin() + ptrdiff_t((y + 1) * row_bytes));
    }
    return out;
}

// Pixels that equal neither the pixel before nor the one above but compress (three values):
// every row one literal run, through pass 2's dynamic block rather than stored blocks.
std::vector<uint8_t> never_matching(size_t width, size_t rows, uint32_t bpp) {
    std::vector<uint8_t> px(width * rows * bpp);
    for (size_t y = 0; y < rows; ++y)
        for (size_t x = 0; x < width; ++x)
            for (uint32_t c = 0; c < bpp; ++c) px[(y * width + x) * bpp + c] = uint8_t((x + y) % 3 * 50 + c);
    return px;
}

// Every supported CPU path on one image: the same bytes as the portable path, which inflate to
// the scanlines. Returns how many paths ran.
int check_cpu_paths(const std::vector<uint8_t>& pixels, size_t width, size_t rows, uint32_t bpp) {
    const size_t row_bytes = width * bpp;
    const std::vector<uint8_t> lines = scanlines(pixels, rows, row_bytes);
    std::vector<uint8_t> portable;
    image::fast_zlib_compress_png(lines.data(), rows, row_bytes, bpp, portable, image::FastDeflateCpu::portable);
    CHECK(inflate_zlib(portable, lines.size()) == lines);
    int paths = 1;
    for (auto cpu : {image::FastDeflateCpu::ssse3, image::FastDeflateCpu::avx2, image::FastDeflateCpu::automatic}) {
        if (!image::fast_deflate_cpu_supported(cpu)) continue;
        std::vector<uint8_t> z;
        image::fast_zlib_compress_png(lines.data(), rows, row_bytes, bpp, z, cpu);
        CAPTURE(int(cpu));
        CHECK(z == portable);
        ++paths;
    }
    return paths;
}

}  // namespace

TEST_CASE("fast deflate: the portable, SSSE3 and AVX2 paths write the same bytes for RGB and RGBA rows") {
    // Widths around the vector loops' 16-pixel words and their tails, runs of equal pixels
    // shorter and longer than one 56-bit mask window and than the longest match (86 RGB / 64
    // RGBA pixels), literal runs over 56 pixels, the first row, rows over the 32 KiB window
    // (no up distance), and literal runs over 56 pixels and over the step's 65535-pixel split in
    // a dynamic block (never_matching: noise goes to stored blocks).
    test::Lcg rng{31};
    int images = 0, paths = 0;
    for (uint32_t bpp : {3u, 4u}) {
        for (size_t width : {1u, 2u, 5u, 15u, 16u, 17u, 18u, 19u, 20u, 31u, 33u, 40u, 63u, 64u, 65u, 100u, 257u, 1000u})
            for (size_t rows : {1u, 2u, 3u, 7u}) {
                std::vector<uint8_t> px(width * rows * bpp);
                for (size_t i = 0; i < width * rows; ++i) {
                    const uint32_t r = rng.next31();
                    const size_t x = i % width;
                    uint8_t* p = &px[i * bpp];
                    if (i >= width && (r & 7) < 3) {
                        std::memcpy(p, p - width * bpp, bpp);  // as the row above
                    } else if (x > 0 && (r & 7) < 6 && (i / 97) % 3 != 0) {
                        std::memcpy(p, p - bpp, bpp);  // as the pixel before (long runs)
                    } else {
                        for (uint32_t c = 0; c < bpp; ++c) p[c] = uint8_t(rng.next31() >> (c * 3));
                    }
                }
                CAPTURE(bpp);
                CAPTURE(width);
                CAPTURE(rows);
                paths += check_cpu_paths(px, width, rows, bpp);
                // Flat (runs to the longest match everywhere) and noise (literal runs).
                paths += check_cpu_paths(std::vector<uint8_t>(px.size(), 0x42), width, rows, bpp);
                for (auto& b : px) b = uint8_t(rng.next31());
                paths += check_cpu_paths(px, width, rows, bpp);
                paths += check_cpu_paths(never_matching(width, rows, bpp), width, rows, bpp);
                images += 4;
            }
        // Rows of 11,000 pixels (over 32 KiB: no up distance) and of 70,000 noise pixels.
        std::vector<uint8_t> wide(size_t(11000) * 3 * bpp);
        for (size_t i = 0; i < wide.size(); ++i) wide[i] = uint8_t((i / (bpp * 5)) % 7 * 30 + (rng.next31() & 1));
        paths += check_cpu_paths(wide, 11000, 3, bpp);
        std::vector<uint8_t> noise(size_t(70000) * 2 * bpp);
        for (auto& b : noise) b = uint8_t(rng.next31());
        paths += check_cpu_paths(noise, 70000, 2, bpp);
        paths += check_cpu_paths(never_matching(70000, 2, bpp), 70000, 2, bpp);
        images += 3;
    }
    MESSAGE(images << " images, " << paths << " encodes (portable + every supported vector path)");
    CHECK(images == 2 * (18 * 4 * 4 + 3));
    CHECK(paths >= 2 * images);  // at least portable and automatic for each
}

TEST_CASE("fast deflate: corpus colour maps give the same bytes on every CPU path" * doctest::test_suite("corpus")) {
    // The 1024^2 BC1 maps: DS3's HD_M_7200_a (opaque: RGB rows) and Elden Ring's c4361_body_a
    // (with alpha: RGBA rows).
    const auto corpus = test::corpus_tpfs({"ds3/EliteKnight.tpf", "er/game/chr/c4361_h.texbnd.dcx"});
    REQUIRE(corpus.unreadable.empty());
    const auto& tpfs = corpus.tpfs;
    int checked = 0;
    for (const auto& bytes : tpfs) {
        auto tpf = tpf::read_tpf(bytes);
        REQUIRE(tpf);
        for (const auto& tex : tpf->textures) {
            if (tex.name != "HD_M_7200_a" && tex.name != "c4361_body_a") continue;
            auto dds = tpf::parse_dds(tex.dds);
            REQUIRE(dds);
            auto img = tpf::decode_surface(*dds);
            REQUIRE(img);
            std::vector<uint8_t> px = img->u8;
            uint32_t bpp = 4;
            bool opaque = true;
            for (size_t i = 3; opaque && i < px.size(); i += 4) opaque = px[i] == 255;
            if (opaque) {
                std::vector<uint8_t> rgb;
                for (size_t i = 0; i < px.size(); i += 4) rgb.insert(rgb.end(), &px[i], &px[i] + 3);
                px = std::move(rgb);
                bpp = 3;
            }
            CAPTURE(tex.name);
            CHECK(bpp == (tex.name == "HD_M_7200_a" ? 3u : 4u));
            CHECK(check_cpu_paths(px, img->width, img->height, bpp) >= 2);
            ++checked;
        }
    }
    CHECK(checked == 2);
}
