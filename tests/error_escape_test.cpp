// Messages never print a file's raw bytes: every reader's magic and tag checks
// are fed non-ASCII bytes and the message must be printable ASCII with the bytes as \xNN; the
// error layer's own net (Error::to_string) escapes whatever a reader quotes unescaped.
#include <doctest/doctest.h>

#include <cstring>
#include <functional>
#include <string>

#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/flver/flver.h"
#include "drape/havok/hkx.h"
#include "drape/io/reader.h"
#include "drape/matbin/matbin.h"
#include "drape/tpf/tpf.h"

using namespace drape;

namespace {

using Buf = std::vector<uint8_t>;

// The four bytes of a corrupt tagfile section tag met in a real file.
const uint8_t k_bad[4] = {0xD2, 0xF9, 0x06, 0xF0};

bool printable_ascii(const std::string& s) {
    for (char c : s)
        if (uint8_t(c) < 0x20 || uint8_t(c) > 0x7E) return false;
    return true;
}

Buf with_bad_at(Buf b, size_t at) {
    if (b.size() < at + 4) b.resize(at + 4, 0);
    std::memcpy(b.data() + at, k_bad, 4);
    return b;
}

template <class R>
std::string message(const R& r) {
    REQUIRE_FALSE(r);
    return r.error().to_string();
}

// A TAG0 file whose first inner section has the bad tag and a size below 8.
Buf tagfile_with_bad_inner_tag(const char* outer) {
    Buf out(16, 0);
    out[3] = 16;  // outer size 16, flags 0 (has children)
    std::memcpy(out.data() + 4, outer, 4);
    out[8] = 0x40, out[11] = 4;  // inner size 4, below 8
    std::memcpy(out.data() + 12, k_bad, 4);
    return out;
}

}  // namespace

TEST_CASE("errors: every reader's magic and tag checks escape non-ASCII file bytes") {
    const Buf zeros(512, 0);
    struct Case {
        std::string what;
        std::function<std::string()> run;
    };
    auto dcx_bytes = [] {
        const Buf payload(100, 7);
        auto d = dcx::compress(payload);
        REQUIRE(d);
        return *d;
    };
    const std::vector<Case> cases = {
        {"DCX magic", [&] { return message(dcx::decompress(with_bad_at(zeros, 0))); }},
        {"DCX compression tag", [&] { return message(dcx::decompress(with_bad_at(dcx_bytes(), 0x28))); }},
        {"DCX DCS magic", [&] { return message(dcx::decompress(with_bad_at(dcx_bytes(), 0x18))); }},
        {"BND4 magic", [&] { return message(bnd::read_bnd4(with_bad_at(zeros, 0))); }},
        {"BHF4 magic", [&] {
             Buf bdt = zeros;
             std::memcpy(bdt.data(), "BDF4", 4);
             return message(bnd::read_bxf4(with_bad_at(zeros, 0), bdt));
         }},
        {"BDF4 magic", [&] { return message(bnd::read_bxf4(zeros, with_bad_at(zeros, 0))); }},
        {"TPF magic", [&] { return message(tpf::read_tpf(with_bad_at(zeros, 0))); }},
        {"DDS magic", [&] { return message(tpf::parse_dds(with_bad_at(zeros, 0))); }},
        {"FLVER magic", [&] { return message(flver::read_flver(with_bad_at(zeros, 0))); }},
        {"TAG0 top section", [&] { return message(havok::read_tagfile(with_bad_at(Buf{0x40, 0, 0, 4}, 4))); }},
        {"TAG0 inner section", [&] { return message(havok::read_tagfile(tagfile_with_bad_inner_tag("TAG0"))); }},
        {"TCM0 inner section", [&] { return message(havok::read_compendium(tagfile_with_bad_inner_tag("TCM0"))); }},
        {"packfile magic", [&] { return message(havok::read_packfile(with_bad_at(zeros, 0))); }},
        {"hkx sniff", [&] { return message(havok::read_hkx(with_bad_at(zeros, 0))); }},
        {"MATBIN magic", [&] { return message(matbin::read_matbin(with_bad_at(zeros, 0))); }},
        {"MTD magic", [&] { return message(matbin::read_mtd(with_bad_at(zeros, 0))); }},
        {"MTD magic after its block header", [&] { return message(matbin::read_mtd(with_bad_at(zeros, 0x2C))); }},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        const std::string m = c.run();
        CHECK_MESSAGE(printable_ascii(m), m);
        MESSAGE(c.what << ": " << m);
    }
    // That file's message: the tag is quoted as \xNN, not as raw bytes.
    const std::string tag0 = message(havok::read_tagfile(tagfile_with_bad_inner_tag("TAG0")));
    CHECK_MESSAGE(tag0.find("section \\xD2\\xF9\\x06\\xF0 size 4 below 8") != std::string::npos, tag0);
    const std::string comp = message(dcx::decompress(with_bad_at(dcx_bytes(), 0x28)));
    CHECK_MESSAGE(comp.find("unknown compression \"\\xD2\\xF9\\x06\\xF0\"") != std::string::npos, comp);
    const std::string bnd = message(bnd::read_bnd4(with_bad_at(zeros, 0)));
    CHECK_MESSAGE(bnd.find("found \"\\xD2\\xF9\\x06\\xF0\"") != std::string::npos, bnd);
}

TEST_CASE("errors: escape_bytes and the to_string net") {
    CHECK(escape_bytes(std::string_view("AB\0\x7F\xFF~ ", 7)) == "AB\\0\\x7F\\xFF~ ");
    CHECK(escape_bytes(Bytes(k_bad, 4)) == "\\xD2\\xF9\\x06\\xF0");
    // Valid UTF-8 of printable characters stays (Shift-JIS names decode to it) ...
    CHECK(printable_utf8("c5000 \xE9\xAA\xA8.hkx") == "c5000 \xE9\xAA\xA8.hkx");
    // ... controls, lone continuation bytes, truncated and overlong sequences, surrogates and C1
    // controls do not.
    CHECK(printable_utf8("a\nb\tc") == "a\\x0Ab\\x09c");
    CHECK(printable_utf8("\x80x") == "\\x80x");
    CHECK(printable_utf8("\xE9\xAA") == "\\xE9\\xAA");
    CHECK(printable_utf8("\xC0\xAF") == "\\xC0\\xAF");
    CHECK(printable_utf8("\xED\xA0\x80") == "\\xED\\xA0\\x80");
    CHECK(printable_utf8("\xC2\x85") == "\\xC2\\x85");
    // A reader that quotes raw bytes into a reason (or a member name in the chain) still prints safely.
    Error e = make_error_at(0x10, "TAG0", std::string("section ") + std::string(reinterpret_cast<const char*>(k_bad), 4) + " size 3");
    e.within("bad\x01name.hkx");
    CHECK(e.to_string() == "bad\\x01name.hkx @0x10 TAG0: section \\xD2\\xF9\\x06\\xF0 size 3");
}
