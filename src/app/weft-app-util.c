/* weft-app-util.c: formatting helpers for the window. */
#include "config.h"

#include "weft-app-util.h"

char *
weft_format_duration (gint64 ns)
{
  gint64 a = ns < 0 ? -ns : ns;
  const char *sign = ns < 0 ? "−" : "";

  if (a < 1000)
    return g_strdup_printf ("%s%" G_GINT64_FORMAT " ns", sign, a);
  if (a < 1000000)
    return g_strdup_printf ("%s%.3f µs", sign, a / 1e3);
  if (a < 1000000000)
    return g_strdup_printf ("%s%.3f ms", sign, a / 1e6);
  return g_strdup_printf ("%s%.3f s", sign, a / 1e9);
}

char *
weft_format_delta (gint64 ns)
{
  gint64 a = ns < 0 ? -ns : ns;
  const char *sign = ns < 0 ? "−" : "+";

  if (ns == 0)
    return g_strdup ("±0");
  if (a < 1000)
    return g_strdup_printf ("%s%" G_GINT64_FORMAT " ns", sign, a);
  if (a < 1000000)
    return g_strdup_printf ("%s%.1f µs", sign, a / 1e3);
  if (a < 1000000000)
    return g_strdup_printf ("%s%.2f ms", sign, a / 1e6);
  return g_strdup_printf ("%s%.3f s", sign, a / 1e9);
}

char *
weft_format_bytes (gint64 bytes)
{
  if (bytes < 0)
    return g_strdup ("unknown");
  if (bytes < 1024)
    return g_strdup_printf ("%" G_GINT64_FORMAT " B", bytes);
  if (bytes < 1024 * 1024)
    return g_strdup_printf ("%.1f KiB", bytes / 1024.0);
  if (bytes < (gint64) 1024 * 1024 * 1024)
    return g_strdup_printf ("%.1f MiB", bytes / (1024.0 * 1024.0));
  return g_strdup_printf ("%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
}
