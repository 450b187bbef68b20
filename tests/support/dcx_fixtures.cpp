#include "dcx_fixtures.h"

#include <zlib.h>

#include <algorithm>
#include <string>

namespace drape::test {

namespace {

using Buf = std::vector<uint8_t>;

// Big-endian writer (every DCX and DCP header field is big endian). Out of line: inlined into the
// writers, GCC 12 at -O3 reports a false stringop-overflow on the vector's growth.
struct Be {
    Buf v;
    [[gnu::noinline]] void u32(uint32_t x) {
        for (int s = 24; s >= 0; s -= 8) v.push_back(uint8_t(x >> s));
    }
    [[gnu::noinline]] void tag(const char (&t)[5]) { v.insert(v.end(), t, t + 4); }
    [[gnu::noinline]] void bytes(const Buf& b) { v.insert(v.end(), b.begin(), b.end()); }
};

Buf deflated(const Buf& in, int window_bits) {
    z_stream zs{};
    deflateInit2(&zs, 9, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
    Buf out(deflateBound(&zs, uLong(in.size())));
    zs.next_in = const_cast<Bytef*>(in.data());
    zs.avail_in = uInt(in.size());
    zs.next_out = out.data();
    zs.avail_out = uInt(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(zs.total_out);
    deflateEnd(&zs);
    return out;
}

// The payload in 64 KiB chunks, each raw deflate.
std::vector<Buf> edge_chunks(const Buf& payload) {
    std::vector<Buf> chunks;
    for (size_t off = 0; off < payload.size(); off += 0x10000) {
        const Buf part(payload.begin() + long(off), payload.begin() + long(std::min(payload.size(), off + 0x10000)));
        chunks.push_back(deflated(part, -15));
    }
    return chunks;
}

// The EgdT table's records: {0, offset, size, 1 (deflated)} per chunk.
void edge_records(Be& b, const std::vector<Buf>& chunks) {
    uint32_t off = 0;
    for (const Buf& c : chunks) {
        b.u32(0), b.u32(off), b.u32(uint32_t(c.size())), b.u32(1);
        off += uint32_t(c.size());
    }
}

uint32_t total_size(const std::vector<Buf>& chunks) {
    size_t n = 0;
    for (const Buf& c : chunks) n += c.size();
    return uint32_t(n);
}

uint32_t last_chunk_size(const Buf& payload) { return payload.size() % 0x10000 ? uint32_t(payload.size() % 0x10000) : 0x10000; }

}  // namespace

std::vector<uint8_t> make_dcx_krak(const std::vector<uint8_t>& stream, uint32_t uncompressed_size) {
    Be b;
    b.tag("DCX\0");
    b.u32(0x11000), b.u32(0x18), b.u32(0x24), b.u32(0x44), b.u32(0x4C);
    b.tag("DCS\0");
    b.u32(uncompressed_size), b.u32(uint32_t(stream.size()));
    b.tag("DCP\0"), b.tag("KRAK");
    b.u32(0x20), b.u32(0x06000000), b.u32(0), b.u32(0), b.u32(0), b.u32(0x00010100);
    b.tag("DCA\0");
    b.u32(8);
    b.bytes(stream);
    while (b.v.size() % 16) b.v.push_back(0);
    return b.v;
}

std::vector<uint8_t> make_dcx_edge(const std::vector<uint8_t>& payload) {
    const auto chunks = edge_chunks(payload);
    const uint32_t n = uint32_t(chunks.size());
    Be b;
    b.tag("DCX\0");
    b.u32(0x10000), b.u32(0x18), b.u32(0x24), b.u32(0x24), b.u32(0x50 + 0x10 * n);
    b.tag("DCS\0");
    b.u32(uint32_t(payload.size())), b.u32(total_size(chunks));
    b.tag("DCP\0"), b.tag("EDGE");
    b.u32(0x20), b.u32(0x09000000), b.u32(0x10000), b.u32(0), b.u32(0), b.u32(0x00100100);
    b.tag("DCA\0");
    b.u32(0x24 + 0x10 * n + 8);
    b.tag("EgdT");
    b.u32(0x00010100), b.u32(0x24), b.u32(0x10), b.u32(0x10000), b.u32(last_chunk_size(payload)), b.u32(0x24 + 0x10 * n), b.u32(n),
        b.u32(0x100000);
    edge_records(b, chunks);
    for (const Buf& c : chunks) b.bytes(c);
    return b.v;
}

std::vector<uint8_t> make_dcp_dflt(const std::vector<uint8_t>& payload) {
    const Buf z = deflated(payload, 15);
    Be b;
    b.tag("DCP\0"), b.tag("DFLT");
    b.u32(0x20), b.u32(0x09000000), b.u32(0), b.u32(0), b.u32(0), b.u32(0x00010100);
    b.tag("DCS\0");
    b.u32(uint32_t(payload.size())), b.u32(uint32_t(z.size()));
    b.bytes(z);
    b.tag("DCA\0"), b.u32(8);
    return b.v;
}

std::vector<uint8_t> make_dcp_edge(const std::vector<uint8_t>& payload) {
    const auto chunks = edge_chunks(payload);
    const uint32_t n = uint32_t(chunks.size());
    Be b;
    b.tag("DCP\0"), b.tag("EDGE");
    b.u32(0x20), b.u32(0x09000000), b.u32(0x10000), b.u32(0), b.u32(0), b.u32(0x00100100);
    b.tag("DCS\0");
    b.u32(uint32_t(payload.size())), b.u32(total_size(chunks)), b.u32(0);
    for (const Buf& c : chunks) b.bytes(c);
    b.tag("DCA\0"), b.u32(0x20 + 0x10 * n + 8);
    b.tag("EgdT");
    b.u32(0x00010000), b.u32(0x20), b.u32(0x10), b.u32(0x10000), b.u32(0x20 + 0x10 * n), b.u32(n), b.u32(0x100000);
    edge_records(b, chunks);
    return b.v;
}

}  // namespace drape::test
