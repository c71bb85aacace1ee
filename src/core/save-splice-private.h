/* save-splice-private.h: walking the text of an event object the loader
 * has validated, for the writers that splice new values into it (save.c's
 * edited events, save-merge.c's merged file): whitespace, strings and
 * whole values skipped. Every function returns an index <= len. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

static inline gsize
_weft_save_skip_ws (const char *t, gsize i, gsize len)
{
  while (i < len && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t'))
    i++;
  return i;
}

/* End of the string starting at the quote t[i]; len when unterminated. */
static inline gsize
_weft_save_skip_string (const char *t, gsize i, gsize len)
{
  for (i++; i < len; i++)
    {
      if (t[i] == '\\')
        i++;
      else if (t[i] == '"')
        return i + 1;
    }
  return len;
}

/* End of the JSON value starting at t[i]. */
static inline gsize
_weft_save_skip_value (const char *t, gsize i, gsize len)
{
  if (i >= len)
    return len;
  if (t[i] == '"')
    return _weft_save_skip_string (t, i, len);
  if (t[i] == '{' || t[i] == '[')
    {
      int depth = 0;
      for (; i < len; i++)
        {
          if (t[i] == '"')
            {
              i = _weft_save_skip_string (t, i, len) - 1;
              continue;
            }
          if (t[i] == '{' || t[i] == '[')
            depth++;
          else if ((t[i] == '}' || t[i] == ']') && --depth == 0)
            return i + 1;
        }
      return len;
    }
  while (i < len && t[i] != ',' && t[i] != '}' && t[i] != ']' && t[i] != ' ' && t[i] != '\n' && t[i] != '\r' &&
         t[i] != '\t')
    i++;
  return i;
}

G_END_DECLS
