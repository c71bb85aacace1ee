/* compose-attention.c: flash attention's measured efficiency as the
 * sequence grows, for the composer's attention kernels.
 *
 * FlashAttention-2 (the kernel PyTorch's SDPA flash backend ports,
 * `pytorch_flash::flash_fwd_kernel`) on an H100 80GB SXM5, head dim 128,
 * BF16, as the FlashAttention-3 paper measures it (Shah et al., 2024,
 * "FlashAttention-3: Fast and Accurate Attention with Asynchrony and
 * Low-precision", Figures 5 and 6: batch x seqlen = 16k tokens, hidden
 * 2048), TFLOP/s at seqlen 512 .. 16k, FLOPs counted as 4 S^2 D H (half
 * with the causal mask), the backward as 2.5 x the forward's:
 *
 *   forward, causal:     191 260 298 319 333 335
 *   forward, no mask:    309 350 362 368 370 370
 *   backward, no mask:   214 260 291 310 318 322
 *
 * The causal backward is not in the figures: taken as the unmasked one
 * times the forward's causal / unmasked ratio at the same length (the
 * masked diagonal tiles cost the same share), an assumption. Beyond 16k
 * the curves are flat (they are at 16k already); below 512 the 512 figure.
 * The composer's attention efficiency (WeftComputeEfficiency.attention,
 * default 335 / 989: the causal forward's plateau over the SXM5's dense
 * BF16 peak) scales the whole curve, so a calibrated figure keeps its
 * shape. docs/composer.md, "Attention". */
#include "config.h"

#include <math.h>

#include "compose-attention-private.h"

static const double SEQ_LOG2[6] = { 9, 10, 11, 12, 13, 14 };
static const double FWD_CAUSAL[6] = { 191, 260, 298, 319, 333, 335 };
static const double FWD_FULL[6] = { 309, 350, 362, 368, 370, 370 };
static const double BWD_FULL[6] = { 214, 260, 291, 310, 318, 322 };

static double
curve (const double *v, double sk)
{
  double x = log2 (MAX (sk, 1));

  if (x <= SEQ_LOG2[0])
    return v[0];
  for (int i = 1; i < 6; i++)
    if (x <= SEQ_LOG2[i])
      {
        double f = (x - SEQ_LOG2[i - 1]) / (SEQ_LOG2[i] - SEQ_LOG2[i - 1]);
        return v[i - 1] + f * (v[i] - v[i - 1]);
      }
  return v[5];
}

double
_weft_compose_attention_shape (gboolean backward, gboolean causal, double sk)
{
  double t;

  if (!backward)
    t = curve (causal ? FWD_CAUSAL : FWD_FULL, sk);
  else
    {
      t = curve (BWD_FULL, sk);
      if (causal)
        t *= curve (FWD_CAUSAL, sk) / curve (FWD_FULL, sk);
    }
  return t / FWD_CAUSAL[5];
}
