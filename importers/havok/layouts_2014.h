// drape (private): the hk_2014 class layouts used to read packfiles.
#pragma once

#include "drape/havok/hkx.h"

namespace drape::havok {

// The resolved 2014 type table for a packfile with or without reusePaddingOptimization.
const TypeTable& layouts_2014(bool reuse_padding);

}  // namespace drape::havok
