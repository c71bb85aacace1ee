/* weft-classify.h: kernel classes, collectives, matching across ranks, clock alignment. */
#pragma once

#include "weft-model.h"

G_BEGIN_DECLS

/* Class of a GPU kernel from its name (the category decides copy). */
WeftKernelClass weft_classify_kernel_name (const char *name);

/* Collective type from a communication kernel's name: NCCL/RCCL
 * (ncclKernel_*, ncclDevKernel_*, ncclSymkDevKernel_*, rccl*), expert
 * parallelism (DeepEP and forks: dispatch/combine -> all_to_all,
 * notify/layout -> ep_notify), NVSHMEM, torch symmetric memory, custom
 * all-reduces; WEFT_COLL_NONE if it is not one (docs/classification.md). */
WeftCollType    weft_coll_type_from_kernel_name (const char *name);

/* Collective type from a "Collective name" arg (allreduce, _allgather_base, ...). */
WeftCollType    weft_coll_type_from_collective_name (const char *name);

/* Element size in bytes of a dtype text (Float, BFloat16, float32, bf16, ...), 0 if unknown. */
int             weft_dtype_size (const char *dtype);

/* Classifies every GPU op of the rank, builds rank->collectives. */
void            weft_rank_classify (WeftRank *rank);

/* Matches collectives across ranks into trace->instances. */
void            weft_trace_match_collectives (WeftTrace *trace);

/* Estimates rank->clock_offset_ns from matched instance END times (median
 * per rank against the lowest rank); sets trace->offsets_estimated. */
void            weft_trace_estimate_clock_offsets (WeftTrace *trace);

G_END_DECLS
