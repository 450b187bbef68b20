// Test support: a small hk_2014 packfile (64-bit little endian, docs/formats.md) written from
// nothing, for the fuzz seeds: hkRootLevelContainer > hkaAnimationContainer > one hkaSkeleton.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace drape::test {

// A skeleton of `bone_names.size()` bones, bone i the child of bone i - 1, each 10 cm above its
// parent, named as given.
std::vector<uint8_t> make_skeleton_packfile(const std::string& skeleton_name, const std::vector<std::string>& bone_names);

}  // namespace drape::test
