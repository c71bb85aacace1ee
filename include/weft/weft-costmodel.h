/* weft-costmodel.h: the collective cost model.
 *
 *   t = alpha + S * f(n) / busBW
 *
 * S = payload bytes of the full (unsharded) buffer (WeftCollective.bytes),
 * n = ranks in the group, f = 2(n-1)/n for all-reduce, (n-1)/n for
 * all-gather, reduce-scatter and all-to-all, 1 for send/recv (nccl-tests
 * PERFORMANCE.md). alpha (latency) and busBW are kept per collective type and
 * group: fitted by least squares from a loaded trace's collective instances
 * (intrinsic transfer time = observed end - latest observed start over the
 * instance's ranks), else the documented hardware defaults (docs/composer.md,
 * "Cost model"): NVLink inside a node, InfiniBand across nodes.
 *
 * Times are integer nanoseconds; bandwidths are bytes per ns (= GB/s). */
#pragma once

#include "weft-model.h"

G_BEGIN_DECLS

typedef enum
{
  WEFT_FABRIC_NVLINK = 0,   /* every rank of the group in one node */
  WEFT_FABRIC_IB,           /* the group spans nodes */
  WEFT_FABRIC_N
} WeftFabric;

/* Hardware figures used for defaults (and by the composer for compute). */
typedef struct
{
  const char *name;            /* "h100", "h100-hbm2e-500w", "h200" */
  const char *device_name;     /* deviceProperties name, "NVIDIA H100 80GB HBM3" */
  double      peak_flops;      /* dense bf16 FLOP/s */
  double      hbm_bytes_per_s; /* HBM bandwidth */
  gint64      hbm_total_bytes;
  double      nvlink_bus_bw;   /* bytes/ns: busBW of large collectives inside a node */
  gint64      nvlink_alpha_ns; /* latency inside a node */
  double      ib_bus_bw;       /* bytes/ns: busBW across nodes (per GPU) */
  gint64      ib_alpha_ns;
  int         gpus_per_node;
  int         num_sms;
} WeftHardware;

/* Built-in presets ("h100", "h100-hbm2e-500w", "h200"); NULL for an unknown name. */
/* (transfer none) (nullable): NULL for an unknown name */
const WeftHardware *weft_hardware_preset (const char *name);
/* NULL-terminated list of preset names. */
const char * const *weft_hardware_preset_names (void);

/* f(n): the bus factor of a collective type on n ranks (1 for n <= 1 with
 * all-reduce etc. returns 0: nothing to move). */
double      weft_coll_bus_factor (WeftCollType type, int n);

/* One (alpha, busBW) pair and how it was obtained. */
typedef struct
{
  WeftCollType type;
  WeftFabric   fabric;
  int          group_size;
  char        *group_key;     /* "pg_name|r0,r1,..." of the fitted group; NULL for defaults */
  gint64       alpha_ns;
  double       bus_bw;        /* bytes per ns */
  guint        n_samples;     /* 0: a default, not fitted */
  double       mean_rel_error;/* over the samples, |pred - obs| / obs */
  double       max_rel_error;
  double       total_rel_error; /* |sum pred - sum obs| / sum obs */
} WeftCostFit;

/* One observed collective instance, as used for fitting. */
typedef struct
{
  WeftCollType type;
  int          group_size;
  gint64       bytes;         /* S */
  gint64       observed_ns;   /* intrinsic transfer time */
  guint        instance;      /* index into trace->instances, WEFT_NONE for a lone collective */
  guint        rank_index;    /* lone collective: trace rank index; else first member */
  guint32      coll;          /* lone collective: index into that rank's collectives */
  char        *group_key;
} WeftCostSample;

typedef struct _WeftCostModel WeftCostModel;

/* A model with only the hardware defaults (hw NULL = h100). */
WeftCostModel *weft_cost_model_new (const WeftHardware *hw); /* (transfer full) */
void           weft_cost_model_free (WeftCostModel *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftCostModel, weft_cost_model_free)

const WeftHardware *weft_cost_model_get_hardware (const WeftCostModel *self); /* (transfer none) */

/* Collects the trace's collectives with known type, bytes and group size:
 * one sample per instance (intrinsic time over its ranks, clock offsets
 * applied), and one per collective not in any instance (its kernel
 * duration). Returns a GArray of WeftCostSample (free with
 * weft_cost_samples_free). */
GArray        *weft_cost_samples_collect (WeftTrace *trace); /* (transfer full) */
void           weft_cost_samples_free (GArray *samples);

/* Fits alpha and busBW per (type, group) from the trace's samples (least
 * squares of t = alpha + x / busBW over x = S f(n); alpha >= 0, busBW > 0;
 * a group with one size only keeps the default alpha). Also fits a pooled
 * (type, fabric, group size) entry used for groups of that size that were
 * not seen. Returns the number of fitted (type, group) entries. */
guint          weft_cost_model_fit_trace (WeftCostModel *self, WeftTrace *trace);

/* Fabric of a rank set: NVLINK when all ranks are in one node of
 * hw->gpus_per_node, else IB. */
WeftFabric     weft_cost_model_fabric (const WeftCostModel *self, const int *ranks, guint n_ranks);

/* Estimated intrinsic time (ns) of one collective. ranks (the group's global
 * ranks) may be NULL: then n_ranks is the group size and NVLink is assumed
 * for n_ranks <= gpus_per_node. Lookup: the fitted (type, group), then the
 * pooled fit of (type, fabric, size), then of (type, fabric), then the
 * default of the fabric. fit_out (nullable) receives the entry used
 * (borrowed; valid until the next fit). */
gint64         weft_cost_model_estimate (const WeftCostModel *self,
                                         WeftCollType         type,
                                         gint64               bytes,
                                         const int           *ranks,
                                         guint                n_ranks,
                                         const WeftCostFit  **fit_out);

/* Same, for a group named by pg name as found in a loaded trace (fitted
 * entry for that exact group where there is one). */
gint64         weft_cost_model_estimate_group (const WeftCostModel *self,
                                               WeftCollType         type,
                                               gint64               bytes,
                                               const char          *pg_name,
                                               const int           *ranks,
                                               guint                n_ranks,
                                               const WeftCostFit  **fit_out);

/* The fitted entries (WeftCostFit, borrowed), in fit order. */
const GArray  *weft_cost_model_get_fits (const WeftCostModel *self); /* (transfer none) */

/* The intrinsic time of a sample predicted by the model. */
gint64         weft_cost_model_predict_sample (const WeftCostModel  *self,
                                               const WeftCostSample *sample);

G_END_DECLS
