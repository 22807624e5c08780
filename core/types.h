// The definitions are public (include/weft/types.h), so that an installed
// weft/weft.h compiles with only the installed include directory; stages
// include them by this name, as the rest of core/.
#pragma once

#include "weft/types.h"
