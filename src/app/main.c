/* main.c: entry point of weft, the desktop application. */
#include "config.h"

#include <locale.h>

#include "weft-application.h"

int
main (int argc, char **argv)
{
  g_autoptr (WeftApplication) app = NULL;

  setlocale (LC_ALL, "");
  weft_app_mark_start ();
  app = weft_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
