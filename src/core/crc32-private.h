/* crc32-private.h: the CRC-32 of gzip, as zlib's crc32_z () computes it
 * (same arguments and result), by carry-less multiplication where the CPU
 * has it (x86-64 PCLMULQDQ with SSE4.1: ~5x zlib 1.2.13's speed on data in
 * cache), else by zlib. The reader checks each gzip member with it
 * (reader.c, docs/loading.md "How a file is read"). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

guint32 _weft_crc32 (guint32 crc, const guint8 *data, gsize len);

G_END_DECLS
