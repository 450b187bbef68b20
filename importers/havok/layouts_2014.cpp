// drape: the hk_2014.1.0-r1 class layouts of the classes drape reads from packfiles (DS3, BB).
//
// Packfiles carry no reflection (their __types__ section is empty), so the layouts are kept
// here in drape's own notation: each class lists its members in memory order; offsets follow
// from natural alignment (the 64-bit in-memory image the packfile is). When the packfile header
// says reusePaddingOptimization (BB: header bytes 08 01 01 01), a derived class's first member
// starts at the end of its base's last member instead of at the base's padded size, as an
// Itanium-ABI compiler lays out non-POD bases: hkReferencedObject ends at 12, so hkaAnimation's
// `type` is at 12 in BB and 16 in DS3, and hclOperator's subclasses start at 28.
//
// Member order comes from the public, MIT-licensed HKX2 class list (DSMapStudio HKX2/Autogen) and
// the HKLib 2018 registry for the small structs that did not change; checked on bb/c2020_c.hkx.
// A leading '!' marks a member that is not serialised (vtable, reference count, padding); a
// trailing "a16" forces an alignment on a class or a member. The hknp/hkp ragdoll classes
// (docs/ragdoll.md) were checked byte by byte on ds3 c1400.HKX and bb/c2020.HKX: their
// constraint atoms carry padding the games' files keep (HKX2's sizes), and hknpShape's first
// member sits at 16 in both files, with or without reusePaddingOptimization.
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

#include "layouts_2014.h"

namespace drape::havok {

namespace {

const char* const k_layouts_2014 = R"(
hkBaseObject -
  !vtable u64
hkReferencedObject hkBaseObject
  !memSizeAndRefCount u32
hkRootLevelContainer::NamedVariant -
  name hkStringPtr
  className hkStringPtr
  variant ptr<hkReferencedObject>
hkRootLevelContainer -
  namedVariants arr<hkRootLevelContainer::NamedVariant>
hkxEnvironment::Variable -
  name hkStringPtr
  value hkStringPtr
hkxEnvironment hkReferencedObject
  variables arr<hkxEnvironment::Variable>
hkaBone -
  name hkStringPtr
  lockTranslation hkBool
hkaSkeleton::LocalFrame -
  localFrame ptr<hkReferencedObject>
  boneIndex i16
hkaSkeleton::Partition -
  name hkStringPtr
  startBoneIndex i16
  numBones i16
hkaSkeleton hkReferencedObject v5
  name hkStringPtr
  parentIndices arr<i16>
  bones arr<hkaBone>
  referencePose arr<hkQsTransform>
  referenceFloats arr<f32>
  floatSlots arr<hkStringPtr>
  localFrames arr<hkaSkeleton::LocalFrame>
  partitions arr<hkaSkeleton::Partition>
hkaAnimationContainer hkReferencedObject v1
  skeletons arr<ptr<hkaSkeleton>>
  animations arr<ptr<hkaAnimation>>
  bindings arr<ptr<hkaAnimationBinding>>
  attachments arr<ptr<hkReferencedObject>>
  skins arr<ptr<hkReferencedObject>>
hkaAnnotationTrack::Annotation -
  time f32
  text hkStringPtr
hkaAnnotationTrack -
  trackName hkStringPtr
  annotations arr<hkaAnnotationTrack::Annotation>
hkaAnimation hkReferencedObject v1
  type i32
  duration f32
  numberOfTransformTracks i32
  numberOfFloatTracks i32
  extractedMotion ptr<hkaAnimatedReferenceFrame>
  annotationTracks arr<hkaAnnotationTrack>
hkaSplineCompressedAnimation hkaAnimation
  numFrames i32
  numBlocks i32
  maxFramesPerBlock i32
  maskAndQuantizationSize i32
  blockDuration f32
  blockInverseDuration f32
  frameDuration f32
  blockOffsets arr<u32>
  floatBlockOffsets arr<u32>
  transformOffsets arr<u32>
  floatOffsets arr<u32>
  data arr<u8>
  endian i32
hkaInterleavedUncompressedAnimation hkaAnimation
  transforms arr<hkQsTransform>
  floats arr<f32>
hkaAnimatedReferenceFrame hkReferencedObject
  frameType i8
hkaDefaultAnimatedReferenceFrame hkaAnimatedReferenceFrame
  up hkVector4
  forward hkVector4
  duration f32
  referenceFrameSamples arr<hkVector4>
hkaAnimationBinding hkReferencedObject v3
  originalSkeletonName hkStringPtr
  animation ptr<hkaAnimation>
  transformTrackToBoneIndices arr<i16>
  floatTrackToFloatSlotIndices arr<i16>
  partitionIndices arr<i16>
  blendHint i8
hclClothContainer hkReferencedObject v1
  collidables arr<ptr<hclCollidable>>
  clothDatas arr<ptr<hclClothData>>
hclClothData hkReferencedObject
  name hkStringPtr
  simClothDatas arr<ptr<hclSimClothData>>
  bufferDefinitions arr<ptr<hclBufferDefinition>>
  transformSetDefinitions arr<ptr<hclTransformSetDefinition>>
  operators arr<ptr<hclOperator>>
  clothStateDatas arr<ptr<hclClothState>>
  actions arr<ptr<hkReferencedObject>>
  targetPlatform u32
hclSimClothData::OverridableSimulationInfo -
  gravity hkVector4
  globalDampingPerSecond f32
  collisionTolerance f32
  subSteps u32
  pinchDetectionEnabled hkBool
  landscapeCollisionEnabled hkBool
  transferMotionEnabled hkBool
hclSimClothData::ParticleData -
  mass f32
  invMass f32
  radius f32
  friction f32
hclSimClothData::CollidableTransformMap -
  transformSetIndex i32
  transformIndices arr<u32>
  offsets arr<hkMatrix4>
hclSimClothData::LandscapeCollisionData -
  landscapeRadius f32
  enableStuckParticleDetection hkBool
  stuckParticlesStretchFactorSq f32
  pinchDetectionEnabled hkBool
  pinchDetectionPriority i8
  pinchDetectionRadius f32
hclSimClothData::TransferMotionData -
  transformSetIndex u32
  transformIndex u32
  transferTranslationMotion hkBool
  minTranslationSpeed f32
  maxTranslationSpeed f32
  minTranslationBlend f32
  maxTranslationBlend f32
  transferRotationMotion hkBool
  minRotationSpeed f32
  maxRotationSpeed f32
  minRotationBlend f32
  maxRotationBlend f32
hclSimClothData::CollidablePinchingData -
  pinchDetectionEnabled hkBool
  pinchDetectionPriority i8
  pinchDetectionRadius f32
hclSimClothData hkReferencedObject
  simulationInfo hclSimClothData::OverridableSimulationInfo
  name hkStringPtr
  particleDatas arr<hclSimClothData::ParticleData>
  fixedParticles arr<u16>
  triangleIndices arr<u16>
  triangleFlips arr<u8>
  totalMass f32
  collidableTransformMap hclSimClothData::CollidableTransformMap
  perInstanceCollidables arr<ptr<hclCollidable>>
  staticConstraintSets arr<ptr<hclConstraintSet>>
  antiPinchConstraintSets arr<ptr<hclConstraintSet>>
  simClothPoses arr<ptr<hclSimClothPose>>
  actions arr<ptr<hkReferencedObject>>
  staticCollisionMasks arr<u32>
  perParticlePinchDetectionEnabledFlags arr<hkBool>
  collidablePinchingDatas arr<hclSimClothData::CollidablePinchingData>
  minPinchedParticleIndex u16
  maxPinchedParticleIndex u16
  maxCollisionPairs u32
  maxParticleRadius f32
  landscapeCollisionData hclSimClothData::LandscapeCollisionData
  numLandscapeCollidableParticles u32
  doNormals hkBool
  transferMotionData hclSimClothData::TransferMotionData
hclSimClothPose hkReferencedObject
  name hkStringPtr
  positions arr<hkVector4>
hclShape hkReferencedObject
  !type i32
hclSphereShape hclShape
  sphere hkVector4
hclPlaneShape hclShape
  planeEquation hkVector4
hclCapsuleShape hclShape
  start hkVector4
  end hkVector4
  dir hkVector4
  radius f32
  capLenSqrdInv f32
hclTaperedCapsuleShape hclShape
  small hkVector4
  big hkVector4
  coneApex hkVector4
  coneAxis hkVector4
  lVec hkVector4
  dVec hkVector4
  tanThetaVecNeg hkVector4
  smallRadius f32
  bigRadius f32
  l f32
  d f32
  cosTheta f32
  sinTheta f32
  tanTheta f32
  tanThetaSqr f32
hclCollidable hkReferencedObject
  name hkStringPtr
  transform hkTransform
  linearVelocity hkVector4
  angularVelocity hkVector4
  pinchDetectionEnabled hkBool
  pinchDetectionPriority i8
  pinchDetectionRadius f32
  shape ptr<hclShape>
hclConstraintSet hkReferencedObject
  name hkStringPtr
  constraintId u32
  !type u32
hclStandardLinkConstraintSet::Link -
  particleA u16
  particleB u16
  restLength f32
  stiffness f32
hclStandardLinkConstraintSet hclConstraintSet
  links arr<hclStandardLinkConstraintSet::Link>
hclStretchLinkConstraintSet::Link -
  particleA u16
  particleB u16
  restLength f32
  stiffness f32
hclStretchLinkConstraintSet hclConstraintSet
  links arr<hclStretchLinkConstraintSet::Link>
hclBendLinkConstraintSet::Link -
  particleA u16
  particleB u16
  bendMinLength f32
  stretchMaxLength f32
  bendStiffness f32
  stretchStiffness f32
hclBendLinkConstraintSet hclConstraintSet
  links arr<hclBendLinkConstraintSet::Link>
hclBendStiffnessConstraintSet::Link -
  weightA f32
  weightB f32
  weightC f32
  weightD f32
  bendStiffness f32
  restCurvature f32
  particleA u16
  particleB u16
  particleC u16
  particleD u16
hclBendStiffnessConstraintSet hclConstraintSet
  links arr<hclBendStiffnessConstraintSet::Link>
  useRestPoseConfig hkBool
hclCompressibleLinkConstraintSet::Link -
  particleA u16
  particleB u16
  restLength f32
  compressionLength f32
  stiffness f32
hclCompressibleLinkConstraintSet hclConstraintSet
  links arr<hclCompressibleLinkConstraintSet::Link>
hclLocalRangeConstraintSet::LocalConstraint -
  particleIndex u16
  referenceVertex u16
  maximumDistance f32
  maxNormalDistance f32
  minNormalDistance f32
hclLocalRangeConstraintSet hclConstraintSet
  localConstraints arr<hclLocalRangeConstraintSet::LocalConstraint>
  referenceMeshBufferIdx u32
  stiffness f32
  shapeType u32
  applyNormalComponent hkBool
hclTransitionConstraintSet::PerParticle -
  particleIndex u16
  referenceVertex u16
  toAnimDelay f32
  toSimDelay f32
  toSimMaxDistance f32
hclTransitionConstraintSet hclConstraintSet
  perParticleData arr<hclTransitionConstraintSet::PerParticle>
  toAnimPeriod f32
  toAnimPlusDelayPeriod f32
  toSimPeriod f32
  toSimPlusDelayPeriod f32
  referenceMeshBufferIdx u32
hclVolumeConstraintMx::FrameBatchData -
  frameVector hkVector4[16]
  particleIndex u16[16]
  weight f32[16]
hclVolumeConstraintMx::FrameSingleData -
  frameVector hkVector4
  particleIndex u16
  weight f32
hclVolumeConstraintMx::ApplyBatchData -
  frameVector hkVector4[16]
  particleIndex u16[16]
  stiffness f32[16]
hclVolumeConstraintMx::ApplySingleData -
  frameVector hkVector4
  particleIndex u16
  stiffness f32
hclVolumeConstraintMx hclConstraintSet
  frameBatchDatas arr<hclVolumeConstraintMx::FrameBatchData>
  frameSingleDatas arr<hclVolumeConstraintMx::FrameSingleData>
  applyBatchDatas arr<hclVolumeConstraintMx::ApplyBatchData>
  applySingleDatas arr<hclVolumeConstraintMx::ApplySingleData>
hclBufferLayout::BufferElement -
  vectorConversion u8
  vectorSize u8
  slotId u8
  slotStart u8
hclBufferLayout::Slot -
  flags u8
  stride u8
hclBufferLayout -
  elementsLayout hclBufferLayout::BufferElement[4]
  slots hclBufferLayout::Slot[4]
  numSlots u8
  triangleFormat u8
hclBufferDefinition hkReferencedObject
  name hkStringPtr
  type i32
  subType i32
  numVertices u32
  numTriangles u32
  bufferLayout hclBufferLayout
hclScratchBufferDefinition hclBufferDefinition
  triangleIndices arr<u16>
  storeNormals hkBool
  storeTangentsAndBiTangents hkBool
hclShadowBufferDefinition hclBufferDefinition
  triangleIndices arr<u16>
  shadowPositions hkBool
  shadowNormals hkBool
  shadowTangents hkBool
  shadowBiTangents hkBool
hclTransformSetDefinition hkReferencedObject
  name hkStringPtr
  type i32
  numTransforms u32
hclBufferUsage -
  perComponentFlags u8[4]
  trianglesRead hkBool
hclClothState::BufferAccess -
  bufferIndex u32
  bufferUsage hclBufferUsage
  shadowBufferIndex u32
hkBitField -
  words arr<u32>
  numBits i32
hclTransformSetUsage::TransformTracker -
  read hkBitField
  readBeforeWrite hkBitField
  written hkBitField
hclTransformSetUsage -
  perComponentFlags u8[2]
  perComponentTransformTrackers arr<hclTransformSetUsage::TransformTracker>
hclClothState::TransformSetAccess -
  transformSetIndex u32
  transformSetUsage hclTransformSetUsage
hclClothState hkReferencedObject
  name hkStringPtr
  operators arr<u32>
  usedBuffers arr<hclClothState::BufferAccess>
  usedTransformSets arr<hclClothState::TransformSetAccess>
  usedSimCloths arr<u32>
hclOperator hkReferencedObject
  name hkStringPtr
  operatorID u32
hclSimulateOperator hclOperator
  simClothIndex u32
  subSteps u32
  numberOfSolveIterations i32
  constraintExecution arr<i32>
  adaptConstraintStiffness hkBool
hclMoveParticlesOperator::VertexParticlePair -
  vertexIndex u16
  particleIndex u16
hclMoveParticlesOperator hclOperator
  vertexParticlePairs arr<hclMoveParticlesOperator::VertexParticlePair>
  simClothIndex u32
  refBufferIdx u32
hclGatherAllVerticesOperator hclOperator
  vertexInputFromVertexOutput arr<i16>
  inputBufferIdx u32
  outputBufferIdx u32
  gatherNormals hkBool
  partialGather hkBool
hclGatherSomeVerticesOperator::VertexPair -
  indexInput u16
  indexOutput u16
hclGatherSomeVerticesOperator hclOperator
  vertexPairs arr<hclGatherSomeVerticesOperator::VertexPair>
  inputBufferIdx u32
  outputBufferIdx u32
  gatherNormals hkBool
hclCopyVerticesOperator hclOperator
  inputBufferIdx u32
  outputBufferIdx u32
  numberOfVertices u32
  startVertexIn u32
  startVertexOut u32
  copyNormals hkBool
hclRuntimeConversionInfo::SlotConversion -
  elements u8[4]
  numElements u8
  index u8
  partialWrite hkBool
hclRuntimeConversionInfo::ElementConversion -
  index u8
  offset u8
  conversion u8
hclRuntimeConversionInfo -
  slotConversions hclRuntimeConversionInfo::SlotConversion[4]
  elementConversions hclRuntimeConversionInfo::ElementConversion[4]
  numSlotsConverted u8
  numElementsConverted u8
hclInputConvertOperator hclOperator
  userBufferIndex u32
  shadowBufferIndex u32
  conversionInfo hclRuntimeConversionInfo
hclOutputConvertOperator hclOperator
  userBufferIndex u32
  shadowBufferIndex u32
  conversionInfo hclRuntimeConversionInfo
hclObjectSpaceDeformer::FourBlendEntryBlock -
  vertexIndices u16[16]
  boneIndices u16[64]
  boneWeights u8[64]
hclObjectSpaceDeformer::ThreeBlendEntryBlock -
  vertexIndices u16[16]
  boneIndices u16[48]
  boneWeights u8[48]
hclObjectSpaceDeformer::TwoBlendEntryBlock -
  vertexIndices u16[16]
  boneIndices u16[32]
  boneWeights u8[32]
hclObjectSpaceDeformer::OneBlendEntryBlock -
  vertexIndices u16[16]
  boneIndices u16[16]
hclObjectSpaceDeformer -
  fourBlendEntries arr<hclObjectSpaceDeformer::FourBlendEntryBlock>
  threeBlendEntries arr<hclObjectSpaceDeformer::ThreeBlendEntryBlock>
  twoBlendEntries arr<hclObjectSpaceDeformer::TwoBlendEntryBlock>
  oneBlendEntries arr<hclObjectSpaceDeformer::OneBlendEntryBlock>
  controlBytes arr<u8>
  startVertexIndex u16
  endVertexIndex u16
  batchSizeSpu u16
  partialWrite hkBool
hclObjectSpaceDeformer::LocalBlockP -
  localPosition hkPackedVector3[16]
hclObjectSpaceDeformer::LocalBlockPN -
  localPosition hkPackedVector3[16]
  localNormal hkPackedVector3[16]
hclObjectSpaceDeformer::LocalBlockPNT -
  localPosition hkPackedVector3[16]
  localNormal hkPackedVector3[16]
  localTangent hkPackedVector3[16]
hclObjectSpaceDeformer::LocalBlockUnpackedP -
  localPosition hkVector4[16]
hclObjectSpaceDeformer::LocalBlockUnpackedPN -
  localPosition hkVector4[16]
  localNormal hkVector4[16]
hclObjectSpaceDeformer::LocalBlockUnpackedPNT -
  localPosition hkVector4[16]
  localNormal hkVector4[16]
  localTangent hkVector4[16]
hclObjectSpaceSkinOperator hclOperator
  boneFromSkinMeshTransforms arr<hkMatrix4>
  transformSubset arr<u16>
  outputBufferIndex u32
  transformSetIndex u32
  objectSpaceDeformer hclObjectSpaceDeformer
hclObjectSpaceSkinPOperator hclObjectSpaceSkinOperator
  localPs arr<hclObjectSpaceDeformer::LocalBlockP>
  localUnpackedPs arr<hclObjectSpaceDeformer::LocalBlockUnpackedP>
hclObjectSpaceSkinPNOperator hclObjectSpaceSkinOperator
  localPNs arr<hclObjectSpaceDeformer::LocalBlockPN>
  localUnpackedPNs arr<hclObjectSpaceDeformer::LocalBlockUnpackedPN>
hclObjectSpaceSkinPNTOperator hclObjectSpaceSkinOperator
  localPNTs arr<hclObjectSpaceDeformer::LocalBlockPNT>
  localUnpackedPNTs arr<hclObjectSpaceDeformer::LocalBlockUnpackedPNT>
hclObjectSpaceMeshMeshDeformOperator hclOperator
  inputBufferIdx u32
  outputBufferIdx u32
  scaleNormalBehaviour u32
  inputTrianglesSubset arr<u16>
  triangleFromMeshTransforms arr<hkMatrix4>
  objectSpaceDeformer hclObjectSpaceDeformer
hclObjectSpaceMeshMeshDeformPOperator hclObjectSpaceMeshMeshDeformOperator
  localPs arr<hclObjectSpaceDeformer::LocalBlockP>
  localUnpackedPs arr<hclObjectSpaceDeformer::LocalBlockUnpackedP>
hclObjectSpaceMeshMeshDeformPNOperator hclObjectSpaceMeshMeshDeformOperator
  localPNs arr<hclObjectSpaceDeformer::LocalBlockPN>
  localUnpackedPNs arr<hclObjectSpaceDeformer::LocalBlockUnpackedPN>
hclObjectSpaceMeshMeshDeformPNTOperator hclObjectSpaceMeshMeshDeformOperator
  localPNTs arr<hclObjectSpaceDeformer::LocalBlockPNT>
  localUnpackedPNTs arr<hclObjectSpaceDeformer::LocalBlockUnpackedPNT>
hclUpdateSomeVertexFramesOperator::Triangle -
  indices u16[3]
hclUpdateSomeVertexFramesOperator hclOperator
  involvedTriangles arr<hclUpdateSomeVertexFramesOperator::Triangle>
  involvedVertices arr<u16>
  selectionVertexToInvolvedVertex arr<u16>
  involvedVertexToNormalID arr<u16>
  triangleFlips arr<u8>
  referenceVertices arr<u16>
  tangentEdgeCosAngle arr<f32>
  tangentEdgeSinAngle arr<f32>
  biTangentFlip arr<f32>
  bufferIdx u32
  numUniqueNormalIDs u32
  updateNormals hkBool
  updateTangents hkBool
  updateBiTangents hkBool
hclMeshMeshDeformOperator::TriangleVertexPair -
  localPosition hkVector4
  localNormal hkVector4
  triangleIndex u16
  weight f32
hclMeshMeshDeformOperator hclOperator
  inputTrianglesSubset arr<u16>
  triangleVertexPairs arr<hclMeshMeshDeformOperator::TriangleVertexPair>
  triangleVertexStartForVertex arr<u16>
  inputBufferIdx u32
  outputBufferIdx u32
  startVertex u16
  endVertex u16
  scaleNormalBehaviour u32
  deformNormals hkBool
  partialDeform hkBool
hkaSkeletonMapperData::PartitionMappingRange -
  startMappingIndex i32
  numMappings i32
hkaSkeletonMapperData::SimpleMapping -
  boneA i16
  boneB i16
  aFromBTransform hkQsTransform
hkaSkeletonMapperData::ChainMapping -
  startBoneA i16
  endBoneA i16
  startBoneB i16
  endBoneB i16
  startAFromBTransform hkQsTransform
  endAFromBTransform hkQsTransform
hkaSkeletonMapperData -
  skeletonA ptr<hkaSkeleton>
  skeletonB ptr<hkaSkeleton>
  partitionMap arr<i16>
  simpleMappingPartitionRanges arr<hkaSkeletonMapperData::PartitionMappingRange>
  chainMappingPartitionRanges arr<hkaSkeletonMapperData::PartitionMappingRange>
  simpleMappings arr<hkaSkeletonMapperData::SimpleMapping>
  chainMappings arr<hkaSkeletonMapperData::ChainMapping>
  unmappedBones arr<i16>
  extractedMotionMapping hkQsTransform
  keepUnmappedLocal hkBool
  mappingType i32
hkaSkeletonMapper hkReferencedObject
  mapping hkaSkeletonMapperData
hknpMaterial -
  name hkStringPtr
  isExclusive u32
  flags i32
  triggerType u8
  triggerManifoldTolerance u8
  dynamicFriction hkHalf
  staticFriction hkHalf
  restitution hkHalf
  frictionCombinePolicy u8
  restitutionCombinePolicy u8
  weldingTolerance hkHalf
  maxContactImpulse f32
  fractionOfClippedImpulseToApply f32
  massChangerCategory u8
  massChangerHeavyObjectFactor hkHalf
  softContactForceFactor hkHalf
  softContactDampFactor hkHalf
  softContactSeparationVelocity u8
  surfaceVelocity ptr<hkReferencedObject>
  disablingCollisionsBetweenCvxCvxDynamicObjectsDistance hkHalf
  userData u64
  isShared hkBool
hknpMotionProperties -
  isExclusive u32
  flags u32
  gravityFactor f32
  timeFactor f32
  maxLinearSpeed f32
  maxAngularSpeed f32
  linearDamping f32
  angularDamping f32
  solverStabilizationSpeedThreshold f32
  solverStabilizationSpeedReduction f32
  maxDistSqrd f32
  maxRotSqrd f32
  invBlockSize f32
  pathingUpperThreshold i16
  pathingLowerThreshold i16
  numDeactivationFrequencyPasses u8
  deactivationVelocityScaleSquare u8
  minimumPathingVelocityScaleSquare u8
  spikingVelocityScaleThresholdSquared u8
  minimumSpikingVelocityScaleSquared u8
  !padding u8[3]
hknpMotionCinfo -
  motionPropertiesId u16
  enableDeactivation hkBool
  inverseMass f32
  massFactor f32
  maxLinearAccelerationDistancePerStep f32
  maxRotationToPreventTunneling f32
  inverseInertiaLocal hkVector4
  centerOfMassWorld hkVector4
  orientation hkQuaternion
  linearVelocity hkVector4
  angularVelocity hkVector4
hknpBodyCinfo -
  shape ptr<hknpShape>
  reservedBodyId u32
  motionId u32
  qualityId u8
  materialId u16
  collisionFilterInfo u32
  flags i32
  collisionLookAheadDistance f32
  name hkStringPtr
  userData u64
  position hkVector4
  orientation hkQuaternion
  spuFlags u8
  localFrame ptr<hkReferencedObject>
hknpConstraintCinfo -
  constraintData ptr<hkpConstraintData>
  bodyA u32
  bodyB u32
  flags u32
hknpPhysicsSystemData hkReferencedObject
  materials arr<hknpMaterial>
  motionProperties arr<hknpMotionProperties>
  motionCinfos arr<hknpMotionCinfo>
  bodyCinfos arr<hknpBodyCinfo>
  constraintCinfos arr<hknpConstraintCinfo>
  referencedObjects arr<ptr<hkReferencedObject>>
  name hkStringPtr
hknpRagdollData hknpPhysicsSystemData
  skeleton ptr<hkaSkeleton>
  boneToBodyMap arr<i32>
hknpPhysicsSceneData hkReferencedObject
  systemDatas arr<ptr<hknpPhysicsSystemData>>
  worldCinfo ptr<hkReferencedObject>
hkRefCountedProperties::Entry -
  object ptr<hkReferencedObject>
  key u16
  flags u16
hkRefCountedProperties -
  entries arr<hkRefCountedProperties::Entry>
hkCompressedMassProperties -
  centerOfMass hkPackedVector3
  inertia hkPackedVector3
  majorAxisSpace i16[4]
  mass f32
  volume f32
hknpShapeMassProperties hkReferencedObject
  compressedMassProperties hkCompressedMassProperties
hkRelArray16 -
  count u16
  offset u16
hknpShape hkReferencedObject a16
  flags u16 a16
  numShapeKeyBits u8
  dispatchType u8
  convexRadius f32
  userData u64
  properties ptr<hkRefCountedProperties>
hknpConvexShape hknpShape
  vertices hkRelArray16
hknpConvexPolytopeShape hknpConvexShape
  planes hkRelArray16
  faces hkRelArray16
  indices hkRelArray16
hknpCapsuleShape hknpConvexPolytopeShape
  a hkVector4
  b hkVector4
hkpConstraintMotor hkReferencedObject
  type i8
hkpPositionConstraintMotor hkpConstraintMotor
  minForce f32
  maxForce f32
  tau f32
  damping f32
  proportionalRecoveryVelocity f32
  constantRecoveryVelocity f32
hkpConstraintData hkReferencedObject
  userData u64
hkpSetLocalTransformsConstraintAtom -
  type u16
  transformA hkTransform
  transformB hkTransform
hkpSetupStabilizationAtom -
  type u16
  enabled hkBool
  maxLinImpulse f32
  maxAngImpulse f32
  maxAngle f32
hkpRagdollMotorConstraintAtom -
  type u16
  isEnabled hkBool
  initializedOffset i16
  previousTargetAnglesOffset i16
  target_bRca hkMatrix3
  motors ptr<hkpConstraintMotor>[3]
hkpAngFrictionConstraintAtom -
  type u16
  isEnabled u8
  firstFrictionAxis u8
  numFrictionAxes u8
  maxFrictionTorque f32
  !padding u32
hkpTwistLimitConstraintAtom -
  type u16
  isEnabled u8
  twistAxis u8
  refAxis u8
  minAngle f32
  maxAngle f32
  angularLimitsTauFactor f32
  !padding u32
  !padding2 u64
hkpConeLimitConstraintAtom -
  type u16
  isEnabled u8
  twistAxisInA u8
  refAxisInB u8
  angleMeasurementMode u8
  memOffsetToAngleOffset u8
  minAngle f32
  maxAngle f32
  angularLimitsTauFactor f32
  !padding u32
  !padding2 u64
hkpBallSocketConstraintAtom -
  type u16
  solvingMethod u8
  bodiesToNotify u8
  velocityStabilizationFactor u8
  enableLinearImpulseLimit hkBool
  breachImpulse f32
  inertiaStabilizationFactor f32
hkpAngMotorConstraintAtom -
  type u16
  isEnabled hkBool
  motorAxis u8
  initializedOffset i16
  previousTargetAngleOffset i16
  correspondingAngLimitSolverResultOffset i16
  targetAngle f32
  motor ptr<hkpConstraintMotor>
  !padding u64
  !padding2 u64
hkpAngLimitConstraintAtom -
  type u16
  isEnabled u8
  limitAxis u8
  minAngle f32
  maxAngle f32
  angularLimitsTauFactor f32
hkp2dAngConstraintAtom -
  type u16
  freeRotationAxis u8
  !padding u8[13]
hkpRagdollConstraintData::Atoms -
  transforms hkpSetLocalTransformsConstraintAtom
  setupStabilization hkpSetupStabilizationAtom
  ragdollMotors hkpRagdollMotorConstraintAtom
  angFriction hkpAngFrictionConstraintAtom
  twistLimit hkpTwistLimitConstraintAtom
  coneLimit hkpConeLimitConstraintAtom
  planesLimit hkpConeLimitConstraintAtom
  ballSocket hkpBallSocketConstraintAtom
hkpRagdollConstraintData hkpConstraintData
  atoms hkpRagdollConstraintData::Atoms
hkpLimitedHingeConstraintData::Atoms -
  transforms hkpSetLocalTransformsConstraintAtom
  setupStabilization hkpSetupStabilizationAtom
  angMotor hkpAngMotorConstraintAtom
  angFriction hkpAngFrictionConstraintAtom
  angLimit hkpAngLimitConstraintAtom
  2dAng hkp2dAngConstraintAtom
  ballSocket hkpBallSocketConstraintAtom
hkpLimitedHingeConstraintData hkpConstraintData
  atoms hkpLimitedHingeConstraintData::Atoms
hkpFixedConstraintData::Atoms -
  transforms hkpSetLocalTransformsConstraintAtom
hkpFixedConstraintData hkpConstraintData
  atoms hkpFixedConstraintData::Atoms
)";

struct Builder {
    TypeTable t;
    std::map<std::string, uint32_t, std::less<>> by_name;
    bool reuse = false;
    std::vector<uint32_t> dsize;  // unpadded size (end of the last member) per type

    uint32_t add(Type ty, uint32_t unpadded) {
        const uint32_t i = uint32_t(t.types.size());
        t.types.push_back(std::move(ty));
        dsize.push_back(unpadded);
        return i;
    }

    uint32_t scalar(const std::string& name, Kind k, uint32_t size, uint32_t fmt_extra) {
        Type ty;
        ty.name = name;
        ty.opt = k_opt_format | k_opt_size_align;
        ty.format = uint32_t(k) | fmt_extra;
        ty.size = ty.align = size;
        ty.has_body = true;
        const uint32_t i = add(std::move(ty), size);
        by_name[name] = i;
        return i;
    }

    uint32_t fixed_array(uint32_t elem, uint32_t n, const std::string& display) {
        const std::string key = display;
        if (auto it = by_name.find(key); it != by_name.end()) return it->second;
        Type ty;
        ty.name = "T[N]";
        ty.params = {{"T", true, elem}, {"N", false, n}};
        ty.opt = k_opt_format | k_opt_subtype | k_opt_size_align;
        ty.format = uint32_t(Kind::Array) | 0x20 | (n << 8);
        ty.subtype = elem;
        ty.size = t.types[elem].size * n;
        ty.align = t.types[elem].align;
        ty.has_body = true;
        const uint32_t i = add(std::move(ty), 0);
        dsize[i] = t.types[i].size;
        by_name[key] = i;
        return i;
    }

    uint32_t lookup(const std::string& name) {
        auto it = by_name.find(name);
        return it == by_name.end() ? 0 : it->second;
    }

    // A record placeholder, filled when its definition line is read (pointers may name a class
    // defined later).
    uint32_t record(const std::string& name) {
        if (uint32_t i = lookup(name)) return i;
        Type ty;
        ty.name = name;
        const uint32_t i = add(std::move(ty), 0);
        by_name[name] = i;
        return i;
    }

    uint32_t type_expr(const std::string& e) {
        if (uint32_t i = lookup(e)) return i;
        if (e.size() > 5 && e.compare(0, 4, "ptr<") == 0 && e.back() == '>') {
            const uint32_t target = type_expr(e.substr(4, e.size() - 5));
            Type ty;
            ty.name = "T*";
            ty.params = {{"T", true, target}};
            ty.opt = k_opt_format | k_opt_subtype | k_opt_size_align;
            ty.format = uint32_t(Kind::Pointer);
            ty.subtype = target;
            ty.size = ty.align = 8;
            ty.has_body = true;
            const uint32_t i = add(std::move(ty), 8);
            by_name[e] = i;
            return i;
        }
        if (e.size() > 5 && e.compare(0, 4, "arr<") == 0 && e.back() == '>') {
            const uint32_t elem = type_expr(e.substr(4, e.size() - 5));
            Type ty;
            ty.name = "hkArray";
            ty.params = {{"T", true, elem}};
            ty.opt = k_opt_format | k_opt_subtype | k_opt_size_align;
            ty.format = uint32_t(Kind::Array);
            ty.subtype = elem;
            ty.size = 16;
            ty.align = 8;
            ty.has_body = true;
            const uint32_t i = add(std::move(ty), 16);
            by_name[e] = i;
            return i;
        }
        if (!e.empty() && e.back() == ']') {
            const size_t lb = e.rfind('[');
            const uint32_t elem = type_expr(e.substr(0, lb));
            const uint32_t n = uint32_t(std::stoul(e.substr(lb + 1, e.size() - lb - 2)));
            return fixed_array(elem, n, e);
        }
        return record(e);
    }

    void primitives() {
        t.types.clear();
        dsize.clear();
        add(Type{}, 0);  // null
        scalar("hkBool", Kind::Bool, 1, 8u << 10);
        scalar("u8", Kind::Int, 1, 8u << 10);
        scalar("i8", Kind::Int, 1, (8u << 10) | 0x200);
        scalar("u16", Kind::Int, 2, 16u << 10);
        scalar("i16", Kind::Int, 2, (16u << 10) | 0x200);
        scalar("u32", Kind::Int, 4, 32u << 10);
        scalar("i32", Kind::Int, 4, (32u << 10) | 0x200);
        scalar("u64", Kind::Int, 8, 64u << 10);
        scalar("i64", Kind::Int, 8, (64u << 10) | 0x200);
        const uint32_t f = scalar("f32", Kind::Float, 4, 0x174600);
        scalar("hkHalf", Kind::Float, 2, 0x74600);  // the top 16 bits of an f32 (format >> 8 == 0x746)
        {
            Type s;
            s.name = "hkStringPtr";
            s.opt = k_opt_format | k_opt_size_align;
            s.format = 0x83;
            s.size = s.align = 8;
            s.has_body = true;
            by_name["hkStringPtr"] = add(std::move(s), 8);
        }
        auto vec = [&](const char* name, uint32_t n) {
            Type v;
            v.name = name;
            v.opt = k_opt_format | k_opt_subtype | k_opt_size_align;
            v.format = uint32_t(Kind::Array) | 0x20 | (n << 8);
            v.subtype = f;
            v.size = 4 * n;
            v.align = 16;
            v.has_body = true;
            by_name[name] = add(std::move(v), 4 * n);
        };
        vec("hkVector4", 4);
        vec("hkQuaternion", 4);
        vec("hkMatrix3", 12);
        vec("hkMatrix4", 16);
        vec("hkTransform", 16);
        {
            const uint32_t i16 = lookup("i16");
            Type p;
            p.name = "hkPackedVector3";
            p.opt = k_opt_format | k_opt_size_align | k_opt_members;
            p.format = uint32_t(Kind::Record);
            p.size = 8;
            p.align = 8;
            p.has_body = true;
            const uint32_t arr4 = fixed_array(i16, 4, "i16[4]");
            p.members.push_back({"values", 32, 0, arr4});
            by_name["hkPackedVector3"] = add(std::move(p), 8);
        }
        {
            Type q;
            q.name = "hkQsTransform";
            q.opt = k_opt_format | k_opt_size_align | k_opt_members;
            q.format = uint32_t(Kind::Record);
            q.size = 48;
            q.align = 16;
            q.has_body = true;
            q.members = {{"translation", 32, 0, lookup("hkVector4")},
                         {"rotation", 32, 16, lookup("hkQuaternion")},
                         {"scale", 32, 32, lookup("hkVector4")}};
            by_name["hkQsTransform"] = add(std::move(q), 48);
        }
    }

    static uint32_t align_up(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

    struct MemberLine {
        std::string name, type;
        bool not_serialised = false;
        uint32_t align = 0;  // a forced alignment ("a16"), 0 = the type's own
    };

    void define(const std::string& name, const std::string& parent, uint32_t version, uint32_t forced_align,
                const std::vector<MemberLine>& members) {
        const uint32_t idx = record(name);
        const uint32_t pidx = parent == "-" ? 0 : lookup(parent);
        uint32_t off = 0, align = std::max<uint32_t>(1, forced_align);
        if (pidx) {
            off = reuse ? dsize[pidx] : t.types[pidx].size;
            align = std::max<uint32_t>(align, t.types[pidx].align);
        }
        std::vector<Member> ms;
        for (const auto& [mname, mtype, ns, forced] : members) {
            const uint32_t ti = type_expr(mtype);
            const Type& mt = t.types[ti];
            const uint32_t a = std::max<uint32_t>({1, mt.align, forced});
            off = align_up(off, a);
            ms.push_back({mname, ns ? 33u : 32u, off, ti});
            off += mt.size;
            align = std::max(align, a);
        }
        Type& ty = t.types[idx];
        ty.parent = pidx;
        ty.opt = k_opt_format | k_opt_size_align | k_opt_members | k_opt_version;
        ty.format = uint32_t(Kind::Record);
        ty.version = version;
        ty.size = align_up(off, align);
        ty.align = align;
        ty.members = std::move(ms);
        ty.has_body = true;
        dsize[idx] = off;
    }

    void parse(const char* text) {
        std::istringstream in(text);
        std::string line, cur, parent;
        uint32_t version = 0, class_align = 0;
        std::vector<MemberLine> members;
        bool open = false;
        auto flush = [&] {
            if (open) define(cur, parent, version, class_align, members);
            members.clear();
            open = false;
        };
        // "a16" after a class line or a member line forces that alignment (a class that Havok
        // declares 16-aligned; a member placed on a 16-byte boundary whatever the base's size).
        auto forced_align = [](const std::string& tok) { return tok.size() > 1 && tok[0] == 'a' ? uint32_t(std::stoul(tok.substr(1))) : 0u; };
        while (std::getline(in, line)) {
            if (line.empty()) continue;
            std::istringstream ls(line);
            if (line[0] != ' ') {
                flush();
                ls >> cur >> parent;
                version = 0;
                class_align = 0;
                for (std::string tok; ls >> tok;) {
                    if (tok.size() > 1 && tok[0] == 'v') version = uint32_t(std::stoul(tok.substr(1)));
                    else class_align = forced_align(tok);
                }
                open = true;
            } else {
                MemberLine m;
                std::string tok;
                ls >> m.name >> m.type;
                if (ls >> tok) m.align = forced_align(tok);
                m.not_serialised = !m.name.empty() && m.name[0] == '!';
                if (m.not_serialised) m.name = m.name.substr(1);
                members.push_back(std::move(m));
            }
        }
        flush();
    }
};

}  // namespace

const TypeTable& layouts_2014(bool reuse_padding) {
    static std::once_flag once[2];
    static TypeTable tables[2];
    const int k = reuse_padding ? 1 : 0;
    std::call_once(once[k], [&] {
        Builder b;
        b.reuse = reuse_padding;
        b.primitives();
        b.parse(k_layouts_2014);
        // Classes that were only named by a pointer and never defined stay empty records.
        for (Type& t : b.t.types)
            if (!t.has_body && !t.name.empty()) {
                t.opt = k_opt_format | k_opt_size_align;
                t.format = uint32_t(Kind::Record);
                t.has_body = true;
            }
        (void)b.t.resolve();
        tables[k] = std::move(b.t);
    });
    return tables[k];
}

const TypeTable& packfile_layouts_2014(bool reuse_padding) { return layouts_2014(reuse_padding); }

}  // namespace drape::havok
