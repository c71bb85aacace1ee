/* save-plan-private.h: the overlap plan of a save, made by save-plan.c and
 * read by the serialiser and the rank writer in save.c: per event, the
 * companion lane it is written on, the slice a flow point follows, and the
 * flow points that go with a deleted slice (save.c's comment, "Overlap
 * rule"). */
#pragma once

#include "weft/weft-model.h"

G_BEGIN_DECLS

#define WEFT_SAVE_COMPANION_TID_OFFSET 100000

typedef struct
{
  WeftRank   *rank;
  guint32    *level;      /* per event: companion level, 0 = own lane */
  guint32    *bind;       /* per flow-point event: the slice it follows, WEFT_NONE */
  gboolean   *drop;       /* per event: a flow point of a deleted slice (NULL: none) */
  gboolean    any;        /* any re-serialisation needed at all */
} SavePlan;

static inline gboolean
_weft_save_event_is_edited (const WeftEvent *ev)
{
  return (ev->flags & (WEFT_EVENT_EDITED | WEFT_EVENT_CREATED)) != 0;
}

/* Plans the save of rank: fills plan's per-event arrays. */
void  _weft_save_plan_init (SavePlan *plan, WeftRank *rank);
void  _weft_save_plan_clear (SavePlan *plan);
/* Raw JSON text of the tid of lane at companion level (level 0: the
 * lane's own); g_free it. */
char *_weft_save_companion_tid_text (WeftRank *rank, const WeftLane *lane, guint32 level);

G_END_DECLS
