/* weft-strategy-palette.h: the palette's "Strategies" section: each
 * strategy's collectives (weft_apply_strategy_collectives(): FSDP
 * all-gather / reduce-scatter of a block, DDP bucket all-reduce, TP / SP,
 * EP, CP), timed by the session's cost model, as palette collectives that
 * the timeline's drop inserts like the trace's own. */
#pragma once

#include "weft/weft-edit.h"

G_BEGIN_DECLS

/* The process-group name prefix of the strategy items ("weft-fsdp", ...). */
#define WEFT_STRATEGY_PALETTE_PG_PREFIX "weft-"

/* Appends the strategies' collectives (WeftPaletteCollective, allocated as
 * weft_edit_session_palette_collectives() does, pg_desc = a one-line label) to
 * collectives; returns how many. Group size: the trace's ranks, at most 8
 * (one node), at least 2. */
guint    weft_strategy_palette_append   (WeftEditSession *session,
                                         GPtrArray       *collectives);
/* TRUE for an item made by weft_strategy_palette_append(). */
gboolean weft_strategy_palette_is_item  (const WeftPaletteCollective *c);
/* The group of a strategy item that holds rank_index: the run of
 * c->n_ranks consecutive ranks (trace order) containing it, as rank
 * numbers (n_ranks entries; free with g_free). */
int     *weft_strategy_palette_group    (WeftTrace                   *trace,
                                         const WeftPaletteCollective *c,
                                         guint                        rank_index,
                                         guint                       *n_ranks);

G_END_DECLS
