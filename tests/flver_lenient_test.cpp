// Mod-made FLVERs: node links past the last node are read as none, the
// hierarchy is rebuilt from the parent links and one warning per file gives the count; every
// other check stays (a parent cycle is still refused).
#include <doctest/doctest.h>

#include <cstring>
#include <set>

#include "flver_corpus.h"
#include "drape/io/file.h"
#include "flver_fixture.h"
#include "run.h"

using namespace drape;

namespace {

void put16(std::vector<uint8_t>& b, size_t off, int16_t v) { std::memcpy(b.data() + off, &v, 2); }

constexpr size_t k_node = 0x80, k_parent = 0x1C, k_first_child = 0x1E, k_next = 0x2C, k_previous = 0x2E;

// The children of node p by walking first_child / next_sibling (bounded).
std::vector<int> children_by_links(const flver::Model& m, int p) {
    std::vector<int> out;
    for (int c = m.nodes[size_t(p)].first_child; c >= 0 && out.size() <= m.nodes.size(); c = m.nodes[size_t(c)].next_sibling) out.push_back(c);
    return out;
}

std::vector<int> children_by_parent(const flver::Model& m, int p) {
    std::vector<int> out;
    for (size_t i = 0; i < m.nodes.size(); ++i)
        if (m.nodes[i].parent == p) out.push_back(int(i));
    return out;
}

}  // namespace

TEST_CASE("flver: node links out of range are read as none with one warning") {
    test::FlverFixture fx;
    fx.node_count = 4;  // 0 root; 1, 2, 3 its children (fixture links them as siblings)
    auto b = fx.build();
    {
        auto clean = flver::read_flver(b);
        REQUIRE_MESSAGE(clean, clean.error().to_string());
        CHECK(clean->warnings.empty());
    }
    // The shape a mod-made file has: "node link 82 outside -1..81". Three bad links in one file.
    put16(b, fx.at.node + 2 * k_node + k_next, 4);          // next sibling = node_count
    put16(b, fx.at.node + 3 * k_node + k_previous, 300);    // previous sibling far out
    put16(b, fx.at.node + 1 * k_node + k_first_child, 82);  // a first child that is not there
    auto m = flver::read_flver(b);
    REQUIRE_MESSAGE(m, m.error().to_string());
    REQUIRE(m->warnings.size() == 1);
    CHECK(m->warnings[0].find("3 node links outside -1..3") == 0);
    CHECK_MESSAGE(m->warnings[0].find("first: node 1 links 82") != std::string::npos, m->warnings[0]);
    // Hierarchy rebuilt from the parents: root 0 with children 1, 2, 3 in order.
    CHECK(m->nodes[0].parent == -1);
    CHECK(m->nodes[0].first_child == 1);
    CHECK(m->nodes[1].first_child == -1);
    CHECK(m->nodes[1].previous_sibling == -1);
    CHECK(m->nodes[1].next_sibling == 2);
    CHECK(m->nodes[2].previous_sibling == 1);
    CHECK(m->nodes[2].next_sibling == 3);
    CHECK(m->nodes[3].previous_sibling == 2);
    CHECK(m->nodes[3].next_sibling == -1);
    for (int p = 0; p < 4; ++p) CHECK(children_by_links(*m, p) == children_by_parent(*m, p));

    // A parent out of range makes the node a root.
    auto b2 = fx.build();
    put16(b2, fx.at.node + 3 * k_node + k_parent, 82);
    auto m2 = flver::read_flver(b2);
    REQUIRE_MESSAGE(m2, m2.error().to_string());
    CHECK(m2->nodes[3].parent == -1);
    REQUIRE(m2->warnings.size() == 1);
    CHECK(m2->warnings[0].find("1 node link outside") == 0);
    CHECK(children_by_links(*m2, 0) == std::vector<int>{1, 2});

    // Every other check stays: a parent cycle is still an error.
    auto b3 = fx.build();
    put16(b3, fx.at.node + 2 * k_node + k_next, 4);
    put16(b3, fx.at.node + 0 * k_node + k_parent, 1);
    auto m3 = flver::read_flver(b3);
    REQUIRE_FALSE(m3);
    CHECK(m3.error().field == "flver2.node.parent_index");
}

TEST_CASE("flver: corpus FLVERs carry no warning, and a corrupted link rebuilds the game's own hierarchy" * doctest::test_suite("corpus")) {
    size_t files = 0, rebuilt_same = 0;
    std::vector<test::CorpusFlver> flvers;
    for (const auto& row : test::manifest())  // FLVER2 files and every binder holding a FLVER
        if (row.contents.find("FLVER") != std::string::npos)
            for (auto& f : test::flvers_in(row.file)) flvers.push_back(std::move(f));
    for (const auto& f : flvers) {
        CAPTURE(f.label);
        auto m = flver::read_flver(f.bytes);
        REQUIRE_MESSAGE(m, m.error().to_string());
        CHECK(m->warnings.empty());
        ++files;
        if (m->nodes.size() < 2) continue;
        // Break the last node's next-sibling link the way the editors do (one past the end).
        auto bytes = f.bytes;
        // Node records follow the header (0x80), dummies (0x40 each) and materials (0x20 each).
        const size_t nodes_at = 0x80 + m->dummies.size() * 0x40 + m->materials.size() * 0x20;
        const size_t last = m->nodes.size() - 1;
        put16(bytes, nodes_at + last * k_node + k_next, int16_t(m->nodes.size()));
        auto broken = flver::read_flver(bytes);
        REQUIRE_MESSAGE(broken, broken.error().to_string());
        REQUIRE(broken->warnings.size() == 1);
        CHECK(broken->warnings[0].find("1 node link outside -1.." + std::to_string(last)) == 0);
        // The rebuilt tree has the same children per node as the file's own links.
        bool same = true;
        for (size_t p = 0; p < m->nodes.size(); ++p) {
            auto a = children_by_links(*m, int(p)), c = children_by_links(*broken, int(p));
            if (std::set<int>(a.begin(), a.end()) != std::set<int>(c.begin(), c.end())) same = false;
            CHECK(c == children_by_parent(*broken, int(p)));
        }
        rebuilt_same += same;
    }
    CHECK(files >= 9);
    MESSAGE(rebuilt_same << " of " << files << " corpus FLVERs: rebuilt children equal the stored links");
}

TEST_CASE("flver: drape model converts a FLVER with links out of range and warns once") {
    test::FlverFixture fx;
    fx.node_count = 3;
    auto b = fx.build();
    put16(b, fx.at.node + 2 * k_node + k_next, 3);
    put16(b, fx.at.node + 1 * k_node + k_previous, 7);
    const auto dir = test::scratch_dir("flver_lenient_cli");
    REQUIRE(write_file(dir / "mod.flver", b));
    const auto r = test::run(test::drape_exe() + " model " + (dir / "mod.flver").string() + " -o " + (dir / "mod.glb").string());
    CHECK_MESSAGE(r.exit_code == 0, r.out);
    size_t warnings = 0;
    for (size_t at = r.out.find("warning: "); at != std::string::npos; at = r.out.find("warning: ", at + 1)) ++warnings;
    CHECK_MESSAGE(warnings == 1, r.out);
    CHECK_MESSAGE(r.out.find("mod.flver: 2 node links outside -1..2") != std::string::npos, r.out);
    CHECK(std::filesystem::is_regular_file(dir / "mod.glb"));
}
