// drape: hkaSplineCompressedAnimation decoding (docs/formats.md#spline-compressed-clips):
// blocks, masks, the scalar and quaternion quantisations, and B-spline evaluation (NURBS Book A2.1/A2.2).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "drape/anim/animation.h"
#include "number_text.h"
#include "drape/io/reader.h"

namespace drape::anim {

const char* rotation_quantization_name(RotationQuantization q) {
    switch (q) {
        case RotationQuantization::polar32: return "POLAR32";
        case RotationQuantization::threecomp40: return "THREECOMP40";
        case RotationQuantization::threecomp48: return "THREECOMP48";
        case RotationQuantization::threecomp24: return "THREECOMP24";
        case RotationQuantization::straight16: return "STRAIGHT16";
        case RotationQuantization::uncompressed: return "UNCOMPRESSED";
    }
    return "unknown";
}

namespace {

constexpr size_t rotation_size(RotationQuantization q) {
    switch (q) {
        case RotationQuantization::polar32: return 4;
        case RotationQuantization::threecomp40: return 5;
        case RotationQuantization::threecomp48: return 6;
        case RotationQuantization::threecomp24: return 3;
        case RotationQuantization::straight16: return 2;
        case RotationQuantization::uncompressed: return 16;
    }
    return 0;
}

constexpr size_t rotation_align(RotationQuantization q) {
    switch (q) {
        case RotationQuantization::polar32: return 4;
        case RotationQuantization::threecomp40: return 1;
        case RotationQuantization::threecomp48: return 2;
        case RotationQuantization::threecomp24: return 1;
        case RotationQuantization::straight16: return 2;
        case RotationQuantization::uncompressed: return 4;
    }
    return 1;
}

// Puts the three stored components around the omitted one and rebuilds it from the unit length.
Quat rebuild(const float c[3], unsigned omitted, bool negative) {
    Quat q{};
    float sum = 0;
    for (unsigned i = 0, k = 0; i < 4; ++i) {
        if (i == omitted) continue;
        q[i] = c[k++];
        sum += q[i] * q[i];
    }
    float w = std::sqrt(std::max(0.0f, 1.0f - sum));
    q[omitted] = negative ? -w : w;
    return q;
}

}  // namespace

Quat decode_polar32(uint32_t c) {
    constexpr float k_pi = 3.14159265358979323846f;
    float r = float((c >> 18) & 0x3FF) / 1023.0f;
    r = 1.0f - r * r;
    const uint32_t pt = c & 0x3FFFF;
    float phi = std::floor(std::sqrt(float(pt)));
    float theta = 0;
    if (phi > 0) {
        theta = (k_pi / 4.0f) * (float(pt) - phi * phi) / phi;
        phi = (k_pi / 2.0f) / 511.0f * phi;
    }
    const float m = std::sqrt(std::max(0.0f, 1.0f - r * r));
    Quat q{std::sin(phi) * std::cos(theta) * m, std::sin(phi) * std::sin(theta) * m, std::cos(phi) * m, r};
    for (int i = 0; i < 4; ++i)
        if (c & (1u << (28 + i))) q[i] = -q[i];
    return q;
}

Quat decode_threecomp40(const uint8_t b[5]) {
    uint64_t v = 0;
    for (int i = 0; i < 5; ++i) v |= uint64_t(b[i]) << (8 * i);
    constexpr float k_scale = 0.000345436f;  // 1 / (2047 * sqrt 2)
    const float c[3] = {(float(v & 0xFFF) - 2047.0f) * k_scale, (float((v >> 12) & 0xFFF) - 2047.0f) * k_scale,
                        (float((v >> 24) & 0xFFF) - 2047.0f) * k_scale};
    return rebuild(c, unsigned((v >> 36) & 3), ((v >> 38) & 1) != 0);
}

Quat decode_threecomp48(const uint8_t b[6]) {
    int16_t x, y, z;
    std::memcpy(&x, b, 2);
    std::memcpy(&y, b + 2, 2);
    std::memcpy(&z, b + 4, 2);
    const uint16_t ux = uint16_t(x), uy = uint16_t(y), uz = uint16_t(z);
    const unsigned omitted = ((uy >> 14) & 2) | ((ux >> 15) & 1);
    const bool negative = (uz >> 15) & 1;
    constexpr float k_scale = 0.000043161f;  // 1 / (16383 * sqrt 2)
    const float c[3] = {(float(ux & 0x7FFF) - 16383.0f) * k_scale, (float(uy & 0x7FFF) - 16383.0f) * k_scale,
                        (float(uz & 0x7FFF) - 16383.0f) * k_scale};
    return rebuild(c, omitted, negative);
}

namespace {

// u16 n, u8 degree, then n + degree + 2 knot bytes. n + 1 control points.
bool read_spline_header(ByteReader& r, uint8_t& degree, std::vector<float>& knots, uint32_t& points, const char* field) {
    const size_t at = r.pos();
    const uint16_t n = r.u16(field);
    degree = r.u8(field);
    if (r.failed()) return false;
    if (degree > n) return r.fail_at(at, field, "degree " + std::to_string(degree) + " needs more than " + std::to_string(n + 1) + " control points");
    const size_t count = size_t(n) + degree + 2;
    if (!r.check_count(count, 1, field)) return false;
    knots.resize(count);
    uint8_t prev = 0;
    for (size_t i = 0; i < count; ++i) {
        const uint8_t k = r.u8(field);
        if (k < prev) return r.fail_at(r.pos() - 1, field, "knots decrease (" + std::to_string(prev) + " then " + std::to_string(k) + ")");
        prev = k;
        knots[i] = float(k);
    }
    points = uint32_t(n) + 1;
    return true;
}

using detail::number_text;

// What read_vector and read_rotation found they cannot decode in a part (components 0: nothing).
struct Unreadable {
    uint8_t components = 0;
    std::string reason;
    std::string heading;  // of the list `reason` ends with
    // Adds component k under `title`: "16-bit spline range x NaN..NaN, y NaN..NaN; static value z inf".
    void add(int k, const std::string& title, const std::string& value) {
        components = uint8_t(components | (1 << k));
        if (title == heading) reason += ", ";
        else reason += (reason.empty() ? "" : "; ") + title + " ";
        heading = title;
        reason += char('x' + k);
        reason += " " + value;
    }
};

// A position or scale part. `identity` is 0 (position) or 1 (scale).
//
// A spline component's keys are min + (max - min) * q / (2^bits - 1): a stored min or max that
// is not finite makes every key of that component NaN or infinite (Elden Ring c2030 a001_009000
// stores NaN..NaN on x, y and z of R_Egg's 16-bit scale spline, every q 0: the compressor's
// source keys were NaN). The file then holds no value for the component at all, so it is read
// past (the keys still take their bytes), left at the identity and listed in `bad`; so is a
// static component stored as NaN or an infinity. A finite range wider than the float range
// (max - min overflows to infinity) takes its keys from double arithmetic, where it fits.
bool read_vector(ByteReader& r, uint8_t type, uint8_t quant, float identity, VectorCurve& c, Unreadable& bad, const char* field) {
    c.static_mask = type & 0x7;
    c.spline_mask = uint8_t((type >> 4) & 0x7) & uint8_t(~c.static_mask);  // static wins
    c.constant = {identity, identity, identity};
    const auto check_static = [&](int k) {
        if (std::isfinite(c.constant[k])) return;
        bad.add(k, "static value", number_text(c.constant[k]));
        c.constant[k] = identity;
        c.static_mask = uint8_t(c.static_mask & ~(1 << k));
    };
    if (c.spline_mask) {
        if (quant > 1) return r.fail(field, "scalar quantization " + std::to_string(quant) + " is not 0 (8-bit) or 1 (16-bit)");
        uint32_t n = 0;
        if (!read_spline_header(r, c.degree, c.knots, n, field) || !r.align(4, field)) return false;
        float mins[3] = {0, 0, 0}, maxs[3] = {0, 0, 0}, spans[3] = {0, 0, 0};
        uint8_t wide = 0;  // components whose max - min overflows a float
        for (int k = 0; k < 3; ++k) {
            if (c.static_mask & (1 << k)) {
                c.constant[k] = r.f32(field);
            } else if (c.spline_mask & (1 << k)) {
                mins[k] = r.f32(field);
                maxs[k] = r.f32(field);
                spans[k] = maxs[k] - mins[k];
                if (r.failed()) return false;
                if (!std::isfinite(mins[k]) || !std::isfinite(maxs[k]))
                    bad.add(k, std::to_string(quant ? 16 : 8) + "-bit spline range", number_text(mins[k]) + ".." + number_text(maxs[k]));
                else if (!std::isfinite(spans[k]))
                    wide = uint8_t(wide | (1 << k));
            }
        }
        if (r.failed()) return false;
        for (int k = 0; k < 3; ++k)
            if (c.static_mask & (1 << k)) check_static(k);
        const unsigned comps = unsigned(std::popcount(unsigned(c.spline_mask)));
        const size_t bytes = quant ? 2 : 1;
        c.quantization_bits = uint8_t(bytes * 8);
        if (!r.check_count(uint64_t(n) * comps, bytes, field)) return false;
        c.points.assign(n, c.constant);
        const float inv = bytes == 2 ? 1.0f / 65535.0f : 1.0f / 255.0f;
        for (uint32_t i = 0; i < n; ++i)
            for (int k = 0; k < 3; ++k)
                if (c.spline_mask & (1 << k)) {
                    const float q = bytes == 2 ? float(r.u16(field)) : float(r.u8(field));
                    if (wide & (1 << k))
                        c.points[i][k] = float(double(mins[k]) + (double(maxs[k]) - double(mins[k])) * (double(q) / (bytes == 2 ? 65535.0 : 255.0)));
                    else
                        c.points[i][k] = mins[k] + spans[k] * (q * inv);
                }
        if (const uint8_t lost = uint8_t(bad.components & c.spline_mask)) {
            c.spline_mask = uint8_t(c.spline_mask & ~lost);
            for (int k = 0; k < 3; ++k)
                if (lost & (1 << k)) c.constant[k] = identity;
            if (!c.spline_mask) c.points.clear();
            else
                for (auto& p : c.points)
                    for (int k = 0; k < 3; ++k)
                        if (lost & (1 << k)) p[k] = identity;
        }
    } else {
        for (int k = 0; k < 3; ++k)
            if (c.static_mask & (1 << k)) {
                c.constant[k] = r.f32(field);
                check_static(k);
            }
    }
    return r.align(4, field);
}

// One quaternion of rotation_size(q) bytes at b; false for a quantization without a decoder.
bool decode_quaternion(RotationQuantization q, const uint8_t* b, Quat& out) {
    switch (q) {
        case RotationQuantization::polar32: {
            uint32_t c;
            std::memcpy(&c, b, 4);
            out = decode_polar32(c);
            return true;
        }
        case RotationQuantization::threecomp40: out = decode_threecomp40(b); return true;
        case RotationQuantization::threecomp48: out = decode_threecomp48(b); return true;
        case RotationQuantization::uncompressed: std::memcpy(out.data(), b, 16); return true;
        default: return false;
    }
}

bool read_quaternion(ByteReader& r, RotationQuantization q, Quat& out, const char* field) {
    uint8_t b[16];
    if (!r.read_bytes(b, rotation_size(q), field)) return false;
    return decode_quaternion(q, b, out);
}

bool finite(const Quat& q) { return std::isfinite(q[0]) && std::isfinite(q[1]) && std::isfinite(q[2]) && std::isfinite(q[3]); }

std::string quat_text(const Quat& q) { return detail::four_text(q); }

// A rotation part. Only UNCOMPRESSED stores floats; a quaternion of it that is not finite leaves
// the part at the identity and is listed in `bad` (read_vector says why).
bool read_rotation(ByteReader& r, uint8_t type, RotationQuantization q, RotationCurve& c, Unreadable& bad, const char* field) {
    c.quantization = q;
    c.is_spline = (type & 0xF0) != 0;
    c.is_static = !c.is_spline && (type & 0x0F) != 0;
    if (!c.is_spline && !c.is_static) return true;
    const size_t at = r.pos();
    if (q == RotationQuantization::threecomp24 || q == RotationQuantization::straight16)
        return r.fail_at(at, field,
                         std::string("rotation quantization ") + rotation_quantization_name(q) +
                             " is not decoded: no public source describes it");
    if (c.is_spline) {
        uint32_t n = 0;
        if (!read_spline_header(r, c.degree, c.knots, n, field) || !r.align(rotation_align(q), field)) return false;
        if (!r.check_count(n, rotation_size(q), field)) return false;
        c.points.resize(n);
        if (q == RotationQuantization::polar32 || q == RotationQuantization::threecomp40 || q == RotationQuantization::threecomp48 ||
            q == RotationQuantization::uncompressed) {
            // The count is checked against the bytes left: the points are taken at once and
            // decoded from the span (one bounds check, not one per point).
            const size_t size = rotation_size(q);
            const Bytes all = r.take(size_t(n) * size, field);
            if (r.failed()) return false;
            for (uint32_t i = 0; i < n; ++i) decode_quaternion(q, all.data() + size_t(i) * size, c.points[i]);
        } else {
            for (uint32_t i = 0; i < n; ++i)
                if (!read_quaternion(r, q, c.points[i], field)) return false;
        }
        for (uint32_t i = 0; q == RotationQuantization::uncompressed && i < n; ++i)
            if (!finite(c.points[i])) {
                bad.components = 0xF;
                bad.reason = std::string(rotation_quantization_name(q)) + " control point " + std::to_string(i) + " of " + std::to_string(n) + " " +
                             quat_text(c.points[i]);
                c.is_spline = false;
                c.points.clear();
                break;
            }
    } else {
        if (!r.align(rotation_align(q), field) || !read_quaternion(r, q, c.constant, field)) return false;
        if (!finite(c.constant)) {
            bad.components = 0xF;
            bad.reason = std::string("static ") + rotation_quantization_name(q) + " quaternion " + quat_text(c.constant);
            c.is_static = false;
            c.constant = {0, 0, 0, 1};
        }
    }
    return r.align(4, field);
}

// Knot span of A2.1: the largest i in [degree, n] with knots[i] <= u (n + 1 control points).
size_t find_span(const std::vector<float>& knots, size_t points, unsigned degree, float u) {
    const auto begin = knots.begin() + degree + 1, end = knots.begin() + points;
    if (begin >= end) return degree;
    return size_t(std::upper_bound(begin, end, u) - knots.begin()) - 1;
}

// Basis functions of A2.2: N[0..p] for span `span` (left and right: p + 1 floats of scratch).
// Always inlined, so that a caller with a constant p (eval_fixed) gets the loops unrolled and
// the intermediates in registers from the same operations in the same order: the same bits.
[[gnu::always_inline]] inline void basis_into(const float* U, size_t span, unsigned p, float u, float* N, float* left,
                                              float* right) {
    N[0] = 1.0f;
    for (unsigned j = 1; j <= p; ++j) {
        left[j] = u - U[span + 1 - j];
        right[j] = U[span + j] - u;
        float saved = 0.0f;
        for (unsigned r = 0; r < j; ++r) {
            const float den = right[r + 1] + left[j - r];
            const float temp = den != 0.0f ? N[r] / den : 0.0f;
            N[r] = saved + right[r + 1] * temp;
            saved = left[j - r] * temp;
        }
        N[j] = saved;
    }
}

void basis(const std::vector<float>& U, size_t span, unsigned p, float u, float* N) {
    float left[256], right[256];
    basis_into(U.data(), span, p, u, N, left, right);
}

// The weighted sum of the p + 1 control points of span `span` with the basis N.
template <size_t D>
[[gnu::always_inline]] inline std::array<float, D> weighted_sum(const float* N, const std::array<float, D>* points, size_t span,
                                                                unsigned p) {
    std::array<float, D> out{};
    for (unsigned i = 0; i <= p; ++i) {
        const auto& Pt = points[span - p + i];
        for (size_t k = 0; k < D; ++k) out[k] += N[i] * Pt[k];
    }
    return out;
}

// basis() and the weighted sum for a degree known at compile time (the games' curves are of
// degree 1 to 3; the sampling of a character's clips spent a tenth of `drape convert` here).
template <size_t D, unsigned P>
std::array<float, D> eval_fixed(const float* U, const std::array<float, D>* points, size_t span, float u) {
    float N[P + 1], left[P + 1], right[P + 1];
    basis_into(U, span, P, u, N, left, right);
    return weighted_sum<D>(N, points, span, P);
}

// The curve at u (already clamped) in knot span `span`.
template <size_t D>
std::array<float, D> eval_at_span(const std::vector<float>& knots, const std::vector<std::array<float, D>>& points, unsigned degree, size_t span, float u) {
    switch (degree) {
        case 1: return eval_fixed<D, 1>(knots.data(), points.data(), span, u);
        case 2: return eval_fixed<D, 2>(knots.data(), points.data(), span, u);
        case 3: return eval_fixed<D, 3>(knots.data(), points.data(), span, u);
        default: break;
    }
    float N[256];
    basis(knots, span, degree, u, N);
    return weighted_sum<D>(N, points.data(), span, degree);
}

template <size_t D>
std::array<float, D> eval_points(const std::vector<float>& knots, const std::vector<std::array<float, D>>& points, unsigned degree, float u) {
    if (points.empty()) return std::array<float, D>{};
    const size_t n = points.size();
    // Clamp to the curve's domain [knots[degree], knots[n]].
    u = std::clamp(u, knots[degree], knots[n]);
    return eval_at_span(knots, points, degree, find_span(knots, n, degree, u), u);
}

// eval_points at u0, u0 + 1, ... into out[0 .. count). With sorted knots the clamped u only
// grows, so each span is the previous one moved forward: the index find_span's upper_bound
// gives (the first knot in [degree + 1, n) above u, less one). Unsorted knots (no game file
// has them) take find_span at every frame, so the result is eval_points' in every case.
template <size_t D, class Out, class Finish>
void eval_frames(const std::vector<float>& knots, const std::vector<std::array<float, D>>& points, unsigned degree, float u0, size_t count,
                 Out* out, const Finish& finish) {
    const size_t n = points.size();
    bool sorted = knots.size() > n;  // knots[0 .. n] non-decreasing (and no NaN: a hand-made curve may hold one)
    for (size_t k = 0; sorted && k < n; ++k) sorted = knots[k] <= knots[k + 1];
    size_t next = degree + 1;  // first candidate of the knot above u
    for (size_t i = 0; i < count; ++i) {
        const float u = std::clamp(u0 + float(i), knots[degree], knots[n]);
        size_t span;
        if (sorted) {
            while (next < n && !(u < knots[next])) ++next;
            span = next - 1;  // degree when no knot of [degree + 1, n) is at or below u (or none is there)
        } else {
            span = find_span(knots, n, degree, u);
        }
        out[i] = finish(eval_at_span(knots, points, degree, span, u));
    }
}

}  // namespace

Vec3 evaluate(const VectorCurve& c, float u) {
    Vec3 out = c.constant;
    if (!c.spline_mask || c.points.empty()) return out;
    const Vec3 v = eval_points<3>(c.knots, c.points, c.degree, u);
    for (int k = 0; k < 3; ++k)
        if (c.spline_mask & (1 << k)) out[k] = v[k];
    return out;
}

Quat evaluate(const RotationCurve& c, float u) {
    if (!c.is_spline || c.points.empty()) return normalize(c.constant);
    return normalize(eval_points<4>(c.knots, c.points, c.degree, u));
}

void evaluate_frames(const VectorCurve& c, float u0, size_t count, Vec3* out) {
    if (!c.spline_mask || c.points.empty()) {
        std::fill(out, out + count, c.constant);
        return;
    }
    eval_frames<3>(c.knots, c.points, c.degree, u0, count, out, [&c](const Vec3& v) {
        Vec3 r = c.constant;
        for (int k = 0; k < 3; ++k)
            if (c.spline_mask & (1 << k)) r[k] = v[k];
        return r;
    });
}

void evaluate_frames(const RotationCurve& c, float u0, size_t count, Quat* out) {
    if (!c.is_spline || c.points.empty()) {
        std::fill(out, out + count, normalize(c.constant));
        return;
    }
    eval_frames<4>(c.knots, c.points, c.degree, u0, count, out, [](const Quat& q) { return normalize(q); });
}

Result<SplineClip> decode_spline(const havok::SplineData& d, int32_t num_tracks, int32_t num_float_tracks) {
    SplineClip clip;
    clip.num_frames = d.num_frames;
    clip.max_frames_per_block = d.max_frames_per_block;
    clip.block_duration = d.block_duration;
    clip.block_inverse_duration = d.block_inverse_duration;
    clip.frame_duration = d.frame_duration;
    if (num_tracks < 0 || uint32_t(num_tracks) > k_max_tracks)
        return make_error(std::to_string(num_tracks) + " transform tracks, outside 0.." + std::to_string(k_max_tracks), "hkaAnimation.numberOfTransformTracks");
    if (num_float_tracks < 0 || uint32_t(num_float_tracks) > k_max_tracks)
        return make_error(std::to_string(num_float_tracks) + " float tracks, outside 0.." + std::to_string(k_max_tracks), "hkaAnimation.numberOfFloatTracks");
    if (d.num_frames < 1 || uint32_t(d.num_frames) > k_max_frames)
        return make_error(std::to_string(d.num_frames) + " frames, outside 1.." + std::to_string(k_max_frames), "hkaSplineCompressedAnimation.numFrames");
    // Knots are bytes in block-local frames, so a block cannot address more than 256 frames; this
    // also ties the frame count to the number of block offsets stored in the file.
    if (d.max_frames_per_block < 2 || d.max_frames_per_block > 256)
        return make_error(std::to_string(d.max_frames_per_block) + " frames per block, outside 2..256",
                          "hkaSplineCompressedAnimation.maxFramesPerBlock");
    const int64_t blocks_needed = (int64_t(d.num_frames) - 2) / (d.max_frames_per_block - 1) + 1;
    // Elden Ring (2018) clips may store fewer block offsets than blocks (seen: 2 blocks, 1 offset,
    // 327 frames). Every block starts at the 16-byte boundary after the previous block's
    // transform data (the rule every stored offset of the corpus follows), so a missing offset
    // is found by parsing the block before it. More offsets than blocks, or none, stay errors.
    if (d.num_blocks < 1 || d.num_blocks != std::max<int64_t>(1, blocks_needed) || d.block_offsets.empty() ||
        d.block_offsets.size() > size_t(d.num_blocks))
        return make_error(std::to_string(d.num_blocks) + " blocks with " + std::to_string(d.block_offsets.size()) + " offsets for " +
                              std::to_string(d.num_frames) + " frames of at most " + std::to_string(d.max_frames_per_block) + " per block",
                          "hkaSplineCompressedAnimation.numBlocks");
    if (!(d.frame_duration > 0) || !std::isfinite(d.frame_duration) || !std::isfinite(d.block_duration) ||
        !std::isfinite(d.block_inverse_duration))
        return make_error("frame duration " + std::to_string(d.frame_duration) + " (block " + std::to_string(d.block_duration) + ", inverse " +
                              std::to_string(d.block_inverse_duration) + ") is not a positive finite number",
                          "hkaSplineCompressedAnimation.frameDuration");
    if (d.endian != 0) return make_error("big-endian spline data (endian " + std::to_string(d.endian) + ") is not supported", "hkaSplineCompressedAnimation.endian");
    const int64_t mask_size = int64_t(num_tracks) * 4 + num_float_tracks;
    if (d.mask_and_quantization_size != mask_size)
        return make_error("mask size " + std::to_string(d.mask_and_quantization_size) + ", expected 4 x " + std::to_string(num_tracks) +
                              " + " + std::to_string(num_float_tracks),
                          "hkaSplineCompressedAnimation.maskAndQuantizationSize");

    ByteReader all(Bytes(d.data.data(), d.data.size()));
    clip.blocks.resize(size_t(d.num_blocks));
    for (size_t b = 0; b < clip.blocks.size(); ++b) {
        SplineBlock& block = clip.blocks[b];
        block.offset_derived = b >= d.block_offsets.size();
        const uint64_t begin = block.offset_derived ? (clip.blocks[b - 1].transforms_end + 15) / 16 * 16 : d.block_offsets[b];
        const uint64_t end = b + 1 < d.block_offsets.size() ? d.block_offsets[b + 1] : d.data.size();
        if (block.offset_derived && begin >= d.data.size())
            return make_error_at(begin, "hkaSplineCompressedAnimation.blockOffsets",
                                 "block " + std::to_string(b) + " of " + std::to_string(d.num_blocks) + " has no stored offset and the data (" +
                                     std::to_string(d.data.size()) + " bytes) ends with block " + std::to_string(b - 1));
        if (end < begin || end > d.data.size())
            return make_error_at(begin, "hkaSplineCompressedAnimation.blockOffsets",
                                 "block " + std::to_string(b) + " spans " + std::to_string(begin) + ".." + std::to_string(end) + " of " +
                                     std::to_string(d.data.size()) + " bytes");
        block.offset = begin;
        ByteReader r = all.slice(begin, end - begin, "spline.block");
        if (!r.check_count(uint64_t(mask_size), 1, "spline.block.masks")) return r.error();
        std::vector<uint8_t> masks(size_t(num_tracks) * 4);
        if (!r.read_bytes(masks.data(), masks.size(), "spline.block.masks") || !r.skip(size_t(num_float_tracks), "spline.block.float_masks") ||
            !r.align(4, "spline.block.masks"))
            return r.error();
        auto& tracks = block.tracks;
        tracks.resize(size_t(num_tracks));
        for (size_t t = 0; t < tracks.size(); ++t) {
            const uint8_t quant = masks[t * 4], pos = masks[t * 4 + 1], rot = masks[t * 4 + 2], scl = masks[t * 4 + 3];
            const auto rq = RotationQuantization((quant >> 2) & 0xF);
            if (uint8_t(rq) > 5)
                return make_error_at(r.abs_pos(), "spline.track.quantization",
                                     "track " + std::to_string(t) + " has rotation quantization " + std::to_string(unsigned(rq)) + ", not 0..5");
            Unreadable bad[3];  // translation, rotation, scale
            if (!read_vector(r, pos, quant & 3, 0.0f, tracks[t].translation, bad[0], "spline.track.translation") ||
                !read_rotation(r, rot, rq, tracks[t].rotation, bad[1], "spline.track.rotation") ||
                !read_vector(r, scl, (quant >> 6) & 3, 1.0f, tracks[t].scale, bad[2], "spline.track.scale")) {
                Error e = r.error();
                e.field += " (block " + std::to_string(b) + ", track " + std::to_string(t) + ")";
                return e;
            }
            for (int part = 0; part < 3; ++part)
                if (bad[part].components)
                    clip.undecoded.push_back({int32_t(t), int32_t(b), TrackPart(part), bad[part].components, std::move(bad[part].reason)});
        }
        block.transforms_end = begin + r.pos();
    }
    return clip;
}

}  // namespace drape::anim
