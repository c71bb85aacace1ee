/* weft.h: the whole public core API. */
#pragma once

#include "weft-types.h"
#include "weft-model.h"
#include "weft-load.h"
#include "weft-save.h"
#include "weft-classify.h"
#include "weft-solver.h"
#include "weft-history.h"
#include "weft-edit.h"

#define WEFT_VERSION "0.1.0"
