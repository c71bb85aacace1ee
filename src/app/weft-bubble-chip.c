/* weft-bubble-chip.c: the pipeline-bubble chip (see the header). */
#include "config.h"

#include "weft-app-util.h"
#include "weft-bubble-chip.h"

GtkWidget *
weft_bubble_chip_new (void)
{
  GtkWidget *chip = gtk_label_new (NULL);

  gtk_widget_add_css_class (chip, "weft-chip");
  gtk_widget_set_valign (chip, GTK_ALIGN_CENTER);
  gtk_widget_set_visible (chip, FALSE);
  return chip;
}

double
weft_bubble_chip_update (GtkWidget *chip, WeftSolver *solver, int step)
{
  g_autoptr (GString) tip = NULL;
  g_autofree char *markup = NULL;
  WeftTrace *trace;
  double sum = 0, mean;
  guint n = 0;

  g_return_val_if_fail (GTK_IS_LABEL (chip), -1);
  if (solver == NULL)
    {
      gtk_widget_set_visible (chip, FALSE);
      return -1;
    }
  trace = weft_solver_get_trace (solver);
  tip = g_string_new ("Pipeline bubble: the time in the step each stage's compute stream is idle waiting for "
                      "another stage (a P2P transfer or a collective spanning stages), mean over the pipeline "
                      "ranks\n");
  for (guint r = 0; r < trace->ranks->len; r++)
    {
      WeftBubble b;
      g_autofree char *d = NULL;
      if (!weft_solver_pipeline_bubble (solver, r, step, &b))
        continue;
      sum += b.bubble_pct;
      n++;
      if (n <= 16)
        {
          d = weft_format_duration (b.bubble);
          g_string_append_printf (tip, "\nrank %d: %.1f%% (%s)", weft_trace_rank (trace, r)->rank, b.bubble_pct, d);
        }
    }
  if (n > 16)
    g_string_append_printf (tip, "\n... and %u more ranks", n - 16);
  gtk_widget_set_visible (chip, n > 0);
  if (n == 0)
    return -1;
  mean = sum / n;
  markup = g_strdup_printf ("<span size='small' alpha='65%%'>Bubble</span> <b>%.1f%%</b>", mean);
  gtk_label_set_markup (GTK_LABEL (chip), markup);
  gtk_widget_set_tooltip_text (chip, tip->str);
  return mean;
}
