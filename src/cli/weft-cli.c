/* weft-cli: headless Weft (info, convert, analyze, render, edit, compose). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "weft/weft.h"

static const WeftCommand commands[] = {
  /* Each subcommand adds its row here. */
  { "version", "print the version", weft_cmd_version },
  { "compose", "simulate a DDP/FSDP/TP/EP/CP step and write per-rank Kineto traces", weft_cmd_compose },
  { "render", "paint the timeline to a PNG, SVG or PDF picture", weft_cmd_render },
  { "analyze", "step metrics, overlap, critical path across ranks, collective waiting and stragglers", weft_cmd_analyze },
  { "diff", "compare two traces: step metrics, per rank, per kernel class and collective, matched ops", weft_cmd_diff },
  { "info", "summarise a trace (ranks, lanes, kernels, collectives, steps)", weft_cmd_info },
  { "convert", "re-write a trace as .json, .json.gz or .json.zst", weft_cmd_convert },
  { "sample", "write a small generated N-rank Kineto trace", weft_cmd_sample },
  { "edit", "apply an edit script (move, retime, insert, delete) and save the edited trace", weft_cmd_edit },
  { "apply", "apply a DDP/FSDP/TP/EP/CP strategy to a real profile: collectives around its blocks", weft_cmd_apply },
};

int
weft_cli_fail (const char *format, ...)
{
  va_list args;
  char *msg;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "weft-cli: %s\n", msg);
  g_free (msg);
  return WEFT_EXIT_BAD_INPUT;
}

gboolean
weft_cli_parse_format (const char *text, const char **ext)
{
  if (text == NULL || strcmp (text, "json") == 0 || strcmp (text, ".json") == 0)
    *ext = ".json";
  else if (strcmp (text, "json.gz") == 0 || strcmp (text, "gz") == 0 || strcmp (text, ".json.gz") == 0)
    *ext = ".json.gz";
  else if (strcmp (text, "json.zst") == 0 || strcmp (text, "zst") == 0 || strcmp (text, ".json.zst") == 0)
    *ext = ".json.zst";
  else
    return FALSE;
  return TRUE;
}

int
weft_cmd_version (int argc, char **argv)
{
  if (argc >= 2 && (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0))
    {
      printf ("Usage:\n  weft-cli version\n\nPrint the version of weft-cli (also: weft-cli --version).\n");
      return WEFT_EXIT_OK;
    }
  printf ("weft-cli %s\n", WEFT_VERSION_STRING);
  return WEFT_EXIT_OK;
}

static void
usage (FILE *out)
{
  fprintf (out, "Usage: weft-cli COMMAND [OPTIONS...]\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\nRun 'weft-cli help COMMAND' (or 'weft-cli COMMAND --help') for a command's options.\n"
                "Exit status: 0 success, 1 failure (e.g. writing), 2 bad input or bad usage.\n");
}

static const WeftCommand *
find_command (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (name, commands[i].name) == 0)
      return &commands[i];
  return NULL;
}

/* `weft-cli help CMD`: the same text as `weft-cli CMD --help` (GOption
 * prints it and exits 0). */
static int
help_command (const char *name)
{
  const WeftCommand *cmd = find_command (name);
  char *args[] = { (char *) name, (char *) "--help", NULL };
  g_autofree char *prgname = NULL;

  if (cmd == NULL)
    {
      fprintf (stderr, "weft-cli: help: unknown command '%s'\n\n", name);
      usage (stderr);
      return WEFT_EXIT_BAD_INPUT;
    }
  prgname = g_strdup_printf ("weft-cli %s", cmd->name);
  g_set_prgname (prgname);
  return cmd->func (2, args);
}

int
main (int argc, char **argv)
{
  const WeftCommand *cmd;

  if (argc < 2)
    {
      usage (stderr);
      return WEFT_EXIT_BAD_INPUT;
    }
  if (strcmp (argv[1], "help") == 0 && argc >= 3)
    return help_command (argv[2]);
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0)
    {
      usage (stdout);
      return WEFT_EXIT_OK;
    }
  if (strcmp (argv[1], "--version") == 0)
    return weft_cmd_version (argc - 1, argv + 1);
  cmd = find_command (argv[1]);
  if (cmd != NULL)
    {
      /* the usage line of its --help: "weft-cli CMD [OPTION…] ..." */
      g_autofree char *prgname = g_strdup_printf ("weft-cli %s", cmd->name);
      g_set_prgname (prgname);
      return cmd->func (argc - 1, argv + 1);
    }
  fprintf (stderr, "weft-cli: unknown command '%s'\n\n", argv[1]);
  usage (stderr);
  return WEFT_EXIT_BAD_INPUT;
}
