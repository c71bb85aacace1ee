/* pool.c: the painter's threads. A frame's independent pieces of work
 * that read only arrays (the folds of its depth rows, fold.c; the
 * samplers of its overlap bands, paint.c) are shared between the caller
 * and a process-wide pool; what they make is then drawn in order on the
 * caller's thread, so the pixels are those of doing them one after the
 * other (docs/rendering.md "Level of detail", threads). */
#include "config.h"

#include "render-private.h"

static guint        threads_forced; /* weft_render_set_fold_threads; 0: default */
static GMutex       pool_lock;
static GThreadPool *pool;

void
weft_render_set_fold_threads (guint n_threads)
{
  g_atomic_int_set ((gint *) &threads_forced, (gint) MIN (n_threads, 64));
}

static guint
threads_now (void)
{
  guint n = (guint) g_atomic_int_get ((gint *) &threads_forced);
  return n != 0 ? n : CLAMP (g_get_num_processors (), 1, 8);
}

/* Tasks shared with the pool: taken in order from next, done counted under
 * lock. A worker that starts after every task was taken touches only next,
 * so the caller waits for the tasks, not for the workers; the batch is
 * freed by its last reference. */
typedef struct
{
  gint           ref;
  WeftRenderTask run;
  gpointer       data;
  const guint   *order;
  guint          n;
  gint           next;
  GMutex         lock;
  GCond          cond;
  guint          done;
} Batch;

static void
batch_unref (Batch *b)
{
  if (!g_atomic_int_dec_and_test (&b->ref))
    return;
  g_mutex_clear (&b->lock);
  g_cond_clear (&b->cond);
  g_free (b);
}

static void
batch_drain (Batch *b)
{
  for (;;)
    {
      guint k = (guint) g_atomic_int_add (&b->next, 1);
      if (k >= b->n)
        return;
      b->run (b->data, b->order[k]);
      g_mutex_lock (&b->lock);
      if (++b->done == b->n)
        g_cond_signal (&b->cond);
      g_mutex_unlock (&b->lock);
    }
}

static void
pool_func (gpointer data, gpointer user_data)
{
  Batch *b = data;
  (void) user_data;
  batch_drain (b);
  batch_unref (b);
}

/* The pool with room for n workers; NULL when none could be made. */
static GThreadPool *
pool_get (guint n)
{
  GThreadPool *tp;
  g_mutex_lock (&pool_lock);
  if (pool == NULL)
    pool = g_thread_pool_new (pool_func, NULL, (gint) n, FALSE, NULL);
  else if ((guint) g_thread_pool_get_max_threads (pool) != n)
    g_thread_pool_set_max_threads (pool, (gint) n, NULL);
  tp = pool;
  g_mutex_unlock (&pool_lock);
  return tp;
}

guint
weft_render_threads (void)
{
  return threads_now ();
}

guint
weft_render_run_tasks (WeftRenderTask run, gpointer data, const guint *order, guint n)
{
  guint threads = threads_now (), workers;
  GThreadPool *tp;
  Batch *b;

  if (threads < 2 || n < 2 || (tp = pool_get (threads - 1)) == NULL)
    {
      for (guint k = 0; k < n; k++)
        run (data, order[k]);
      return 0;
    }
  b = g_new0 (Batch, 1);
  workers = MIN (threads - 1, n - 1);
  b->run = run;
  b->data = data;
  b->order = order;
  b->n = n;
  g_mutex_init (&b->lock);
  g_cond_init (&b->cond);
  b->ref = 1;
  for (guint w = 0; w < workers; w++)
    {
      g_atomic_int_inc (&b->ref);
      if (!g_thread_pool_push (tp, b, NULL))
        batch_unref (b);
    }
  batch_drain (b);
  g_mutex_lock (&b->lock);
  while (b->done < b->n)
    g_cond_wait (&b->cond, &b->lock);
  g_mutex_unlock (&b->lock);
  batch_unref (b);
  return n;
}
