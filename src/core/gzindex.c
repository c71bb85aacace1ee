/* gzindex.c: a kept gzip file and its access points (gzindex-private.h).
 *
 * The compressed bytes sit in chunks of GZ_CHUNK in file order (appending
 * never copies what is held). A point is what zlib needs to start
 * decoding in the middle of a deflate stream: the byte where a block
 * starts, the bits of the byte before it that belong to that block
 * (inflatePrime), and the window (inflateSetDictionary); a member's start
 * needs only its byte (a gzip header follows). */
#include "config.h"

#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "gzindex-private.h"

#define GZ_CHUNK ((gsize) 1 << 20)
/* Output between two points: a text read at random inflates up to this
 * much (~0.6 ms per MiB here); each point holds a packed 32 KiB window
 * (~2-3 KiB: ~0.25 % of the JSON at 1 MiB). */
#define GZ_SPAN  ((guint64) 1 << 20)
#define GZ_WINDOW 32768

typedef struct
{
  guint64 in_off;    /* the compressed byte where decoding starts */
  guint64 out_off;   /* the output offset there */
  guint8 *win;       /* the window, zstd-packed (or raw: packed_len 0) */
  guint32 wlen;      /* the window's length */
  guint32 packed_len;
  guint8  bits;      /* bits of byte in_off - 1 still to decode */
  guint8  member;    /* a gzip member starts at in_off: no window */
} Point;

struct _WeftGzIndex
{
  GPtrArray *chunks;   /* guint8[GZ_CHUNK] each, the last one filled to raw_len */
  guint64    raw_len;
  GArray    *points;   /* Point, by rising out_off */
  guint64    last_out; /* out_off of the last point */
  ZSTD_CCtx *cctx;     /* packs the windows while filling */
  guint8    *scratch;
  guint64    win_bytes;
};

WeftGzIndex *
_weft_gz_index_new (void)
{
  WeftGzIndex *self = g_new0 (WeftGzIndex, 1);
  self->chunks = g_ptr_array_new_with_free_func (g_free);
  self->points = g_array_new (FALSE, FALSE, sizeof (Point));
  return self;
}

void
_weft_gz_index_free (WeftGzIndex *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < self->points->len; i++)
    g_free (g_array_index (self->points, Point, i).win);
  g_array_free (self->points, TRUE);
  g_ptr_array_free (self->chunks, TRUE);
  if (self->cctx != NULL)
    ZSTD_freeCCtx (self->cctx);
  g_free (self->scratch);
  g_free (self);
}

void
_weft_gz_index_append (WeftGzIndex *self, const guint8 *data, gsize len)
{
  while (len > 0)
    {
      gsize at = (gsize) (self->raw_len % GZ_CHUNK), n;
      if (at == 0 && self->raw_len / GZ_CHUNK == self->chunks->len)
        g_ptr_array_add (self->chunks, g_malloc (GZ_CHUNK));
      n = MIN (len, GZ_CHUNK - at);
      memcpy ((guint8 *) g_ptr_array_index (self->chunks, self->chunks->len - 1) + at, data, n);
      self->raw_len += n;
      data += n;
      len -= n;
    }
}

void
_weft_gz_index_add_member (WeftGzIndex *self, guint64 in_off, guint64 out_off)
{
  Point p = { 0 };

  p.in_off = in_off;
  p.out_off = out_off;
  p.member = 1;
  if (self->points->len > 0 && g_array_index (self->points, Point, self->points->len - 1).out_off == out_off)
    {
      /* an empty member before: the later start is the one that decodes */
      Point *last = &g_array_index (self->points, Point, self->points->len - 1);
      g_free (last->win);
      *last = p;
    }
  else
    g_array_append_val (self->points, p);
  self->last_out = out_off;
}

gboolean
_weft_gz_index_wants_point (const WeftGzIndex *self, guint64 out_off)
{
  return out_off - self->last_out >= GZ_SPAN;
}

void
_weft_gz_index_add_point (WeftGzIndex *self, guint64 in_off, int bits, guint64 out_off, const guint8 *window,
                          gsize wlen)
{
  Point p = { 0 };
  gsize bound = ZSTD_compressBound (GZ_WINDOW), rc = 0;

  g_return_if_fail (wlen <= GZ_WINDOW && bits >= 0 && bits < 8);
  p.in_off = in_off;
  p.out_off = out_off;
  p.bits = (guint8) bits;
  p.wlen = (guint32) wlen;
  if (self->cctx == NULL)
    {
      self->cctx = ZSTD_createCCtx ();
      self->scratch = g_malloc (bound);
    }
  if (self->cctx != NULL)
    rc = ZSTD_compressCCtx (self->cctx, self->scratch, bound, window, wlen, 1);
  if (self->cctx != NULL && !ZSTD_isError (rc) && rc < wlen)
    {
      p.packed_len = (guint32) rc;
      p.win = g_memdup2 (self->scratch, rc);
    }
  else
    p.win = g_memdup2 (window, wlen);
  self->win_bytes += p.packed_len ? p.packed_len : p.wlen;
  g_array_append_val (self->points, p);
  self->last_out = out_off;
}

void
_weft_gz_index_seal (WeftGzIndex *self)
{
  if (self->cctx != NULL)
    ZSTD_freeCCtx (self->cctx);
  self->cctx = NULL;
  g_clear_pointer (&self->scratch, g_free);
  if (self->chunks->len > 0 && self->raw_len % GZ_CHUNK != 0)
    {
      guint last = self->chunks->len - 1;
      self->chunks->pdata[last] = g_realloc (self->chunks->pdata[last], self->raw_len % GZ_CHUNK);
    }
}

static inline guint8
byte_at (const WeftGzIndex *self, guint64 off)
{
  return ((const guint8 *) g_ptr_array_index (self->chunks, off / GZ_CHUNK))[off % GZ_CHUNK];
}

/* The last point at or before out_off (the first one starts at 0). */
static const Point *
point_at (const WeftGzIndex *self, guint64 out_off)
{
  guint lo = 0, hi = self->points->len;

  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (self->points, Point, mid).out_off <= out_off)
        lo = mid;
      else
        hi = mid;
    }
  return self->points->len > 0 ? &g_array_index (self->points, Point, lo) : NULL;
}

/* The stream was checked when it was read, and these bytes are ours. */
static inline void
no_check (z_stream *zs)
{
#if ZLIB_VERNUM >= 0x1290
  inflateValidate (zs, 0);
#else
  (void) zs;
#endif
}

/* Sets zs up to decode from p; raw: the stream is raw deflate (a point
 * inside a member) rather than gzip. */
static gboolean
start_at (const WeftGzIndex *self, const Point *p, z_stream *zs, gboolean *raw)
{
  guint8 win[GZ_WINDOW];
  const guint8 *w = p->win;

  memset (zs, 0, sizeof *zs);
  *raw = !p->member;
  if (p->member)
    {
      if (inflateInit2 (zs, 15 + 16) != Z_OK)
        return FALSE;
      no_check (zs);
      return TRUE;
    }
  if (inflateInit2 (zs, -15) != Z_OK)
    return FALSE;
  if (p->packed_len != 0)
    {
      size_t rc = ZSTD_decompress (win, sizeof win, p->win, p->packed_len);
      if (ZSTD_isError (rc) || rc != p->wlen)
        goto fail;
      w = win;
    }
  if (p->bits != 0 &&
      (p->in_off == 0 || inflatePrime (zs, p->bits, byte_at (self, p->in_off - 1) >> (8 - p->bits)) != Z_OK))
    goto fail;
  if (p->wlen > 0 && inflateSetDictionary (zs, w, p->wlen) != Z_OK)
    goto fail;
  return TRUE;

fail:
  inflateEnd (zs);
  return FALSE;
}

gboolean
_weft_gz_index_extract (const WeftGzIndex *self, guint64 out_off, guint8 *dst, gsize len)
{
  const Point *p;
  guint8 discard[16384];
  z_stream zs;
  gboolean raw, ok = FALSE;
  guint64 in, out;
  gsize produced = 0;

  g_return_val_if_fail (self != NULL, FALSE);
  if (len == 0)
    return TRUE;
  if ((p = point_at (self, out_off)) == NULL || !start_at (self, p, &zs, &raw))
    return FALSE;
  in = p->in_off;
  out = p->out_off;
  while (produced < len)
    {
      uInt before_in, before_out;
      gsize got;
      int ret;

      if (zs.avail_in == 0)
        {
          gsize at = (gsize) (in % GZ_CHUNK);
          if (in >= self->raw_len)
            goto done;
          zs.next_in = (guint8 *) g_ptr_array_index (self->chunks, in / GZ_CHUNK) + at;
          zs.avail_in = (uInt) MIN (GZ_CHUNK - at, self->raw_len - in);
        }
      if (out < out_off)
        {
          zs.next_out = discard;
          zs.avail_out = (uInt) MIN (sizeof discard, out_off - out);
        }
      else
        {
          zs.next_out = dst + produced;
          zs.avail_out = (uInt) MIN (len - produced, G_MAXUINT32);
        }
      before_in = zs.avail_in;
      before_out = zs.avail_out;
      ret = inflate (&zs, Z_NO_FLUSH);
      in += before_in - zs.avail_in;
      got = before_out - zs.avail_out;
      if (out >= out_off)
        produced += got;
      out += got;
      if (ret == Z_STREAM_END)
        {
          /* the member ended: after its trailer (raw deflate stops before
           * it) the next member's header */
          if (raw)
            in += 8;
          zs.avail_in = 0;
          if (in + 2 > self->raw_len || byte_at (self, in) != 0x1f || byte_at (self, in + 1) != 0x8b ||
              inflateReset2 (&zs, 15 + 16) != Z_OK)
            goto done;
          no_check (&zs);
          raw = FALSE;
          continue;
        }
      if (ret != Z_OK && ret != Z_BUF_ERROR)
        goto done;
      if (ret == Z_BUF_ERROR && got == 0 && zs.avail_in > 0)
        goto done;
    }
  ok = TRUE;

done:
  inflateEnd (&zs);
  return ok;
}

guint
_weft_gz_index_n_points (const WeftGzIndex *self)
{
  return self->points->len;
}

guint64
_weft_gz_index_point_out (const WeftGzIndex *self, guint i)
{
  g_return_val_if_fail (i < self->points->len, 0);
  return g_array_index (self->points, Point, i).out_off;
}

guint64
_weft_gz_index_held_bytes (const WeftGzIndex *self)
{
  return self->raw_len + self->win_bytes + self->points->len * sizeof (Point) + self->chunks->len * sizeof (gpointer);
}
