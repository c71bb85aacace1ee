/* compose-attention-private.h: flash attention's efficiency curve
 * (compose-attention.c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The default attention efficiency: FlashAttention-2's causal forward
 * plateau on an H100 SXM5 (335 TFLOP/s) over its dense BF16 peak (989). */
#define WEFT_COMPOSE_ATTENTION_EFF (335.0 / 989.0)

/* Flash attention's throughput for a call with sk keys, relative to the
 * causal forward's plateau (multiply by the attention efficiency). */
double _weft_compose_attention_shape (gboolean backward, gboolean causal, double sk);

G_END_DECLS
