/* weft-pipeline.h: pipeline-parallel actions in a trace.
 *
 * torch.distributed.pipelining's runtime wraps each action in
 * record_function ("PP:<stage><F|B|I|W><microbatch>", e.g. "PP:0F3":
 * _get_profiler_function_name), a user_annotation on the CPU thread; the
 * composer writes them for every schedule (docs/composer.md, "Pipeline
 * parallel"). */
#pragma once

#include "weft-model.h"

G_BEGIN_DECLS

typedef struct
{
  int  stage;        /* the (virtual) pipeline stage */
  char kind;         /* 'F' forward, 'B' full backward, 'I' input gradients, 'W' weight gradients */
  int  microbatch;
} WeftPpAction;

/* The action an event belongs to: the innermost "PP:..." user_annotation
 * on the same CPU thread enclosing it (for a GPU op: its launch). FALSE
 * (out untouched) when there is none or the event is out of range. */
gboolean weft_rank_pp_action (const WeftRank *rank, guint32 event, WeftPpAction *out);

/* Parses one annotation name "PP:<stage><F|B|I|W><microbatch>"; FALSE (out
 * untouched) for anything else (DualPipeV's "PP:(0F3;7B2)OVERLAP_F_B"
 * container included). */
gboolean weft_pp_action_parse (const char *name, WeftPpAction *out);

G_END_DECLS
