/* classify.c: kernel classes, collectives, matching across ranks, clock
 * alignment. PLACEHOLDER being written now (see issue 2); replaced wholesale. */
#include "config.h"

#include "weft/weft-classify.h"

void
weft_rank_classify (WeftRank *rank)
{
  (void) rank;
}

void
weft_trace_match_collectives (WeftTrace *trace)
{
  (void) trace;
}

void
weft_trace_estimate_clock_offsets (WeftTrace *trace)
{
  (void) trace;
}
