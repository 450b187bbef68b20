// libFuzzer: the PNG and Radiance .hdr writers (exporters/image) on images decoded from the input.
//
//   byte 0   bits 0-1: 0 encode_png (8-bit samples), 1 encode_png16, 2 encode_png of a tpf::Image
//            of 8-bit samples, 3 of float samples (then also encode_hdr); bits 2-4: the row
//            filter (mod 6); bit 5: libdeflate instead of the fast deflate; bit 6: sRGB chunk;
//            bit 7: drop an opaque alpha
//   byte 1   channels as given (0 and above 4 are refused by the writer)
//   byte 2   bits 0-1: the vector code path (FastDeflateCpu); bits 2-7: the libdeflate level (mod 13)
//   3..10    width and height, u32 little endian each
//   rest     the samples (bytes, u16 or float as the mode says; floats may be NaN or infinite)
//
// The pointer forms are given exactly the samples their size asks for (what a caller must do),
// so the image is cut to the rows the samples fill, and capped to 2^18 samples for speed; a
// tpf::Image keeps the declared size whatever the samples, since encode_png must refuse a
// mismatch (huge sizes included) rather than read past its vectors.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "drape/exporters/png.h"

namespace {
constexpr size_t k_max_samples = size_t(1) << 18;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace drape;
    if (size < 11) return 0;
    const uint8_t mode = data[0] & 3;
    image::PngOptions o;
    o.filter = image::PngFilter((data[0] >> 2 & 7) % 6);
    o.deflate = (data[0] & 0x20) ? image::PngDeflate::libdeflate : image::PngDeflate::fast;
    o.srgb = (data[0] & 0x40) != 0;
    o.drop_opaque_alpha = (data[0] & 0x80) != 0;
    const uint32_t channels = data[1];
    o.cpu = image::FastDeflateCpu(data[2] & 3);
    if (!image::fast_deflate_cpu_supported(o.cpu)) o.cpu = image::FastDeflateCpu::portable;
    o.level = (data[2] >> 2) % 13;
    uint32_t width, height;
    std::memcpy(&width, data + 3, 4);
    std::memcpy(&height, data + 7, 4);
    const uint8_t* samples = data + 11;
    const size_t bytes = size - 11;

    if (mode == 0 || mode == 1) {
        const size_t sample_bytes = mode == 0 ? 1 : 2;
        const size_t row = size_t(width) * channels;
        if (row == 0 || row > k_max_samples) return 0;
        const size_t rows = std::min<size_t>({height, bytes / sample_bytes / row, k_max_samples / row});
        if (mode == 0) {
            (void)image::encode_png(samples, width, uint32_t(rows), channels, o);
        } else {
            std::vector<uint16_t> s(row * rows);
            if (!s.empty()) std::memcpy(s.data(), samples, s.size() * 2);
            (void)image::encode_png16(s.data(), width, uint32_t(rows), channels, o);
        }
        return 0;
    }
    tpf::Image img;
    img.width = width;
    img.height = height;
    img.channels = channels;
    img.is_float = mode == 3;
    if (img.is_float) {
        img.f32.resize(std::min(bytes / 4, k_max_samples));
        if (!img.f32.empty()) std::memcpy(img.f32.data(), samples, img.f32.size() * 4);
    } else {
        img.u8.assign(samples, samples + std::min(bytes, k_max_samples));
    }
    (void)image::encode_png(img, o);
    if (img.is_float) (void)image::encode_hdr(img);
    return 0;
}
