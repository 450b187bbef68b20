// PARAM reader, row layouts, regulation decryption and display masks: hand-made tables with known
// values, every error message, truncation at every length, and every table of the corpus binders.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "corpus.h"
#include "drape/bnd/bnd4.h"
#include "drape/dcx/dcx.h"
#include "drape/game/containers.h"
#include "drape/param/param.h"
#include "game_fixtures.h"
#include "param_fixture.h"
#include "run.h"

using namespace drape;
using namespace drape::param;

namespace {

std::vector<uint8_t> row_bytes(int32_t a, float b, uint8_t flags) {
    std::vector<uint8_t> d(12, 0);
    std::memcpy(d.data(), &a, 4);
    std::memcpy(d.data() + 4, &b, 4);
    d[8] = flags;
    return d;
}

test::ParamSpec small_spec(bool long_form) {
    test::ParamSpec s;
    s.long_form = long_form;
    s.data_version = 3;
    s.rows = {{10, "first", row_bytes(-5, 1.5f, 0x05)}, {20, "second", row_bytes(7, -2.0f, 0x80)}, {15, "third", row_bytes(0, 0, 0)}};
    return s;
}

std::string error_of(Bytes b) {
    auto r = read_param(b);
    REQUIRE_FALSE(r);
    return r.error().to_string();
}

template <class T>
void poke(std::vector<uint8_t>& b, size_t at, T v) {
    std::memcpy(b.data() + at, &v, sizeof(T));
}

void require_corpus() {
    REQUIRE_MESSAGE(std::filesystem::exists(test::corpus("er/regulation.112.decrypted.bin")), "no corpus at " << test::corpus_dir().string());
}

// Members of a binder file read without the walker: DCX, then BND4 (the count a corpus loop must reach).
size_t binder_member_count(const std::vector<uint8_t>& dcx_bytes, std::string* version = nullptr) {
    auto plain = dcx::decompress(dcx_bytes);
    REQUIRE(plain);
    auto b = bnd::read_bnd4(*plain);
    REQUIRE(b);
    if (version) *version = b->version;
    return b->entries.size();
}

// Reads every member as a PARAM (each failure named), checking the game its path names.
struct CorpusTables {
    size_t read = 0, rows = 0, short_form = 0;
    std::set<std::string> names;
};
CorpusTables read_all(const std::vector<game::Member>& members, Game game) {
    CorpusTables t;
    for (const auto& m : members) {
        auto p = read_param(m.bytes);
        CHECK_MESSAGE(p, m.name << ": " << (p ? "" : p.error().to_string()));
        CHECK(game_of_member_path(m.name) == game);
        t.names.insert(param_name(m.name));
        if (!p) continue;
        ++t.read;
        t.rows += p->rows.size();
        if (!(p->format_2d & 0x04)) ++t.short_form;
    }
    return t;
}

const game::Member* member_named(const std::vector<game::Member>& ms, const std::string& name) {
    for (const auto& m : ms)
        if (param_name(m.name) == name) return &m;
    return nullptr;
}

}  // namespace

TEST_CASE("param: a table in the 64-bit form reads back ids, names, row bytes and its type") {
    const auto bytes = test::make_param(small_spec(true));
    auto p = read_param(bytes);
    REQUIRE(p);
    CHECK(p->type == "TEST_PARAM_ST");
    CHECK(p->data_version == 3);
    CHECK(p->format_2d == 0x85);
    CHECK(p->row_size == 12);
    REQUIRE(p->rows.size() == 3);
    CHECK(p->rows[0].id == 10);
    CHECK(p->rows[1].name == "second");
    CHECK(p->rows[2].id == 15);  // stored order, not sorted
    CHECK(std::vector<uint8_t>(p->rows[1].data.begin(), p->rows[1].data.end()) == row_bytes(7, -2.0f, 0x80));
}

TEST_CASE("param: a table in the 32-bit form with the type inline and Shift-JIS names") {
    const auto bytes = test::make_param(small_spec(false));
    auto p = read_param(bytes);
    REQUIRE(p);
    CHECK(p->type == "TEST_PARAM_ST");
    CHECK(p->row_size == 12);
    REQUIRE(p->rows.size() == 3);
    CHECK(p->rows[2].name == "third");
    CHECK(p->rows[0].data[8] == 0x05);
}

TEST_CASE("param: a table without rows and a row without a name") {
    test::ParamSpec s;
    auto p = read_param(test::make_param(s));
    REQUIRE(p);
    CHECK(p->rows.empty());
    CHECK(p->row_size == 0);
    s.rows = {{1, "", row_bytes(1, 1, 1)}, {2, "two", row_bytes(2, 2, 2)}};
    p = read_param(test::make_param(s));
    REQUIRE(p);
    CHECK(p->rows[0].name.empty());
    CHECK(p->rows[1].name == "two");
}

TEST_CASE("param: truncation at every length of the fixtures is refused") {
    for (bool long_form : {true, false}) {
        const auto bytes = test::make_param(small_spec(long_form));
        size_t refused = 0;
        for (size_t n = 0; n < bytes.size(); ++n) {
            auto r = read_param(Bytes(bytes.data(), n));
            CHECK_MESSAGE(!r, "prefix of " << n << " B read");
            if (!r) ++refused;
        }
        CHECK(refused == bytes.size());
    }
}

TEST_CASE("param: every error message") {
    const auto good = test::make_param(small_spec(true));
    {
        auto b = good;
        b[0x2C] = 0x12;
        CHECK(error_of(b).find("param.endianness: byte 0x12 is neither 0") != std::string::npos);
    }
    {
        auto b = good;
        poke<uint64_t>(b, 0x10, b.size() + 4);
        CHECK(error_of(b).find("param.type_offset: type string offset") != std::string::npos);
    }
    {
        auto b = good;
        poke<uint16_t>(b, 0x0A, 60000);
        CHECK(error_of(b).find("param.rows: 60000 x 24 B exceeds") != std::string::npos);
    }
    {
        auto b = good;
        for (int i = 0; i < 3; ++i) poke<uint64_t>(b, 0x40 + 24 * i + 8, b.size() + 100);
        CHECK(error_of(b).find("param.row.data_offset: row data offset") != std::string::npos);
    }
    {
        auto b = good;
        // every row's data at the end of the file: nothing is left for the rows
        for (int i = 0; i < 3; ++i) poke<uint64_t>(b, 0x40 + 24 * i + 8, b.size());
        CHECK(error_of(b).find("param.row_size: 3 rows in the") != std::string::npos);
    }
    {
        auto b = good;
        poke<uint64_t>(b, 0x40 + 24 + 8, b.size() - 4);  // row 20's 12 bytes start 4 bytes before the end
        CHECK(error_of(b).find("param.row.data_offset: row 20: 12 B at") != std::string::npos);
    }
    {
        auto b = good;
        poke<uint64_t>(b, 0x40 + 24 * 2 + 16, b.size() + 2);
        CHECK(error_of(b).find("param.row.name_offset: row 15: name offset") != std::string::npos);
    }
    {
        auto b = good;
        b.resize(b.size() - 2);  // the last name loses its terminator
        CHECK(error_of(b).find("param.row.name: unterminated UTF-16 string") != std::string::npos);
    }
    {
        auto p = read_param(good);
        REQUIRE(p);
        auto layout = find_layout(Game::elden_ring, "NPC_PARAM_ST");
        REQUIRE(layout);
        auto r = check_layout(*p, *layout);
        REQUIRE_FALSE(r);
        CHECK(r.error().to_string().find("param.type: the table's type TEST_PARAM_ST is not the layout's NPC_PARAM_ST") != std::string::npos);
        p->type = "NPC_PARAM_ST";
        r = check_layout(*p, *layout);
        REQUIRE_FALSE(r);
        CHECK(r.error().to_string().find("param.row_size: rows of 12 B do not fit the") != std::string::npos);
        Layout no_masks;
        no_masks.param_type = "TEST_PARAM_ST";
        no_masks.size = 12;
        p->type = "TEST_PARAM_ST";
        auto m = display_masks(*p, no_masks, Game::elden_ring, 1);
        REQUIRE_FALSE(m);
        CHECK(m.error().to_string().find("param.layout: the layout of TEST_PARAM_ST has no modelDispMask0") != std::string::npos);
    }
    {
        auto b = test::make_param(small_spec(false));
        b.back() = 'x';  // the last Shift-JIS name loses its terminator
        CHECK(error_of(b).find("param.row.name: ") != std::string::npos);
    }
    {
        auto b = good;
        // the type string runs into the names and on to the end without a NUL
        const size_t type_at = 0x40 + 3 * 24 + 3 * 12;
        for (size_t i = type_at; i < b.size(); ++i) b[i] = 'A';
        CHECK(error_of(b).find("param.type: ") != std::string::npos);
    }
    {
        std::vector<uint8_t> noise(64, 0x5A);
        auto d = decrypt_regulation(noise);
        REQUIRE_FALSE(d);
        CHECK(d.error().to_string().find("regulation: no published regulation key") != std::string::npos);
    }
}

TEST_CASE("param: the Elden Ring NpcParam layout places fields as its definition states") {
    // By hand from the PARAMDEF: u8 disableParam_NT:1, dummy8 disableParamReserve1:7 (one byte),
    // dummy8 disableParamReserve2[3], then s32 behaviorVariationId at 4, s32 resistCorrectId_poison
    // at 8, s32 nameId at 12, f32 turnVellocity at 16.
    auto l = find_layout(Game::elden_ring, "NPC_PARAM_ST", 11210015);
    REQUIRE(l);
    CHECK(l->find("disableParam_NT")->bit_offset == 0);
    CHECK(l->find("disableParam_NT")->bits == 1);
    CHECK(l->find("disableParamReserve1")->bit_offset == 1);
    CHECK(l->find("disableParamReserve2")->bit_offset == 8);
    CHECK(l->find("disableParamReserve2")->bits == 24);
    CHECK(l->find("behaviorVariationId")->bit_offset == 32);
    CHECK(l->find("nameId")->bit_offset == 96);
    CHECK(l->find("turnVellocity")->bit_offset == 128);
    // the 32 display masks are one bit each: 0-15 in two bytes, 16 other flags (isEnableNeckTurn ..
    // isWeakF), then 16-31
    const uint32_t m0 = l->find("modelDispMask0")->bit_offset;
    CHECK(m0 % 8 == 0);
    for (int i = 1; i < 32; ++i)
        CHECK(l->find("modelDispMask" + std::to_string(i))->bit_offset == m0 + uint32_t(i) + (i >= 16 ? 16u : 0u));
    CHECK(l->data_version == 9);
    CHECK_FALSE(find_layout(Game::elden_ring, "NO_SUCH_PARAM_ST"));
    CHECK_FALSE(find_layout(Game::nightreign, "NPC_PARAM_ST"));
}

TEST_CASE("param: field values of hand-made rows") {
    Field s32{"a", FieldType::s32, 0, 32};
    Field f32{"b", FieldType::f32, 32, 32};
    Field bit0{"c", FieldType::u8, 64, 1};
    Field bits{"d", FieldType::u8, 65, 3};
    Field s8{"e", FieldType::s8, 64, 8};
    const auto row = row_bytes(-5, 1.5f, 0x05 | (0x6 << 1));
    CHECK(field_value(s32, row).i == -5);
    CHECK(field_value(f32, row).is_float);
    CHECK(field_value(f32, row).f == 1.5);
    CHECK(field_value(bit0, row).i == 1);
    CHECK(field_value(bits, row).i == ((0x05 | (0x6 << 1)) >> 1 & 7));
    CHECK(field_value(s8, row_bytes(0, 0, 0xFE)).i == -2);
    CHECK(value_text(field_value(f32, row)) == "1.5");
    CHECK(value_text(field_value(s32, row)) == "-5");
}

TEST_CASE("param: the display-mask rule of row ids and model names") {
    CHECK(npc_row_of_character(Game::elden_ring, 50000000, 5000));
    CHECK(npc_row_of_character(Game::elden_ring, 50009999, 5000));
    CHECK_FALSE(npc_row_of_character(Game::elden_ring, 50010000, 5000));
    CHECK_FALSE(npc_row_of_character(Game::elden_ring, -1, 0));
    CHECK(npc_row_of_character(Game::sekiro, 10100000, 1010));
    CHECK(npc_row_of_character(Game::dark_souls_3, 143000, 1430));  // c1430's hollow is row 143000 (docs/params.md)
    CHECK_FALSE(npc_row_of_character(Game::dark_souls_3, 143000, 14));
    CHECK(character_number("c5000") == 5000u);
    CHECK(character_number("C4361_cloth") == 4361u);
    CHECK_FALSE(character_number("c500"));
    CHECK_FALSE(character_number("c50000"));
    CHECK_FALSE(character_number("m5000"));
    CHECK(param_name("regulation.bin > N:\\GR\\data\\Param\\param\\GameParam\\NpcParam.param") == "NpcParam");
    CHECK(game_of_member_path("regulation.bin > N:\\GR\\data\\Param\\NpcParam.param") == Game::elden_ring);
    CHECK(game_of_member_path("x > N:\\NTC\\data\\NpcParam.param") == Game::sekiro);
    CHECK(game_of_member_path("x > W:\\CL\\data\\NpcParam.param") == Game::nightreign);
    CHECK(game_of_member_path("NpcParam.param") == Game::unknown);
}

TEST_CASE("param: display masks of a hand-made NpcParam table") {
    auto l = find_layout(Game::elden_ring, "NPC_PARAM_ST", 11210015);
    REQUIRE(l);
    test::ParamSpec s;
    s.type = "NPC_PARAM_ST";
    auto row = [&](uint32_t masks) {
        std::vector<uint8_t> d(l->size, 0);
        for (int i = 0; i < 32; ++i) {
            const uint32_t at = l->find("modelDispMask" + std::to_string(i))->bit_offset;
            if (masks >> i & 1) d[at / 8] |= uint8_t(1 << (at % 8));
        }
        return d;
    };
    s.rows = {{50000000, "a", row(0x3)}, {50000010, "b", row(0x80000000u)}, {50010000, "other", row(0xFFFFFFFFu)}};
    const auto bytes = test::make_param(s);
    auto p = read_param(bytes);
    REQUIRE(p);
    auto m = display_masks(*p, *l, Game::elden_ring, 5000);
    REQUIRE(m);
    REQUIRE(m->size() == 2);
    CHECK((*m)[0].row_id == 50000000);
    CHECK((*m)[0].masks == 0x3u);
    CHECK((*m)[1].masks == 0x80000000u);
    CHECK((*m)[1].row_name == "b");
}

TEST_CASE("param: an encrypted regulation decrypts and its PARAMs come out of the container walker") {
    test::ParamSpec s = small_spec(true);
    const auto table = test::make_param(s);
    const auto binder = test::make_bnd4({{"N:\\GR\\data\\Param\\param\\GameParam\\TestParam.param", table}});
    auto dcx = dcx::compress(binder);
    REQUIRE(dcx);
    std::vector<uint8_t> iv(16);
    for (size_t i = 0; i < 16; ++i) iv[i] = uint8_t(i * 7 + 1);
    const auto enc = test::encrypt_regulation(*dcx, test::elden_ring_regulation_key(), iv);
    REQUIRE(enc.size() == 16 + (dcx->size() / 16 + 1) * 16);
    CHECK(regulation_key(enc) == RegulationKey::elden_ring);
    RegulationKey key{};
    auto plain = decrypt_regulation(enc, &key);
    REQUIRE(plain);
    CHECK(key == RegulationKey::elden_ring);
    CHECK(*plain == *dcx);  // the padding is removed
    auto members = game::open_members(Bytes(enc), "regulation.bin", {});
    REQUIRE(members);
    REQUIRE(members->size() == 1);
    CHECK(param_name((*members)[0].name) == "TestParam");
    CHECK(game_of_member_path((*members)[0].name) == Game::elden_ring);
    auto p = read_param((*members)[0].bytes);
    REQUIRE(p);
    CHECK(p->rows.size() == 3);
    // a DCX that is not encrypted has no key
    CHECK_FALSE(regulation_key(*dcx));
}

TEST_CASE("param: layouts.inc is what importers/param/paramdex_table.py writes from the reference PARAMDEFs" * doctest::test_suite("corpus")) {
    const auto ref = test::reference_dir() / "paramdex";
    REQUIRE_MESSAGE(std::filesystem::exists(ref / "er" / "NpcParam.xml"), "no reference at " << ref.string());
    const std::string src = DRAPE_SOURCE_DIR;
    auto r = test::run("python3 '" + src + "/importers/param/paramdex_table.py' '" + ref.string() + "' | diff -q - '" + src +
                       "/importers/param/layouts.inc'");
    CHECK_MESSAGE(r.exit_code == 0, r.out);
}

TEST_CASE("param corpus: every PARAM of the decrypted Elden Ring regulation reads" * doctest::test_suite("corpus")) {
    require_corpus();
    const auto bytes = test::load(test::corpus("er/regulation.112.decrypted.bin"));
    std::string version;
    const size_t expected = binder_member_count(bytes, &version);
    auto members = game::open_members(Bytes(bytes), "regulation.112.decrypted.bin", {});
    REQUIRE(members);
    const CorpusTables t = read_all(*members, Game::elden_ring);
    for (const auto& m : *members) CHECK(m.binder_version == version);
    MESSAGE("Elden Ring regulation " << version << ": " << t.read << " PARAMs, " << t.rows << " rows");
    REQUIRE(expected == 194);
    REQUIRE(t.read == expected);

    // NpcParam with the layout of the binder's regulation version.
    const game::Member* npc = member_named(*members, "NpcParam");
    REQUIRE(npc);
    auto p = read_param(npc->bytes);
    REQUIRE(p);
    auto l = find_layout(Game::elden_ring, p->type, regulation_version(version));
    REQUIRE(l);
    CHECK(p->row_size == l->size);
    REQUIRE(check_layout(*p, *l));
    // Values read by hand from the row bytes at the offsets the PARAMDEF gives (see the layout test).
    size_t checked = 0;
    for (const auto& row : p->rows) {
        int32_t variation = 0, name_id = 0;
        float turn = 0;
        uint32_t hp = 0;
        std::memcpy(&variation, row.data.data() + 4, 4);
        std::memcpy(&name_id, row.data.data() + 12, 4);
        std::memcpy(&turn, row.data.data() + 16, 4);
        std::memcpy(&hp, row.data.data() + 36, 4);
        CHECK(field_value(*l, "behaviorVariationId", row.data)->i == variation);
        CHECK(field_value(*l, "nameId", row.data)->i == name_id);
        CHECK(field_value(*l, "turnVellocity", row.data)->f == double(turn));
        CHECK(field_value(*l, "hp", row.data)->i == int64_t(hp));
        ++checked;
    }
    REQUIRE(checked == p->rows.size());

    // Every Elden Ring layout drape carries fits its table of this regulation.
    size_t fitted = 0;
    for (const LayoutDef& def : layouts()) {
        if (def.game != Game::elden_ring) continue;
        const game::Member* m = member_named(*members, def.param_name);
        REQUIRE_MESSAGE(m, def.param_name);
        auto t = read_param(m->bytes);
        REQUIRE(t);
        auto tl = find_layout(Game::elden_ring, t->type, regulation_version(version));
        REQUIRE(tl);
        CHECK_MESSAGE(check_layout(*t, *tl), def.param_name);
        ++fitted;
    }
    REQUIRE(fitted == 4);

    // Display masks: c5000 has rows, each id / 10000 == 5000.
    auto masks = display_masks(*p, *l, Game::elden_ring, 5000);
    REQUIRE(masks);
    MESSAGE("c5000: " << masks->size() << " NpcParam rows");
    REQUIRE(!masks->empty());
    for (const auto& m : *masks) CHECK(m.row_id / 10000 == 5000);
}

TEST_CASE("param corpus: every PARAM of the Sekiro parambnd reads and NpcParam decodes" * doctest::test_suite("corpus")) {
    require_corpus();
    const auto bytes = test::load(test::corpus("sekiro/param/gameparam.parambnd.dcx"));
    const size_t expected = binder_member_count(bytes);
    auto members = game::open_members(Bytes(bytes), "gameparam.parambnd.dcx", {});
    REQUIRE(members);
    const CorpusTables t = read_all(*members, Game::sekiro);
    MESSAGE("Sekiro parambnd: " << t.read << " PARAMs, " << t.short_form << " in the 32-bit form");
    REQUIRE(expected == 138);
    REQUIRE(t.read == expected);
    const game::Member* npc = member_named(*members, "NpcParam");
    REQUIRE(npc);
    auto p = read_param(npc->bytes);
    REQUIRE(p);
    auto l = find_layout(Game::sekiro, p->type);
    REQUIRE(l);
    CHECK(p->row_size == l->size);
    REQUIRE(check_layout(*p, *l));
    size_t rows_with_masks = 0;
    for (uint32_t c = 0; c < 10000; ++c) {
        auto m = display_masks(*p, *l, Game::sekiro, c);
        REQUIRE(m);
        rows_with_masks += m->size();
    }
    // every row with an 8-digit id belongs to the character id / 10000
    size_t eight_digit = 0;
    for (const auto& r : p->rows) eight_digit += r.id >= 0 && r.id / 10000 < 10000 ? 1 : 0;
    CHECK(rows_with_masks == eight_digit);
    for (const char* name : {"EquipParamWeapon", "EquipParamProtector"}) {
        const game::Member* m = member_named(*members, name);
        REQUIRE(m);
        auto t = read_param(m->bytes);
        REQUIRE(t);
        auto tl = find_layout(Game::sekiro, t->type);
        REQUIRE(tl);
        CHECK_MESSAGE(check_layout(*t, *tl), name);
    }
}

TEST_CASE("param corpus: the encrypted regulation decrypts, its binder reads whole" * doctest::test_suite("corpus")) {
    require_corpus();
    const auto enc = test::load(test::corpus("er/game/regulation.bin"));
    RegulationKey key{};
    auto plain = decrypt_regulation(enc, &key);
    REQUIRE(plain);
    // The file decrypts with the Nightreign key and its members live under W:\CL\ (Nightreign's
    // tree): it is a Nightreign regulation, not an Elden Ring one.
    CHECK(key == RegulationKey::nightreign);
    std::string version;
    const size_t expected = binder_member_count(*plain, &version);
    auto members = game::open_members(Bytes(enc), "regulation.bin", {});
    REQUIRE(members);
    const CorpusTables t = read_all(*members, Game::nightreign);
    const size_t read = t.read;
    const std::set<std::string>& names = t.names;
    REQUIRE(read == expected);
    // Compared with the decrypted Elden Ring 1.12 regulation by table name.
    const auto er = test::load(test::corpus("er/regulation.112.decrypted.bin"));
    auto er_members = game::open_members(Bytes(er), "regulation.112.decrypted.bin", {});
    REQUIRE(er_members);
    std::set<std::string> er_names;
    for (const auto& m : *er_members) er_names.insert(param_name(m.name));
    size_t shared = 0;
    for (const auto& n : names) shared += er_names.count(n);
    MESSAGE("regulation.bin (version " << version << "): " << read << " PARAMs; " << shared << " table names shared with the "
                                        << er_names.size() << " of Elden Ring 1.12");
    REQUIRE(expected == 252);
    CHECK(shared < er_names.size());
    // Its NpcParam has another row size than Elden Ring's layout: refused with a message.
    const game::Member* npc = member_named(*members, "NpcParam");
    REQUIRE(npc);
    auto p = read_param(npc->bytes);
    REQUIRE(p);
    auto l = find_layout(Game::elden_ring, p->type, regulation_version(version));
    REQUIRE(l);
    CHECK_FALSE(check_layout(*p, *l));
}
