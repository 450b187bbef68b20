#include "drape/dcx/member.h"

#include <cstring>

namespace drape::dcx {

Result<LazyBinder> LazyBinder::open(Bytes file, const DecodeOptions& options, const bnd::ReadOptions& read) {
    LazyBinder lb;
    lb.m_file = file;
    lb.m_options = options;
    auto h = read_header(file);
    if (!h) return h.error();
    lb.m_header = *h;
    const uint64_t total = h->uncompressed_size;
    if (total > options.max_uncompressed)  // decompress_range checks it too; refuse before allocating
        return make_error_at(0x1C, "dcx.uncompressed_size",
                             "declared uncompressed size " + std::to_string(total) + " B exceeds the " +
                                 std::to_string(options.max_uncompressed) + " B limit");
    // The fixed 0x40-byte BND4 header gives headers_end (u64 at 0x28; byte 0x09 = big endian).
    Buffer part;
    auto head = decompress_range(file, 0, std::min<uint64_t>(total, 0x40), part, options);
    if (!head) return head.error();
    if (!bnd::is_bnd4(*head) || head->size() < 0x40)
        return make_error("the DCX payload is not a BND4 binder", "dcx.bnd4");
    uint64_t headers_end = 0;
    {
        ByteReader r(*head, 0, (*head)[9] != 0);
        r.seek(0x28, "bnd4.headers_end");
        headers_end = r.u64("bnd4.headers_end");
        if (r.failed()) return r.error();
    }
    if (headers_end < 0x40 || headers_end > total)
        return make_error_at(0x28, "bnd4.headers_end",
                             "headers end " + hex(headers_end) + " lies outside the " + std::to_string(total) + " B binder");
    auto headers = decompress_range(file, 0, headers_end, part, options);
    if (!headers) return headers.error();
    lb.m_output.reset(new uint8_t[size_t(total)]);
    lb.m_total = total;
    std::memcpy(lb.m_output.get(), headers->data(), headers->size());
    // read_bnd4 reads only the headers region; member data views are dropped below.
    auto b = bnd::read_bnd4(Bytes(lb.m_output.get(), size_t(total)), read);
    if (!b) return b.error();
    lb.m_binder = std::move(*b);
    for (bnd::Entry& e : lb.m_binder.entries) e.data = {};
    return lb;
}

Result<Bytes> LazyBinder::member(const bnd::Entry& entry) {
    const uint64_t total = m_total;
    if (entry.data_offset > total || entry.stored_size > total - entry.data_offset)
        return make_error_at(entry.data_offset, "bnd4.file.data", "member data lies outside the binder");
    Buffer part;
    auto got = decompress_range(m_file, entry.data_offset, entry.stored_size, part, m_options);
    if (!got) return got.error();
    uint8_t* dst = m_output.get() + entry.data_offset;
    if (!got->empty()) std::memcpy(dst, got->data(), got->size());
    return Bytes(dst, size_t(entry.stored_size));
}

Result<std::vector<uint8_t>> LazyBinder::member_bytes(const bnd::Entry& entry) {
    auto stored = member(entry);
    if (!stored) return stored.error();
    bnd::Entry e = entry;
    e.data = *stored;
    return bnd::entry_bytes(m_binder, e);
}

}  // namespace drape::dcx
