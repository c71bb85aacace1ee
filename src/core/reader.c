/* reader.c: streaming decompression (plain, gzip via zlib, zstd via
 * libzstd) with the format detected from the magic bytes. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <zlib.h>
#include <zstd.h>

#include "core/reader.h"
#include "crc32-private.h"
#include "gzindex-private.h"

#define READER_IN_CHUNK (256u << 10)
#define READER_SNIFF 4096
#define MAX_JSON_BYTES_CEILING (G_GUINT64_CONSTANT (16) << 30)
/* Read-ahead (weft_reader_start_read_ahead): chunks of decompressed bytes
 * in flight between the reading thread and the scanner. */
#define AHEAD_CHUNK (256u << 10)
#define AHEAD_DEPTH 4

/* One chunk of the read-ahead ring. */
typedef struct
{
  char    *data;
  gsize    len;
  gsize    pos;       /* bytes of it handed out */
  guint64  raw_done;  /* weft_reader_raw_done () once it was read */
  gboolean eof;       /* the data ended here (len may be 0) */
  GError  *error;     /* the read that would have filled it failed */
} AheadChunk;

/* The reading thread decompresses AHEAD_CHUNK bytes at a time, in order,
 * into a ring of AHEAD_DEPTH chunks; weft_reader_read () copies out of it.
 * pthread primitives (not GMutex) so that ThreadSanitizer sees the
 * ordering. */
typedef struct
{
  pthread_t       thread;
  pthread_mutex_t lock;
  pthread_cond_t  cond;      /* a chunk filled or emptied, or quit */
  AheadChunk      ring[AHEAD_DEPTH];
  guint           head;      /* the chunk being handed out */
  guint           count;     /* chunks filled and not yet handed out whole */
  gboolean        quit;
  /* the reader as the scanner sees it (the thread's are ahead) */
  guint64         raw_done;
  guint64         out_done;
  GError         *error;     /* the error handed out, kept for later reads */
} Ahead;

struct _WeftReader
{
  char            *name;
  int              fd;          /* -1 for memory */
  const guchar    *mem;         /* memory source */
  gsize            mem_len;
  guint64          raw_size;
  guint64          raw_done;    /* raw bytes taken from the source */
  guint64          out_done;    /* decompressed bytes handed out */
  guint64          limit;
  WeftReaderFormat format;

  /* input buffer (compressed formats, and the sniffed head of plain files) */
  guchar          *in;
  gsize            in_cap;
  gsize            in_pos;
  gsize            in_len;
  gboolean         in_eof;

  z_stream         zs;
  gboolean         zs_init;
  ZSTD_DCtx       *zd;
  size_t           zstd_last;   /* last ZSTD_decompressStream result (0: frame done) */
  gboolean         done;
  GError          *setup_error; /* memory readers report setup problems on read */
  GCancellable    *cancellable;
  Ahead           *ahead;       /* NULL: read on the caller's thread */
  WeftGzIndex     *gzi;         /* keeping the gzip file (weft_reader_keep_gzip) */
  /* gzip members checked here, not by zlib (inflateValidate off): its
   * CRC-32 is ~5x slower than _weft_crc32 () */
  gboolean         own_check;
  guint32          crc;         /* of the member's output so far */
  guint64          member_out;  /* its length so far */
  guint8           tail[8];     /* the last 8 input bytes before in[0] (a trailer may straddle) */
};

/* The smallest memory limit of this process's control groups (cgroup v2
 * memory.max, v1 memory.limit_in_bytes), its own and those above it up to
 * the root; G_MAXUINT64 when none is set (or none can be read). A
 * container's limit is often far below the host's physical memory. */
static guint64
cgroup_memory_limit (void)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  guint64 best = G_MAXUINT64;

  if (!g_file_get_contents ("/proc/self/cgroup", &text, NULL, NULL))
    return best;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], ":", 3);
      g_auto (GStrv) ctl = NULL;
      const char *base = NULL, *file = NULL;
      g_autofree char *path = NULL;

      if (g_strv_length (f) != 3 || f[2][0] != '/')
        continue;
      ctl = g_strsplit (f[1], ",", -1);
      if (f[1][0] == '\0' && strcmp (f[0], "0") == 0)
        base = "/sys/fs/cgroup", file = "memory.max";
      else if (g_strv_contains ((const char * const *) ctl, "memory"))
        base = "/sys/fs/cgroup/memory", file = "memory.limit_in_bytes";
      else
        continue;
      path = g_strdup (f[2]);
      for (;;)
        {
          g_autofree char *name = g_build_filename (base, path, file, NULL);
          g_autofree char *value = NULL;
          char *slash;
          if (g_file_get_contents (name, &value, NULL, NULL) && g_ascii_isdigit (value[0]))
            {
              guint64 v = g_ascii_strtoull (value, NULL, 10);
              if (v > 0)
                best = MIN (best, v);
            }
          if (strcmp (path, "/") == 0)
            break;
          slash = strrchr (path, '/');
          if (slash == path)
            slash[1] = '\0';
          else
            *slash = '\0';
        }
    }
  return best;
}

/* The memory this process can have: the physical memory, bounded by the
 * control group's limit and by RLIMIT_AS / RLIMIT_DATA. */
static guint64
machine_memory (void)
{
  guint64 v = G_MAXUINT64;
  struct rlimit rl;

#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  long pages = sysconf (_SC_PHYS_PAGES);
  long page = sysconf (_SC_PAGESIZE);
  if (pages > 0 && page > 0)
    v = (guint64) pages * (guint64) page;
#endif
  v = MIN (v, cgroup_memory_limit ());
  if (getrlimit (RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    v = MIN (v, (guint64) rl.rlim_cur);
  if (getrlimit (RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    v = MIN (v, (guint64) rl.rlim_cur);
  return v;
}

/* The default cap on decompressed bytes per file: 16 GiB, but never more
 * than half the memory this process can have (the model of a trace takes
 * about as much memory as its JSON). See docs/loading.md, "Limits". */
guint64
weft_reader_default_limit (void)
{
  static guint64 limit = 0;

  if (g_once_init_enter (&limit))
    {
      guint64 v = MIN (MAX_JSON_BYTES_CEILING, machine_memory () / 2);
      g_once_init_leave (&limit, MAX (v, (guint64) 1 << 20));
    }
  return limit;
}

static gboolean
reader_cancelled (WeftReader *self, GError **error)
{
  if (self->cancellable == NULL || !g_cancellable_is_cancelled (self->cancellable))
    return FALSE;
  g_set_error (error, WEFT_ERROR, WEFT_ERROR_CANCELLED, "%s: loading cancelled", self->name);
  return TRUE;
}

const char *
weft_reader_format_name (WeftReaderFormat format)
{
  switch (format)
    {
    case WEFT_READER_GZIP:
      return "gzip";
    case WEFT_READER_ZSTD:
      return "zstd";
    case WEFT_READER_PLAIN:
    default:
      return "plain";
    }
}

/* Tops up the input buffer (compacting it); FALSE with error on I/O failure. */
static gboolean
fill_input_upto (WeftReader *self, gsize upto, GError **error);

static gboolean
fill_input (WeftReader *self, GError **error)
{
  return fill_input_upto (self, self->in_cap, error);
}

/* Tops up the input buffer to upto bytes (at most in_cap). */
static gboolean
fill_input_upto (WeftReader *self, gsize upto, GError **error)
{
  if (self->in_eof)
    return TRUE;
  if (self->in_pos > 0)
    {
      gsize k = MIN (self->in_pos, sizeof self->tail);
      memmove (self->tail, self->tail + k, sizeof self->tail - k);
      memcpy (self->tail + sizeof self->tail - k, self->in + self->in_pos - k, k);
      memmove (self->in, self->in + self->in_pos, self->in_len - self->in_pos);
      self->in_len -= self->in_pos;
      self->in_pos = 0;
    }
  if (self->mem != NULL || self->fd < 0)
    {
      gsize left = self->mem_len - (gsize) self->raw_done;
      gsize n = MIN (left, upto > self->in_len ? upto - self->in_len : 0);
      memcpy (self->in + self->in_len, self->mem + self->raw_done, n);
      if (self->gzi != NULL)
        _weft_gz_index_append (self->gzi, self->in + self->in_len, n);
      self->in_len += n;
      self->raw_done += n;
      if (self->raw_done >= self->mem_len)
        self->in_eof = TRUE;
      return TRUE;
    }
  while (self->in_len < upto)
    {
      ssize_t n;
      if (reader_cancelled (self, error))
        return FALSE;
      n = read (self->fd, self->in + self->in_len, upto - self->in_len);
      if (n < 0)
        {
          int saved = errno;
          if (saved == EINTR)
            continue;
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: byte %" G_GUINT64_FORMAT ": read error: %s",
                       self->name, self->raw_done, g_strerror (saved));
          return FALSE;
        }
      if (n == 0)
        {
          self->in_eof = TRUE;
          break;
        }
      if (self->gzi != NULL)
        _weft_gz_index_append (self->gzi, self->in + self->in_len, (gsize) n);
      self->in_len += (gsize) n;
      self->raw_done += (guint64) n;
    }
  return TRUE;
}

/* A little-endian 32-bit value (zstd's magic, gzip's trailer). */
static inline guint32
le32 (const guint8 *p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 | (guint32) p[3] << 24;
}

static void
detect_format (WeftReader *self)
{
  const guchar *h = self->in + self->in_pos;
  gsize n = self->in_len - self->in_pos;

  if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
    self->format = WEFT_READER_GZIP;
  else if (n >= 4 && h[0] == 0x28 && h[1] == 0xb5 && h[2] == 0x2f && h[3] == 0xfd)
    self->format = WEFT_READER_ZSTD;
  else if (n >= 8 && le32 (h) >= ZSTD_MAGIC_SKIPPABLE_START && le32 (h) <= ZSTD_MAGIC_SKIPPABLE_START + 15)
    self->format = WEFT_READER_ZSTD; /* a skippable frame first (pzstd writes one) */
  else
    self->format = WEFT_READER_PLAIN;
}

static void ahead_stop (WeftReader *self);

static WeftReader *
reader_new (const char *name)
{
  WeftReader *self = g_new0 (WeftReader, 1);
  self->name = g_strdup (name);
  self->fd = -1;
  self->limit = weft_reader_default_limit ();
  return self;
}

static void
reader_start (WeftReader *self)
{
  self->in_cap = READER_IN_CHUNK;
  self->in = g_malloc (self->in_cap);
}

static gboolean
reader_setup (WeftReader *self, GError **error)
{
  /* Sniff: make sure a few bytes are there, then pick the decoder. */
  if (!fill_input_upto (self, READER_SNIFF, error))
    return FALSE;
  detect_format (self);
  if (self->format == WEFT_READER_GZIP)
    {
      memset (&self->zs, 0, sizeof self->zs);
      if (inflateInit2 (&self->zs, 15 + 16) != Z_OK)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_COMPRESSION, "%s: cannot start the gzip decoder", self->name);
          return FALSE;
        }
      self->zs_init = TRUE;
#if ZLIB_VERNUM >= 0x1290
      self->own_check = inflateValidate (&self->zs, 0) == Z_OK;
#endif
    }
  else if (self->format == WEFT_READER_ZSTD)
    {
      self->zd = ZSTD_createDCtx ();
      if (self->zd == NULL)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_COMPRESSION, "%s: cannot start the zstd decoder", self->name);
          return FALSE;
        }
      /* Bounded memory: windows up to 128 MiB (zstd's default limit). */
      ZSTD_DCtx_setParameter (self->zd, ZSTD_d_windowLogMax, 27);
      self->zstd_last = 1;
    }
  else
    {
      /* A name that promises compression but bytes that are not JSON. */
      const char *nm = self->name;
      gsize n = self->in_len - self->in_pos;
      guchar c = n > 0 ? self->in[self->in_pos] : 0;
      gboolean jsonish = n == 0 || c == '{' || c == '[' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0xef;
      if (!jsonish && (g_str_has_suffix (nm, ".gz") || g_str_has_suffix (nm, ".zst")))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_COMPRESSION,
                       "%s: byte 0: not %s data (the name says so, but the first bytes are %02x %02x)", nm,
                       g_str_has_suffix (nm, ".gz") ? "gzip" : "zstd", c,
                       n > 1 ? self->in[self->in_pos + 1] : 0);
          return FALSE;
        }
    }
  return TRUE;
}

const char *
weft_reader_describe_not_regular (guint mode)
{
  if (S_ISDIR (mode))
    return "is a folder, not a file";
  if (S_ISFIFO (mode))
    return "is a FIFO (named pipe), not a regular file";
  if (S_ISSOCK (mode))
    return "is a socket, not a regular file";
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return "is a device, not a regular file";
  return "is not a regular file";
}

WeftReader *
weft_reader_open (const char *path, GError **error)
{
  WeftReader *self;
  GStatBuf st;
  int fd;

  /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is cleared
   * once fstat() says the file is a regular one. */
  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot open: %s", path, g_strerror (saved));
      return NULL;
    }
  self = reader_new (path);
  self->fd = fd;
  if (fstat (fd, &st) != 0)
    {
      int saved = errno;
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: cannot stat: %s", path, g_strerror (saved));
      weft_reader_free (self);
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: %s: refused (reading it could wait forever)", path,
                   weft_reader_describe_not_regular (st.st_mode));
      weft_reader_free (self);
      return NULL;
    }
  self->raw_size = (guint64) st.st_size;
  {
    int flags = fcntl (fd, F_GETFL);
    if (flags >= 0)
      fcntl (fd, F_SETFL, flags & ~O_NONBLOCK);
  }
  reader_start (self);
  if (!reader_setup (self, error))
    {
      weft_reader_free (self);
      return NULL;
    }
  return self;
}

WeftReader *
weft_reader_new_for_memory (const char *name, const void *data, gsize len, gboolean detect)
{
  WeftReader *self = reader_new (name);
  self->mem = data;
  self->mem_len = len;
  self->raw_size = len;
  reader_start (self);
  if (len == 0)
    self->in_eof = TRUE;
  if (!detect)
    {
      fill_input (self, NULL);
      self->format = WEFT_READER_PLAIN;
      return self;
    }
  /* memory cannot fail to read; setup errors are reported on first read */
  reader_setup (self, &self->setup_error);
  return self;
}

void
weft_reader_free (WeftReader *self)
{
  if (self == NULL)
    return;
  ahead_stop (self);
  if (self->fd >= 0)
    close (self->fd);
  if (self->zs_init)
    inflateEnd (&self->zs);
  if (self->zd != NULL)
    ZSTD_freeDCtx (self->zd);
  g_clear_error (&self->setup_error);
  _weft_gz_index_free (self->gzi);
  g_free (self->in);
  g_free (self->name);
  g_free (self);
}

void
weft_reader_set_limit (WeftReader *self, guint64 max_bytes)
{
  self->limit = max_bytes ? MIN (max_bytes, G_MAXUINT64 - 1) : weft_reader_default_limit ();
}

guint64
weft_reader_get_limit (WeftReader *self)
{
  return self->limit;
}

void
weft_reader_set_cancellable (WeftReader *self, GCancellable *cancellable)
{
  self->cancellable = cancellable;
}

WeftReaderFormat
weft_reader_get_format (WeftReader *self)
{
  return self->format;
}

guint64
weft_reader_raw_done (WeftReader *self)
{
  if (self->ahead != NULL)
    return self->ahead->raw_done;
  return self->raw_done - (self->in_len - self->in_pos);
}

guint64
weft_reader_raw_size (WeftReader *self)
{
  return self->raw_size;
}

guint64
weft_reader_bytes_out (WeftReader *self)
{
  if (self->ahead != NULL)
    return self->ahead->out_done;
  return self->out_done;
}

const char *
weft_reader_get_name (WeftReader *self)
{
  return self->name;
}

static gboolean
all_zero (const guchar *p, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (p[i] != 0)
      return FALSE;
  return TRUE;
}

/* Offset of the next unread compressed byte, for messages. */
static guint64
raw_offset (WeftReader *self)
{
  return self->raw_done - (self->in_len - self->in_pos); /* the reading thread's, with read-ahead */
}

static gssize
read_plain (WeftReader *self, char *buf, gsize len, GError **error)
{
  gsize got = 0;

  /* First the sniffed bytes still in the input buffer. */
  if (self->in_pos < self->in_len)
    {
      gsize n = MIN (len, self->in_len - self->in_pos);
      memcpy (buf, self->in + self->in_pos, n);
      self->in_pos += n;
      got += n;
    }
  while (got < len && !self->in_eof)
    {
      if (self->mem != NULL)
        {
          gsize n = MIN (len - got, self->mem_len - (gsize) self->raw_done);
          memcpy (buf + got, self->mem + self->raw_done, n);
          self->raw_done += n;
          got += n;
          if (self->raw_done >= self->mem_len)
            self->in_eof = TRUE;
        }
      else
        {
          ssize_t n;
          if (reader_cancelled (self, error))
            return -1;
          n = read (self->fd, buf + got, len - got);
          if (n < 0)
            {
              int saved = errno;
              if (saved == EINTR)
                continue;
              g_set_error (error, WEFT_ERROR, WEFT_ERROR_IO, "%s: byte %" G_GUINT64_FORMAT ": read error: %s",
                           self->name, self->raw_done, g_strerror (saved));
              return -1;
            }
          if (n == 0)
            self->in_eof = TRUE;
          self->raw_done += (guint64) n;
          got += (gsize) n;
        }
    }
  return (gssize) got;
}

/* A point of the kept file where the next deflate block starts (output
 * offset out). */
static void
keep_point (WeftReader *self, guint64 out)
{
  guint8 window[32768];
  uInt wlen = sizeof window;

  if (inflateGetDictionary (&self->zs, window, &wlen) == Z_OK)
    _weft_gz_index_add_point (self->gzi, raw_offset (self), self->zs.data_type & 7, out, window, wlen);
}

gboolean
weft_reader_keep_gzip (WeftReader *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  if (self->gzi != NULL)
    return TRUE;
  /* from the first byte: nothing decompressed, nothing compacted away */
  if (self->format != WEFT_READER_GZIP || self->ahead != NULL || self->out_done > 0 || self->in_pos != 0 ||
      self->raw_done != self->in_len || self->setup_error != NULL)
    return FALSE;
  self->gzi = _weft_gz_index_new ();
  _weft_gz_index_append (self->gzi, self->in, self->in_len);
  _weft_gz_index_add_member (self->gzi, 0, 0);
  return TRUE;
}

gboolean
weft_reader_keeps_gzip (WeftReader *self)
{
  return self->gzi != NULL;
}

WeftGzIndex *
weft_reader_steal_gzip (WeftReader *self)
{
  WeftGzIndex *gzi;

  ahead_stop (self); /* the reading thread fills it */
  gzi = self->gzi;
  self->gzi = NULL;
  if (gzi != NULL)
    _weft_gz_index_seal (gzi);
  return gzi;
}

/* At a member's end (its trailer just read, the last 8 bytes taken): its
 * CRC-32 and length against the trailer's, with zlib's words and at the
 * byte where zlib would have stopped. */
static gboolean
check_member (WeftReader *self, GError **error)
{
  guint8 t[8];
  guint32 want_crc, want_len;

  if (self->in_pos >= sizeof t)
    memcpy (t, self->in + self->in_pos - sizeof t, sizeof t);
  else
    {
      memcpy (t, self->tail + self->in_pos, sizeof t - self->in_pos);
      memcpy (t + sizeof t - self->in_pos, self->in, self->in_pos);
    }
  want_crc = le32 (t);
  want_len = le32 (t + 4);
  if (want_crc != self->crc)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_COMPRESSION,
                   "%s: byte %" G_GUINT64_FORMAT ": corrupt gzip data: incorrect data check", self->name,
                   raw_offset (self) - 4);
      return FALSE;
    }
  if (want_len != (guint32) self->member_out)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_COMPRESSION,
                   "%s: byte %" G_GUINT64_FORMAT ": corrupt gzip data: incorrect length check", self->name,
                   raw_offset (self));
      return FALSE;
    }
  self->crc = 0;
  self->member_out = 0;
  return TRUE;
}

static gssize
read_gzip (WeftReader *self, char *buf, gsize len, GError **error)
{
  gsize got = 0;

  while (got < len && !self->done)
    {
      int ret;
      gsize before_in, before_got, used;

      if (self->in_pos == self->in_len && !self->in_eof)
        if (!fill_input (self, error))
          return -1;
      if (self->in_pos == self->in_len && self->in_eof)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_COMPRESSION,
                       "%s: byte %" G_GUINT64_FORMAT ": truncated gzip data (the file ends inside the compressed stream)",
                       self->name, raw_offset (self));
          return -1;
        }
      self->zs.next_in = self->in + self->in_pos;
      self->zs.avail_in = (uInt) MIN (self->in_len - self->in_pos, G_MAXUINT32);
      self->zs.next_out = (Bytef *) buf + got;
      self->zs.avail_out = (uInt) MIN (len - got, G_MAXUINT32);
      before_in = self->zs.avail_in;
      before_got = got;
      /* keeping the file: stop at each deflate block's end, where a point
       * may go (gzindex-private.h) */
      ret = inflate (&self->zs, self->gzi != NULL ? Z_BLOCK : Z_NO_FLUSH);
      used = before_in - self->zs.avail_in;
      self->in_pos += used;
      got = (gsize) ((char *) self->zs.next_out - buf);
      if (self->own_check && got > before_got)
        {
          self->crc = _weft_crc32 (self->crc, (const guint8 *) buf + before_got, got - before_got);
          self->member_out += got - before_got;
        }
      if (self->gzi != NULL && ret == Z_OK && (self->zs.data_type & 128) && !(self->zs.data_type & 64) &&
          _weft_gz_index_wants_point (self->gzi, self->out_done + got))
        keep_point (self, self->out_done + got);
      if (ret == Z_STREAM_END)
        {
          if (self->own_check && !check_member (self, error))
            return -1;
          /* Another gzip member may follow (concatenated .gz). */
          if (self->in_len - self->in_pos < 2 && !self->in_eof)
            if (!fill_input (self, error))
              return -1;
          if (self->in_pos == self->in_len)
            self->done = TRUE;
          else if (self->in_len - self->in_pos >= 2 && self->in[self->in_pos] == 0x1f &&
                   self->in[self->in_pos + 1] == 0x8b)
            {
              inflateReset (&self->zs);
#if ZLIB_VERNUM >= 0x1290
              if (self->own_check)
                inflateValidate (&self->zs, 0);
#endif
              if (self->gzi != NULL)
                _weft_gz_index_add_member (self->gzi, raw_offset (self), self->out_done + got);
            }
          else
            {
              /* Trailing zero padding is tolerated, anything else is not. */
              for (;;)
                {
                  if (!all_zero (self->in + self->in_pos, self->in_len - self->in_pos))
                    {
                      g_set_error (error, WEFT_ERROR, WEFT_ERROR_COMPRESSION,
                                   "%s: byte %" G_GUINT64_FORMAT ": data after the end of the gzip stream",
                                   self->name, raw_offset (self));
                      return -1;
                    }
                  self->in_pos = self->in_len;
                  if (self->in_eof)
                    break;
                  if (!fill_input (self, error))
                    return -1;
                }
              self->done = TRUE;
            }
        }
      else if (ret == Z_BUF_ERROR)
        {
          if (used == 0 && self->in_eof && self->in_pos == self->in_len)
            continue; /* reported as truncated at the top of the loop */
        }
      else if (ret != Z_OK)
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_COMPRESSION,
                       "%s: byte %" G_GUINT64_FORMAT ": corrupt gzip data: %s", self->name, raw_offset (self),
                       self->zs.msg ? self->zs.msg : (ret == Z_MEM_ERROR ? "out of memory" : "invalid data"));
          return -1;
        }
    }
  return (gssize) got;
}

static gssize
read_zstd (WeftReader *self, char *buf, gsize len, GError **error)
{
  ZSTD_outBuffer out = { buf, len, 0 };

  while (out.pos < len && !self->done)
    {
      ZSTD_inBuffer in;
      size_t ret;
      gsize before_out = out.pos;

      if (self->in_pos == self->in_len && !self->in_eof)
        if (!fill_input (self, error))
          return -1;
      in.src = self->in + self->in_pos;
      in.size = self->in_len - self->in_pos;
      in.pos = 0;
      ret = ZSTD_decompressStream (self->zd, &out, &in);
      self->in_pos += in.pos;
      if (ZSTD_isError (ret))
        {
          g_set_error (error, WEFT_ERROR, WEFT_ERROR_COMPRESSION, "%s: byte %" G_GUINT64_FORMAT ": corrupt zstd data: %s",
                       self->name, raw_offset (self), ZSTD_getErrorName (ret));
          return -1;
        }
      if (in.pos > 0 || out.pos > before_out)
        self->zstd_last = ret;
      else if (self->in_pos == self->in_len && self->in_eof)
        {
          /* no progress and no more input: done if the last frame ended */
          if (self->zstd_last != 0)
            {
              g_set_error (error, WEFT_ERROR, WEFT_ERROR_COMPRESSION,
                           "%s: byte %" G_GUINT64_FORMAT ": truncated zstd data (the file ends inside a frame)",
                           self->name, raw_offset (self));
              return -1;
            }
          self->done = TRUE;
        }
    }
  return (gssize) out.pos;
}

static gssize
reader_read_here (WeftReader *self, char *buf, gsize len, GError **error)
{
  gssize n;

  if (self->setup_error != NULL)
    {
      g_propagate_error (error, g_error_copy (self->setup_error));
      return -1;
    }
  if (len == 0)
    return 0;
  /* Never hand out more than one byte past the cap: seeing that byte is
   * what proves the data is over it. (limit < G_MAXUINT64, so limit + 1
   * cannot wrap; out_done <= limit here, or the last read failed.) */
  if (self->out_done <= self->limit && len > self->limit + 1 - self->out_done)
    len = (gsize) (self->limit + 1 - self->out_done);

  switch (self->format)
    {
    case WEFT_READER_GZIP:
      n = read_gzip (self, buf, len, error);
      break;
    case WEFT_READER_ZSTD:
      n = read_zstd (self, buf, len, error);
      break;
    case WEFT_READER_PLAIN:
    default:
      n = read_plain (self, buf, len, error);
      break;
    }
  if (n < 0)
    return -1;
  self->out_done += (guint64) n;
  if (self->out_done > self->limit)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_TOO_LARGE,
                   "%s: byte %" G_GUINT64_FORMAT ": the decompressed data exceeds the limit of %" G_GUINT64_FORMAT
                   " bytes (decompression bomb?)",
                   self->name, self->limit, self->limit);
      return -1;
    }
  return n;
}

/* ---- read-ahead ------------------------------------------------------------ */

static void *
ahead_main (void *data)
{
  WeftReader *self = data;
  Ahead *ah = self->ahead;
  guint tail = 0;

  for (;;)
    {
      AheadChunk *c;
      GError *error = NULL;
      gssize n;

      pthread_mutex_lock (&ah->lock);
      while (ah->count == AHEAD_DEPTH && !ah->quit)
        pthread_cond_wait (&ah->cond, &ah->lock);
      if (ah->quit)
        {
          pthread_mutex_unlock (&ah->lock);
          break;
        }
      c = &ah->ring[tail];
      pthread_mutex_unlock (&ah->lock);

      /* the chunk is the thread's until count covers it */
      if (c->data == NULL)
        c->data = g_malloc (AHEAD_CHUNK);
      n = reader_read_here (self, c->data, AHEAD_CHUNK, &error);
      c->len = n > 0 ? (gsize) n : 0;
      c->pos = 0;
      c->eof = n == 0;
      c->error = error;
      c->raw_done = self->raw_done - (self->in_len - self->in_pos);

      pthread_mutex_lock (&ah->lock);
      ah->count++;
      pthread_cond_broadcast (&ah->cond);
      pthread_mutex_unlock (&ah->lock);
      if (n <= 0)
        break;
      tail = (tail + 1) % AHEAD_DEPTH;
    }
  return NULL;
}

gboolean
weft_reader_start_read_ahead (WeftReader *self)
{
  Ahead *ah;

  g_return_val_if_fail (self != NULL, FALSE);
  if (self->ahead != NULL)
    return TRUE;
  if (self->setup_error != NULL || self->out_done > 0)
    return FALSE;
  ah = g_new0 (Ahead, 1);
  pthread_mutex_init (&ah->lock, NULL);
  pthread_cond_init (&ah->cond, NULL);
  ah->raw_done = weft_reader_raw_done (self);
  self->ahead = ah;
  if (pthread_create (&ah->thread, NULL, ahead_main, self) != 0)
    {
      self->ahead = NULL;
      pthread_cond_destroy (&ah->cond);
      pthread_mutex_destroy (&ah->lock);
      g_free (ah);
      return FALSE;
    }
  return TRUE;
}

static void
ahead_stop (WeftReader *self)
{
  Ahead *ah = self->ahead;

  if (ah == NULL)
    return;
  pthread_mutex_lock (&ah->lock);
  ah->quit = TRUE;
  pthread_cond_broadcast (&ah->cond);
  pthread_mutex_unlock (&ah->lock);
  pthread_join (ah->thread, NULL);
  for (guint i = 0; i < AHEAD_DEPTH; i++)
    {
      g_free (ah->ring[i].data);
      g_clear_error (&ah->ring[i].error);
    }
  g_clear_error (&ah->error);
  pthread_cond_destroy (&ah->cond);
  pthread_mutex_destroy (&ah->lock);
  g_free (ah);
  self->ahead = NULL;
}

/* weft_reader_read () from the ring: the same bytes, and the same error,
 * as reading on this thread; the buffer filled fully unless the data ends
 * (or the read fails: then nothing of this call counts, as without it). */
static gssize
ahead_read (WeftReader *self, char *buf, gsize len, GError **error)
{
  Ahead *ah = self->ahead;
  gsize got = 0;

  if (ah->error != NULL)
    {
      g_propagate_error (error, g_error_copy (ah->error));
      return -1;
    }
  pthread_mutex_lock (&ah->lock);
  while (got < len)
    {
      AheadChunk *c;
      gsize n;

      while (ah->count == 0)
        pthread_cond_wait (&ah->cond, &ah->lock);
      c = &ah->ring[ah->head];
      if (c->error != NULL)
        {
          ah->error = c->error;
          c->error = NULL;
          ah->raw_done = c->raw_done;
          pthread_mutex_unlock (&ah->lock);
          g_propagate_error (error, g_error_copy (ah->error));
          return -1;
        }
      if (c->pos == c->len && c->eof)
        {
          ah->raw_done = c->raw_done;
          break; /* stays: every later read returns 0 */
        }
      n = MIN (len - got, c->len - c->pos);
      pthread_mutex_unlock (&ah->lock);
      memcpy (buf + got, c->data + c->pos, n);
      got += n;
      pthread_mutex_lock (&ah->lock);
      c->pos += n;
      ah->raw_done = c->raw_done;
      if (c->pos == c->len && !c->eof)
        {
          ah->head = (ah->head + 1) % AHEAD_DEPTH;
          ah->count--;
          pthread_cond_broadcast (&ah->cond);
        }
    }
  pthread_mutex_unlock (&ah->lock);
  ah->out_done += got;
  return (gssize) got;
}

gssize
weft_reader_read (WeftReader *self, char *buf, gsize len, GError **error)
{
  if (self->ahead != NULL)
    return len == 0 ? 0 : ahead_read (self, buf, len, error);
  return reader_read_here (self, buf, len, error);
}
