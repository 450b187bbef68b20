#include "drape/exporters/textures.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <set>

#include "drape/exporters/gltf.h"
#include "drape/io/file.h"
#include "drape/tpf/bc.h"

namespace drape::image {

namespace {

bool is_normal_key(const std::string& key) { return key.size() > 2 && key.compare(key.size() - 2, 2, "_n") == 0; }

// The blue byte of a normal from its red and green bytes (z of the unit vector).
uint8_t normal_blue(uint8_t red, uint8_t green) {
    const float x = red / 127.5f - 1.0f, y = green / 127.5f - 1.0f;
    const float z = std::sqrt(std::max(0.0f, 1.0f - x * x - y * y));
    return uint8_t(std::lround((z + 1.0f) * 127.5f));
}

void rebuild_normal_blue(tpf::Image& img) {
    // normal_blue for all 64k (red, green) pairs, computed once: a look-up per pixel instead
    // of a sqrt and an lround (the same bytes; 2 % of a convert's instructions went there).
    static const std::vector<uint8_t> table = [] {
        std::vector<uint8_t> t(65536);
        for (uint32_t r = 0; r < 256; ++r)
            for (uint32_t g = 0; g < 256; ++g) t[r * 256 + g] = normal_blue(uint8_t(r), uint8_t(g));
        return t;
    }();
    const uint32_t ch = img.channels;
    for (size_t p = 0; p + ch <= img.u8.size(); p += ch) img.u8[p + 2] = table[size_t(img.u8[p]) * 256 + img.u8[p + 1]];
}

}  // namespace

std::vector<EncodedTexture> encode_tpf_textures(const tpf::Tpf& tpf, const PngOptions& options) {
    std::vector<EncodedTexture> out;
    out.reserve(tpf.textures.size());
    for (const tpf::Texture& tex : tpf.textures) {
        EncodedTexture e;
        e.name = tex.name;
        e.key = exporters::texture_key(tex.name);
        const auto t0 = std::chrono::steady_clock::now();
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
        e.decode_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (is_normal_key(e.key) && !img->is_float && img->channels >= 3) {
            rebuild_normal_blue(*img);
            e.normal_rebuilt = true;
        }
        PngOptions opts = options;
        opts.srgb = options.srgb || dds->srgb;
        auto png = encode_png(*img, opts);
        if (!png) {
            e.error = png.error().to_string();
            out.push_back(std::move(e));
            continue;
        }
        e.png = std::move(*png);
        if (img->is_float)
            if (auto hdr = encode_hdr(*img)) e.hdr = std::move(*hdr);
        out.push_back(std::move(e));
    }
    return out;
}

Result<void> write_textures(std::span<const EncodedTexture> textures, const std::filesystem::path& folder,
                            const std::string& uri_prefix, std::map<std::string, std::string>& uris) {
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec) return make_error("cannot create folder " + folder.string() + ": " + ec.message(), "export.folder");
    std::set<std::string> used;  // lower-case file names
    for (const EncodedTexture& t : textures) {
        if (t.png.empty()) continue;
        // One file name: path separators inside the texture name become '_'.
        std::string flat = t.name;
        std::replace(flat.begin(), flat.end(), '/', '_');
        std::replace(flat.begin(), flat.end(), '\\', '_');
        const std::string base = sanitize_member_path(flat);
        std::string candidate = base;
        for (int n = 2;; ++n) {
            std::string lower = candidate;
            std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
            if (used.insert(lower).second) break;
            candidate = base + "_" + std::to_string(n);
        }
        auto png_path = safe_join(folder, candidate + ".png");
        if (!png_path) return png_path.error();
        if (auto w = write_file(*png_path, t.png); !w) return w.error();
        if (!t.hdr.empty()) {
            auto hdr_path = safe_join(folder, candidate + ".hdr");
            if (!hdr_path) return hdr_path.error();
            if (auto w = write_file(*hdr_path, t.hdr); !w) return w.error();
        }
        uris.emplace(t.key, uri_prefix + candidate + ".png");
    }
    return {};
}

}  // namespace drape::image
