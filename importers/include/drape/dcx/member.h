// drape: one member of a DCX-compressed BND4 without decoding the rest of the file.
//
// A DCX-wrapped binder (chrbnd, anibnd, matbinbnd ...) is one compressed stream. For KRAK,
// whose 256 KiB blocks each restart the LZ window in the games' files, reading the binder's
// headers costs the few blocks that hold them, and reading a member costs the blocks that hold
// its bytes: opening one MATBIN of the 77 MB allmaterial.matbinbnd decodes well under 1 MB.
// DFLT and ZSTD streams cannot be entered in the middle: there, the headers and every member
// are decoded from the start of the stream up to their end (DFLT), or whole (ZSTD).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"

namespace drape::dcx {

class LazyBinder {
public:
    // Reads the DCX header and the BND4's headers (0 .. headers_end). `file` must outlive
    // the LazyBinder. Errors: DCX and KRAK errors as dcx::decompress_range reports them, BND4
    // header errors as bnd::read_bnd4 does, "dcx.bnd4" when the payload is not a BND4.
    // `read` goes to bnd::read_bnd4 (member_paths = false: entries with empty Entry::path).
    static Result<LazyBinder> open(Bytes file, const DecodeOptions& options = {}, const bnd::ReadOptions& read = {});

    // The binder's header fields and entries. Entry::data is empty for every entry (its bytes
    // are not decoded yet): use member() / member_bytes().
    const bnd::Binder& binder() const { return m_binder; }
    const Header& header() const { return m_header; }

    // The stored bytes of `entry` (one of binder().entries), decoded on demand; the view stays
    // valid as long as this LazyBinder.
    Result<Bytes> member(const bnd::Entry& entry);
    // The entry's bytes as bnd::entry_bytes gives them (a compressed member decompressed).
    Result<std::vector<uint8_t>> member_bytes(const bnd::Entry& entry);

private:
    Bytes m_file;
    DecodeOptions m_options;
    Header m_header;
    bnd::Binder m_binder;
    // The whole output's address range, allocated without being written: only the decoded
    // ranges are ever touched (and only their pages faulted in). Not a Buffer: that one asks
    // for huge pages, whose first touch would zero 2 MiB around every member read.
    std::unique_ptr<uint8_t[]> m_output;
    uint64_t m_total = 0;
};

}  // namespace drape::dcx
