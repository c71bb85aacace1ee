/* weft.h: the whole public core API (weft-core). The painter's API,
 * weft-render.h, is apart: it needs cairo (weft-render). */
#pragma once

#include "weft-types.h"
#include "weft-model.h"
#include "weft-load.h"
#include "weft-save.h"
#include "weft-classify.h"
#include "weft-solver.h"
#include "weft-history.h"
#include "weft-edit.h"
#include "weft-costmodel.h"
#include "weft-compose.h"
#include "weft-apply.h"
#include "weft-memory.h"
#include "weft-pipeline.h"
#include "weft-diff.h"
#include "weft-tables.h"

#define WEFT_VERSION "0.1.0"
