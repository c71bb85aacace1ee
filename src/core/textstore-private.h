/* textstore-private.h: the store of a rank's original event texts.
 *
 * Included by model.c (the rank owns one), jsonscan.c (adds the texts as it
 * scans) and textstore.c. The public side (reading a text back) is in
 * weft-model.h: weft_rank_event_text_dup(), WeftTextCursor. */
#pragma once

#include "weft/weft-model.h"
#include "gzindex-private.h"

G_BEGIN_DECLS

WeftTextStore *_weft_text_store_new (void);
void           _weft_text_store_free (WeftTextStore *self);
/* Appends one text (len bytes; a NUL is added) and returns its slot: 1 + the
 * number of texts added before it (0 is WEFT_TEXT_NONE). Only the loading
 * thread adds. */
guint32        _weft_text_store_add (WeftTextStore *self, const char *data, gsize len);
/* Packs the block being filled and frees the compressor: call once the
 * rank's texts are all added (the scanner does at its end). Adding again
 * afterwards starts a new block. */
void           _weft_text_store_finish (WeftTextStore *self);
/* on: full blocks are compressed by a thread of the store's own (at most
 * PACK_DEPTH, 4, in flight, taken back in order) while the loading thread
 * goes on adding; the blocks are the same as without it. Started at the
 * first full block, stopped by _weft_text_store_finish () (or on: FALSE,
 * or freeing the store). For one big file loading on a machine with cores
 * to spare (load.c). */
void           _weft_text_store_set_packer (WeftTextStore *self, gboolean on);
/* Also keeps a plain copy of the text just added at slot (slots in rising
 * order), so that reading it until _weft_text_store_drop_kept () decodes
 * no block: the scanner keeps the texts of the events whose args the
 * classifier reads (collectives), weft_rank_index () drops them. FALSE
 * (nothing kept) past the cap: an eighth of the texts so far + 1 MiB. */
/* A .json.gz's texts (gzindex-private.h): begin before the first text
 * (FALSE: texts were added already); then each text is where it lies in
 * the decompressed file (off, len; follows: it is the element after the
 * text before it in the traceEvents array, TRUE for all but the first),
 * and nothing is copied;
 * once the file is read, set_gzip hands the store the kept file (NULL or
 * a store not begun: the index is freed, and the texts read as none). */
gboolean       _weft_text_store_begin_gzip (WeftTextStore *self);
guint32        _weft_text_store_add_at (WeftTextStore *self, guint64 off, gsize len, gboolean follows);
void           _weft_text_store_set_gzip (WeftTextStore *self, WeftGzIndex *gzi);
gboolean       _weft_text_store_keep (WeftTextStore *self, guint32 slot, const char *data, gsize len);
void           _weft_text_store_drop_kept (WeftTextStore *self);

/* How many texts it holds (the last slot). */
guint32        _weft_text_store_count (const WeftTextStore *self);

/* Frees the shared cache's decoded blocks (NULL: nothing). */
void           _weft_text_store_drop_cache (WeftTextStore *self);

/* The event's text in the rank's shared cache, NULL when it has none; the
 * store's lock is held until _weft_rank_text_unlock (call it in every case):
 * for short readers (parsing, a search) that need no copy. */
const char    *_weft_rank_text_lock (const WeftRank *rank, const WeftEvent *ev, gsize *len);
void           _weft_rank_text_unlock (const WeftRank *rank);

G_END_DECLS
