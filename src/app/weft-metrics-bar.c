/* weft-metrics-bar.c: metric chips for the header bar.
 *
 * Step time, overlap % (overlapped / communication, HTA's definition),
 * exposed communication (communication with no compute beside it) and the
 * critical-path length of the chosen step, over all ranks, from the
 * solver; each with its delta against the first solve (the trace as
 * loaded), green when better and red when worse. */
#include "config.h"

#include <string.h>

#include "weft-app-util.h"
#include "weft-bubble-chip.h"
#include "weft-metrics-bar.h"

enum
{
  CHIP_STEP = 0,
  CHIP_OVERLAP,
  CHIP_EXPOSED,
  CHIP_CRITICAL,
  N_CHIPS
};

struct _WeftMetricsBar
{
  GtkWidget parent_instance;

  GtkWidget *box;
  GtkWidget *steps;            /* GtkDropDown */
  GtkWidget *chips[N_CHIPS];   /* GtkLabel */
  GtkWidget *bubble;           /* weft-bubble-chip.c: pipeline traces only */
  double     bubble_pct;       /* shown (mean over pipeline ranks), -1 none */

  WeftSolver *solver;          /* borrowed */
  GArray     *step_numbers;    /* int; index i+1 in the drop-down */
  gboolean    have;
  WeftMetrics now, base;
};

G_DEFINE_FINAL_TYPE (WeftMetricsBar, weft_metrics_bar, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_STEP_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const char *const chip_names[N_CHIPS] = { "Step", "Overlap", "Exposed comm", "Critical path" };
static const char *const chip_tips[N_CHIPS] = {
  "Step time: the iteration time, as torchtitan logs it and HTA reports it: the ProfilerStep#N span on the "
  "CPU (the longest rank), re-timed after edits (it moves with GPU-to-CPU syncs, and with GPU work of the step "
  "pushed past its end); without a ProfilerStep (whole trace), the GPU span",
  /* in parentheses: clang's -Wstring-concatenation takes a two-piece
   * literal among one-piece ones for a missing comma */
  ("Overlap %: time communication runs beside compute, divided by all communication time "
   "(HTA's definition), mean over ranks"),
  "Exposed communication: time only communication runs on the GPU (no compute beside it), mean over ranks",
  "Critical path: the chain of dependent work (across ranks) that sets the step time",
};

static char *
delta_markup (gint64 delta, gboolean lower_is_better, gboolean pct)
{
  const char *color;
  g_autofree char *text = NULL;

  if (delta == 0)
    return g_strdup ("");
  color = ((delta < 0) == lower_is_better) ? "#2ea043" : "#e5534b";
  if (pct)
    text = g_strdup_printf ("%+.1f pt", delta / 10.0);
  else
    text = weft_format_delta (delta);
  return g_strdup_printf (" <span foreground='%s' size='small'>%s</span>", color, text);
}

static void
set_chip (WeftMetricsBar *self, int chip, const char *value, const char *delta)
{
  g_autofree char *markup = g_strdup_printf ("<span size='small' alpha='65%%'>%s</span> <b>%s</b>%s",
                                             chip_names[chip], value, delta ? delta : "");
  g_autofree char *name = NULL;

  gtk_label_set_markup (GTK_LABEL (self->chips[chip]), markup);
  /* for screen readers: "Step: 12.3 ms +0.2 ms" (the text without markup) */
  name = g_strdup_printf ("%s:%s", chip_names[chip],
                          gtk_label_get_text (GTK_LABEL (self->chips[chip])) + strlen (chip_names[chip]));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->chips[chip]), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
}

static void
update_chips (WeftMetricsBar *self)
{
  int step = weft_metrics_bar_get_step (self);

  self->have = self->solver != NULL &&
               weft_solver_metrics (self->solver, WEFT_SOLVER_ALL_RANKS, step, &self->now) &&
               weft_solver_baseline_metrics (self->solver, WEFT_SOLVER_ALL_RANKS, step, &self->base);
  for (int i = 0; i < N_CHIPS; i++)
    gtk_widget_set_visible (self->chips[i], self->have);
  self->bubble_pct = weft_bubble_chip_update (self->bubble, self->have ? self->solver : NULL, step);
  gtk_widget_set_visible (self->steps, self->solver != NULL);
  if (!self->have)
    return;

  {
    g_autofree char *v = weft_format_duration (self->now.step_time);
    g_autofree char *d = delta_markup (self->now.step_time - self->base.step_time, TRUE, FALSE);
    g_autofree char *g = weft_format_duration (self->now.gpu_span);
    g_autofree char *gd = weft_format_delta (self->now.gpu_span - self->base.gpu_span);
    g_autofree char *tip = NULL;
    set_chip (self, CHIP_STEP, v, d);
    tip = g_strdup_printf ("%s\nHere: %s.\nGPU span (first GPU op start to last GPU op end of the step's ops, all "
                           "ranks): %s (%s)",
                           chip_tips[CHIP_STEP],
                           self->now.step_source == WEFT_STEP_TIME_PROFILER_STEP ? "the ProfilerStep span"
                                                                                 : "the GPU span (no ProfilerStep)",
                           g, self->now.gpu_span == self->base.gpu_span ? "as loaded" : gd);
    gtk_widget_set_tooltip_text (self->chips[CHIP_STEP], tip);
  }
  {
    g_autofree char *v = self->now.comm > 0 ? g_strdup_printf ("%.1f%%", self->now.overlap_pct) : g_strdup ("–");
    gint64 tenths = (gint64) (self->now.overlap_pct * 10 + 0.5) - (gint64) (self->base.overlap_pct * 10 + 0.5);
    g_autofree char *d = delta_markup (tenths, FALSE, TRUE);
    set_chip (self, CHIP_OVERLAP, v, d);
  }
  {
    g_autofree char *v = weft_format_duration (self->now.exposed_comm);
    g_autofree char *d = delta_markup (self->now.exposed_comm - self->base.exposed_comm, TRUE, FALSE);
    set_chip (self, CHIP_EXPOSED, v, d);
  }
  {
    g_autofree char *v = weft_format_duration (self->now.cp_length);
    g_autofree char *d = delta_markup (self->now.cp_length - self->base.cp_length, TRUE, FALSE);
    g_autofree char *tip = NULL;
    g_autofree char *c = weft_format_duration (self->now.cp_compute);
    g_autofree char *m = weft_format_duration (self->now.cp_comm);
    g_autofree char *l = weft_format_duration (self->now.cp_launch);
    g_autofree char *w = weft_format_duration (self->now.cp_wait);
    g_autofree char *i = weft_format_duration (self->now.cp_inferred);
    set_chip (self, CHIP_CRITICAL, v, d);
    tip = g_strdup_printf ("%s\n%u ops: compute %s, communication %s, launch/CPU %s, inferred %s (through edges "
                           "no event records: the op of the rank that ended last before), waiting %s",
                           chip_tips[CHIP_CRITICAL], self->now.cp_n_ops, c, m, l, i, w);
    gtk_widget_set_tooltip_text (self->chips[CHIP_CRITICAL], tip);
  }
}

static void
step_selected_cb (GObject *dropdown, GParamSpec *pspec, WeftMetricsBar *self)
{
  update_chips (self);
  g_signal_emit (self, signals[SIGNAL_STEP_CHANGED], 0);
}

void
weft_metrics_bar_set_solver (WeftMetricsBar *self, WeftSolver *solver)
{
  g_autoptr (GtkStringList) list = gtk_string_list_new (NULL);
  guint selected = 0;

  g_return_if_fail (WEFT_IS_METRICS_BAR (self));
  self->solver = solver;
  g_clear_pointer (&self->step_numbers, g_array_unref);
  gtk_string_list_append (list, "Whole trace");
  if (solver != NULL)
    {
      self->step_numbers = weft_solver_steps (solver);
      for (guint i = 0; i < self->step_numbers->len; i++)
        {
          g_autofree char *s = g_strdup_printf ("Step %d", g_array_index (self->step_numbers, int, i));
          gtk_string_list_append (list, s);
        }
      /* A profile of several steps: the first complete one is the usual
       * subject; a single step: that one. */
      if (self->step_numbers->len > 0)
        selected = 1;
    }
  g_signal_handlers_block_by_func (self->steps, step_selected_cb, self);
  gtk_drop_down_set_model (GTK_DROP_DOWN (self->steps), G_LIST_MODEL (list));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->steps), selected);
  g_signal_handlers_unblock_by_func (self->steps, step_selected_cb, self);
  update_chips (self);
  g_signal_emit (self, signals[SIGNAL_STEP_CHANGED], 0);
}

void
weft_metrics_bar_refresh (WeftMetricsBar *self)
{
  g_return_if_fail (WEFT_IS_METRICS_BAR (self));
  update_chips (self);
}

int
weft_metrics_bar_get_step (WeftMetricsBar *self)
{
  guint sel;

  g_return_val_if_fail (WEFT_IS_METRICS_BAR (self), WEFT_SOLVER_ALL_STEPS);
  sel = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->steps));
  if (self->step_numbers == NULL || sel == 0 || sel == GTK_INVALID_LIST_POSITION || sel > self->step_numbers->len)
    return WEFT_SOLVER_ALL_STEPS;
  return g_array_index (self->step_numbers, int, sel - 1);
}

GtkWidget *
weft_metrics_bar_get_step_drop (WeftMetricsBar *self)
{
  g_return_val_if_fail (WEFT_IS_METRICS_BAR (self), NULL);
  return self->steps;
}

gboolean
weft_metrics_bar_get_metrics (WeftMetricsBar *self, WeftMetrics *now, WeftMetrics *baseline)
{
  g_return_val_if_fail (WEFT_IS_METRICS_BAR (self), FALSE);
  if (!self->have)
    return FALSE;
  if (now != NULL)
    *now = self->now;
  if (baseline != NULL)
    *baseline = self->base;
  return TRUE;
}

static void
weft_metrics_bar_dispose (GObject *object)
{
  WeftMetricsBar *self = WEFT_METRICS_BAR (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_pointer (&self->step_numbers, g_array_unref);
  self->solver = NULL;
  G_OBJECT_CLASS (weft_metrics_bar_parent_class)->dispose (object);
}

static void
weft_metrics_bar_class_init (WeftMetricsBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = weft_metrics_bar_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "weft-metrics-bar");
  /* a live region: the chips change with every edit */
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_STATUS);

  signals[SIGNAL_STEP_CHANGED] = g_signal_new ("step-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                               NULL, NULL, G_TYPE_NONE, 0);
}

static void
weft_metrics_bar_init (WeftMetricsBar *self)
{
  self->box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, "Step metrics", -1);

  self->steps = gtk_drop_down_new_from_strings ((const char *const[]) { "Whole trace", NULL });
  gtk_widget_set_tooltip_text (self->steps, "The step the metrics are computed over");
  gtk_widget_set_valign (self->steps, GTK_ALIGN_CENTER);
  gtk_widget_set_visible (self->steps, FALSE);
  g_signal_connect (self->steps, "notify::selected", G_CALLBACK (step_selected_cb), self);
  gtk_box_append (GTK_BOX (self->box), self->steps);

  for (int i = 0; i < N_CHIPS; i++)
    {
      self->chips[i] = gtk_label_new (NULL);
      gtk_widget_add_css_class (self->chips[i], "weft-chip");
      gtk_widget_set_valign (self->chips[i], GTK_ALIGN_CENTER);
      gtk_widget_set_tooltip_text (self->chips[i], chip_tips[i]);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->chips[i]), GTK_ACCESSIBLE_PROPERTY_LABEL, chip_names[i],
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, chip_tips[i], -1);
      gtk_widget_set_visible (self->chips[i], FALSE);
      gtk_box_append (GTK_BOX (self->box), self->chips[i]);
    }
  self->bubble = weft_bubble_chip_new ();
  self->bubble_pct = -1;
  gtk_box_append (GTK_BOX (self->box), self->bubble);
}

double
weft_metrics_bar_get_bubble_pct (WeftMetricsBar *self)
{
  g_return_val_if_fail (WEFT_IS_METRICS_BAR (self), -1);
  return gtk_widget_get_visible (self->bubble) ? self->bubble_pct : -1;
}

GtkWidget *
weft_metrics_bar_new (void)
{
  return g_object_new (WEFT_TYPE_METRICS_BAR, NULL);
}
