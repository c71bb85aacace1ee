#include "config.h"

#include <glib/gstdio.h>
#include <stdlib.h>

#include "testutil.h"

char *
weft_test_trace_path (const char *relative)
{
  const char *dir = g_getenv ("WEFT_TRACES_DIR");
  char *path;

  if (dir == NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    return NULL;
  path = g_build_filename (dir, relative, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_free (path);
      return NULL;
    }
  return path;
}

char *
weft_test_require_trace (const char *relative)
{
  char *path = weft_test_trace_path (relative);
  if (path == NULL)
    {
      char *msg = g_strdup_printf ("shared trace %s not found (WEFT_TRACES_DIR=%s): skipped", relative,
                                   g_getenv ("WEFT_TRACES_DIR") ? g_getenv ("WEFT_TRACES_DIR") : "(unset)");
      g_test_skip (msg);
      g_free (msg);
    }
  return path;
}

static char *tmpdir;

static void
remove_tree (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir != NULL)
    {
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          char *child = g_build_filename (path, name, NULL);
          if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
            remove_tree (child);
          else
            g_unlink (child);
          g_free (child);
        }
      g_dir_close (dir);
    }
  g_rmdir (path);
}

static void
cleanup_tmpdir (void)
{
  if (tmpdir != NULL && g_getenv ("WEFT_KEEP_TMP") == NULL)
    remove_tree (tmpdir);
  g_free (tmpdir);
  tmpdir = NULL;
}

const char *
weft_test_tmpdir (void)
{
  if (tmpdir == NULL)
    {
      tmpdir = g_dir_make_tmp ("weft-test-XXXXXX", NULL);
      g_assert_nonnull (tmpdir);
      atexit (cleanup_tmpdir);
    }
  return tmpdir;
}

char *
weft_test_build_path (const char *program)
{
  const char *dir = g_getenv ("WEFT_BUILD_DIR");
  return g_build_filename (dir ? dir : ".", program, NULL);
}

char *
weft_test_write_file (const char *name, const char *data, gssize len)
{
  char *path = g_build_filename (weft_test_tmpdir (), name, NULL);
  GError *error = NULL;
  char *parent = g_path_get_dirname (path);

  g_mkdir_with_parents (parent, 0755);
  g_free (parent);
  if (!g_file_set_contents (path, data, len, &error))
    g_error ("writing %s: %s", path, error->message);
  return path;
}
