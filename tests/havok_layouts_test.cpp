// drape's hk_2014 layouts against the offsets the sources state (docs/formats.md#animation-layouts for DS3;
// HKX2's sequential reads with their explicit padding, MIT) and the BB bytes (reuse padding).
#include <doctest/doctest.h>

#include "drape/havok/hkx.h"

using namespace drape::havok;

namespace {

uint32_t offset_of(const TypeTable& t, const char* cls, const char* member) {
    const uint32_t i = t.find(cls);
    REQUIRE_MESSAGE(i, cls);
    for (const auto& m : t.at(i).all_members)
        if (m.name == member) return m.offset;
    FAIL(cls << "." << member << " missing");
    return 0;
}
uint32_t size_of(const TypeTable& t, const char* cls) { return t.at(t.find(cls)).r_size; }

}  // namespace

TEST_CASE("2014 layouts: DS3 (no padding reuse) equals the documented 2014 offsets") {
    const TypeTable& t = packfile_layouts_2014(false);
    CHECK(size_of(t, "hkaSkeleton") == 136);
    CHECK(offset_of(t, "hkaSkeleton", "name") == 16);
    CHECK(offset_of(t, "hkaSkeleton", "parentIndices") == 24);
    CHECK(offset_of(t, "hkaSkeleton", "bones") == 40);
    CHECK(offset_of(t, "hkaSkeleton", "referencePose") == 56);
    CHECK(offset_of(t, "hkaSkeleton", "referenceFloats") == 72);
    CHECK(offset_of(t, "hkaSkeleton", "floatSlots") == 88);
    CHECK(offset_of(t, "hkaSkeleton", "localFrames") == 104);
    CHECK(offset_of(t, "hkaSkeleton", "partitions") == 120);
    CHECK(size_of(t, "hkaBone") == 16);
    CHECK(size_of(t, "hkQsTransform") == 48);
    CHECK(size_of(t, "hkaAnimation") == 56);
    CHECK(offset_of(t, "hkaAnimation", "type") == 16);
    CHECK(offset_of(t, "hkaAnimation", "duration") == 20);
    CHECK(offset_of(t, "hkaAnimation", "numberOfTransformTracks") == 24);
    CHECK(offset_of(t, "hkaAnimation", "extractedMotion") == 32);
    CHECK(offset_of(t, "hkaAnimation", "annotationTracks") == 40);
    CHECK(size_of(t, "hkaSplineCompressedAnimation") == 176);
    CHECK(offset_of(t, "hkaSplineCompressedAnimation", "numFrames") == 56);
    CHECK(offset_of(t, "hkaSplineCompressedAnimation", "maskAndQuantizationSize") == 68);
    CHECK(offset_of(t, "hkaSplineCompressedAnimation", "blockDuration") == 72);
    CHECK(offset_of(t, "hkaSplineCompressedAnimation", "frameDuration") == 80);
    CHECK(offset_of(t, "hkaSplineCompressedAnimation", "blockOffsets") == 88);
    CHECK(offset_of(t, "hkaSplineCompressedAnimation", "floatOffsets") == 136);
    CHECK(offset_of(t, "hkaSplineCompressedAnimation", "data") == 152);
    CHECK(offset_of(t, "hkaSplineCompressedAnimation", "endian") == 168);
    CHECK(size_of(t, "hkaDefaultAnimatedReferenceFrame") == 96);
    CHECK(offset_of(t, "hkaDefaultAnimatedReferenceFrame", "up") == 32);
    CHECK(offset_of(t, "hkaDefaultAnimatedReferenceFrame", "forward") == 48);
    CHECK(offset_of(t, "hkaDefaultAnimatedReferenceFrame", "duration") == 64);
    CHECK(offset_of(t, "hkaDefaultAnimatedReferenceFrame", "referenceFrameSamples") == 72);
}

TEST_CASE("2014 layouts: DS3 hcl classes follow HKX2's reads (explicit padding included)") {
    const TypeTable& t = packfile_layouts_2014(false);
    // hclOperator: name, operatorID, then 4 B padding: subclasses start at 32
    CHECK(offset_of(t, "hclSimulateOperator", "simClothIndex") == 32);
    CHECK(offset_of(t, "hclSimulateOperator", "constraintExecution") == 48);  // 3 x u32 + ReadUInt32 padding
    CHECK(size_of(t, "hclSimulateOperator") == 72);                            // bool + 7 B padding
    CHECK(offset_of(t, "hclOutputConvertOperator", "conversionInfo") == 40);
    CHECK(size_of(t, "hclOutputConvertOperator") == 88);  // 42 B + ReadUInt32 + ReadUInt16
    CHECK(offset_of(t, "hclCollidable", "transform") == 32);  // name, then ReadUInt64 padding
    CHECK(offset_of(t, "hclCollidable", "pinchDetectionRadius") == 132);
    CHECK(offset_of(t, "hclCollidable", "shape") == 136);
    CHECK(offset_of(t, "hclTaperedCapsuleShape", "small") == 32);  // hclShape, then ReadUInt64 padding
    CHECK(offset_of(t, "hclConstraintSet", "name") == 16);
    CHECK(offset_of(t, "hclLocalRangeConstraintSet", "localConstraints") == 32);  // name + ReadUInt64
    CHECK(size_of(t, "hclLocalRangeConstraintSet") == 64);  // ... bool + ReadUInt16 + ReadByte
    CHECK(offset_of(t, "hclClothData", "targetPlatform") == 120);
    CHECK(size_of(t, "hclClothData") == 128);  // u32 + ReadUInt32
    CHECK(offset_of(t, "hclSimClothData", "name") == 48);
    CHECK(offset_of(t, "hclSimClothData", "totalMass") == 120);
    CHECK(offset_of(t, "hclSimClothData", "collidableTransformMap") == 128);  // f32 + ReadUInt32
    CHECK(size_of(t, "hclClothState::BufferAccess") == 16);  // u32, 5 B usage, ReadUInt16 + ReadByte, u32
    CHECK(size_of(t, "hclClothState::TransformSetAccess") == 32);
    CHECK(size_of(t, "hclRuntimeConversionInfo") == 42);
}

TEST_CASE("2014 layouts: BB reuses the tail padding of hkReferencedObject and hclOperator") {
    const TypeTable& t = packfile_layouts_2014(true);
    // read from bb/c2020_c.hkx and bb/a000_003000.hkx (hex dumps of the objects)
    CHECK(offset_of(t, "hkaAnimation", "type") == 12);
    CHECK(offset_of(t, "hkaDefaultAnimatedReferenceFrame", "up") == 16);
    CHECK(offset_of(t, "hclSimulateOperator", "simClothIndex") == 28);
    CHECK(offset_of(t, "hclSimulateOperator", "constraintExecution") == 40);
    CHECK(offset_of(t, "hclOutputConvertOperator", "shadowBufferIndex") == 32);
    CHECK(offset_of(t, "hclTaperedCapsuleShape", "small") == 16);
    CHECK(offset_of(t, "hclSimClothData", "name") == 48);
    CHECK(offset_of(t, "hclSimClothData", "maxCollisionPairs") == 300);
    CHECK(offset_of(t, "hclSimClothData", "doNormals") == 332);
    CHECK(offset_of(t, "hkaSkeleton", "name") == 16);
}
