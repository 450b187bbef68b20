// Test helper: a corpus cloth file exported to .drcloth bytes by drape's exporter (with the
// file's skeletons), as the runtime tests feed it to the runtime's loader. Fails the test when
// the file cannot be read, its cloth cannot be read or the export fails.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "drape/exporters/cloth_export.h"
#include "drape/havok/animation.h"
#include "drape/havok/cloth.h"
#include "havok_corpus.h"

namespace drape::test {

inline std::vector<uint8_t> exported_drcloth(const std::string& file, const std::string& member = "") {
    auto f = load_hkx(file, member);
    REQUIRE_MESSAGE(bool(f), file);
    auto cloth = hcl::read_cloth(*f);
    REQUIRE_MESSAGE(bool(cloth), file);
    cloth_export::Options o;
    o.sdk = f->sdk;
    if (auto anim = havok::read_animation_container(*f)) o.skeletons = anim->skeletons;
    auto bytes = cloth_export::export_cloth(*cloth, o, nullptr);
    REQUIRE_MESSAGE(bool(bytes), file);
    return std::move(*bytes);
}

}  // namespace drape::test
