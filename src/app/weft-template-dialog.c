/* weft-template-dialog.c: New from Template.
 *
 * Left: the composer's parameters (weft-compose.h): strategies (DDP, FSDP,
 * TP, SP, EP, CP, PP), degrees (dp, tp, ep, cp, HSDP replicas, pp stages),
 * the pipeline schedule (the composer's list, weft_compose_pp_schedule_name),
 * its microbatches and stages per rank, model preset,
 * layers, sequence, micro-batch, hardware, options (FSDP prefetch and
 * reshard-after-forward, DDP bucket size, EP two-chunk overlap, CP mode).
 * A degree is used only when its strategy is ticked (else 1).
 *
 * Every change is validated at once (weft_compose_params_validate(); the
 * message, worded for the window, is shown beside Create, which is
 * disabled), then,
 * debounced, composed in a GTask thread: weft_compose_trace() (the real
 * loader), an edit session (which builds and solves the dependency graph),
 * the whole-step metrics and a render layout. One compose runs at a time;
 * changes made meanwhile are composed when it ends (only the latest).
 *
 * Right: the preview: metric chips (step time, overlap %, exposed
 * communication, communication, ranks, peak memory, and with PP the mean
 * pipeline bubble, as the window's chip computes it) and a small timeline painted with
 * weft-render into a GtkDrawingArea (rank 0 with its lanes, the other ranks
 * collapsed to their overlap band).
 *
 * Create hands the previewed session (trace + solver, nothing recomposed)
 * to the "created" handler; when the preview is not up to date yet it waits
 * for it.
 *
 * For tests: with WEFT_TEST_STATE=FILE the dialog writes FILE.template.json
 * after every state change; with WEFT_TEST_SCREENSHOT=X.png it writes
 * X-template.png after each new preview is drawn and on Ctrl+Shift+F12. */
#include "config.h"

#include <glib/gstdio.h>
#include <json-c/json.h>
#include <string.h>

#include "weft/weft-compose.h"
#include "weft/weft-edit.h"
#include "weft/weft-render.h"
#include "weft/weft-solver.h"
#include "weft-app-util.h"
#include "weft-application.h"
#include "weft-bubble-chip.h"
#include "weft-template-dialog.h"
#include "weft-window.h"

#define DEBOUNCE_MS   120
#define HEADER_WIDTH  170.0

enum
{
  S_DDP = 0,
  S_FSDP,
  S_TP,
  S_SP,
  S_EP,
  S_CP,
  S_PP,
  N_STRATEGIES
};

enum
{
  CHIP_STEP = 0,
  CHIP_OVERLAP,
  CHIP_EXPOSED,
  CHIP_COMM,
  CHIP_RANKS,
  CHIP_MEMORY,
  N_CHIPS
};

/* A composed, solved step and what the preview paints. */
typedef struct
{
  WeftComposeParams params;
  guint             serial;
  WeftEditSession  *session;
  WeftView          view;
  WeftLayout       *layout;
  WeftMetrics       m;
  gboolean          have_metrics;
  int               world;
  gint64            compose_us;
  gint64            solve_us;
  char             *name;
  gint64            peak_memory;    /* bytes, largest over ranks ("Total Reserved"); 0: none */
  int               peak_rank;
  int               step;           /* the step the figures are of */
} Preview;

/* Kernel durations measured in the open trace, shared with compose threads
 * (an atomic rc box: a thread may outlive the dialog). */
typedef struct
{
  WeftKernelTimes *kt;
} KernelTimes;

static void
kernel_times_clear (gpointer data)
{
  KernelTimes *k = data;
  g_clear_pointer (&k->kt, weft_kernel_times_free);
}

static void
kernel_times_unref (KernelTimes *k)
{
  if (k != NULL)
    g_atomic_rc_box_release_full (k, kernel_times_clear);
}

typedef struct
{
  WeftComposeParams params;
  guint             serial;
  KernelTimes      *kt;     /* a reference, or NULL */
} Request;

static void
request_free (gpointer data)
{
  Request *req = data;
  kernel_times_unref (req->kt);
  g_free (req);
}

struct _WeftTemplateDialog
{
  GtkWindow parent_instance;

  GtkWidget *strategy[N_STRATEGIES];
  GtkWidget *dp, *tp, *ep, *cp, *hsdp, *pp;
  GtkWidget *pp_schedule, *microbatches, *pp_stages;
  GtkWidget *preset, *hw, *layers, *seq, *mbs;
  GtkWidget *prefetch, *reshard, *bucket, *ep_overlap, *cp_mode;
  GtkWidget *calibrate, *calibrate_info;

  /* measured in the open trace (when the parent window has one) */
  KernelTimes *kt;
  guint        n_shapes;
  gboolean     have_eff[2];     /* per hardware preset (efficiency is relative to its peak) */
  WeftComputeEfficiency eff[2];
  GtkWidget *error_label;
  GtkWidget *chips[N_CHIPS];
  GtkWidget *bubble;        /* weft-bubble-chip.c: with PP */
  double     bubble_pct;    /* shown, -1: none */
  GtkWidget *timing;
  GtkWidget *area;
  GtkWidget *create;
  GtkWidget *keep;
  GtkWidget *spinner;

  gboolean  updating;       /* setting widgets from code: no change events */
  gboolean  valid;
  char     *error;
  guint     serial;         /* of the parameters now in the form */
  guint     failed_serial;  /* the composer refused these (0: none) */
  gboolean  prefilled;      /* the form holds the open (composed) trace's parameters */
  guint     debounce;
  gboolean  running;        /* a compose is in its thread */
  gboolean  create_pending; /* Create pressed: create when the preview is up to date */
  gboolean  disposed;
  Preview  *current;        /* the preview shown */
  Preview  *kept;           /* Keep as A: the configuration Create Compared opens as A */
  guint     n_previews;
  guint64   frames;

  char     *state_path;
  char     *screenshot_path;
  guint     state_idle;
  gboolean  shot_pending;
  guint     n_screenshots;
};

G_DEFINE_FINAL_TYPE (WeftTemplateDialog, weft_template_dialog, GTK_TYPE_WINDOW)

enum
{
  SIGNAL_CREATED,
  SIGNAL_CREATED_COMPARED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const char *const strategy_labels[N_STRATEGIES] = { "_DDP", "_FSDP", "_TP", "_SP", "_EP", "C_P", "Pipeli_ne (PP)" };
static const char *const strategy_tips[N_STRATEGIES] = {
  "DDP: bucketed all-reduce of the gradients, overlapping backward",
  "FSDP2: per-block all-gather of the parameters (own stream, prefetched), reduce-scatter of the gradients",
  "Tensor parallel: all-reduces after the row-parallel GEMMs, on the critical path",
  "Sequence parallel (with TP): all-gather + reduce-scatter instead of the all-reduces",
  "Expert parallel (MoE): count, dispatch and combine all-to-alls and a device-to-host sync per MoE layer",
  "Context parallel: the sequence split over cp ranks, K/V all-gathered or passed around a ring",
  "Pipeline parallel: the layers split over pp stages (ranks, outermost), microbatches sent on (isend/irecv)",
};
static const char *const cp_modes[] = { "all-gather", "ring", NULL };

static void schedule_state (WeftTemplateDialog *self);
static void start_compose (WeftTemplateDialog *self);

static void
preview_free (gpointer data)
{
  Preview *p = data;

  if (p == NULL)
    return;
  g_clear_pointer (&p->layout, weft_layout_free);
  weft_view_clear (&p->view);
  g_clear_pointer (&p->session, weft_edit_session_free);
  g_free (p->name);
  g_free (p);
}

/* ---- parameters ---------------------------------------------------------------- */

static gboolean
active (GtkWidget *check)
{
  return gtk_check_button_get_active (GTK_CHECK_BUTTON (check));
}

static int
spin_value (GtkWidget *spin)
{
  return gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (spin));
}

/* The form as composer parameters; FALSE with the reason when they are not
 * valid (weft_compose_params_validate). */
static gboolean
collect_params (WeftTemplateDialog *self, WeftComposeParams *p, GError **error)
{
  const char *const *presets = weft_compose_preset_names ();
  const char *const *hws = weft_hardware_preset_names ();
  guint preset = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->preset));
  guint hw = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->hw));
  gboolean dp_used = active (self->strategy[S_DDP]) || active (self->strategy[S_FSDP]);

  weft_compose_params_init (p);
  if (preset != GTK_INVALID_LIST_POSITION && preset < g_strv_length ((char **) presets) &&
      !weft_compose_params_set_preset (p, presets[preset], error))
    return FALSE;
  if (hw != GTK_INVALID_LIST_POSITION && hw < g_strv_length ((char **) hws) &&
      !weft_compose_params_set_hardware (p, hws[hw], error))
    return FALSE;
  p->strategies = 0;
  if (active (self->strategy[S_DDP]))
    p->strategies |= WEFT_STRATEGY_DDP;
  if (active (self->strategy[S_FSDP]))
    p->strategies |= WEFT_STRATEGY_FSDP;
  if (active (self->strategy[S_TP]))
    p->strategies |= WEFT_STRATEGY_TP;
  if (active (self->strategy[S_EP]))
    p->strategies |= WEFT_STRATEGY_EP;
  if (active (self->strategy[S_CP]))
    p->strategies |= WEFT_STRATEGY_CP;
  if (active (self->strategy[S_PP]))
    {
      guint sched = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->pp_schedule));
      const char *name = sched != GTK_INVALID_LIST_POSITION ? weft_compose_pp_schedule_name (sched) : NULL;
      p->strategies |= WEFT_STRATEGY_PP;
      p->pp = spin_value (self->pp);
      if (name != NULL && !weft_compose_parse_pp_schedule (name, &p->pp_schedule, error))
        return FALSE;
      p->microbatches = spin_value (self->microbatches);
      p->pp_stages_per_rank = spin_value (self->pp_stages);
    }
  p->dp = dp_used ? spin_value (self->dp) : 1;
  p->tp = active (self->strategy[S_TP]) ? spin_value (self->tp) : 1;
  p->ep = active (self->strategy[S_EP]) ? spin_value (self->ep) : 1;
  p->cp = active (self->strategy[S_CP]) ? spin_value (self->cp) : 1;
  p->dp_replicate = active (self->strategy[S_FSDP]) ? spin_value (self->hsdp) : 1;
  p->sequence_parallel = active (self->strategy[S_TP]) && active (self->strategy[S_SP]);
  p->model.layers = spin_value (self->layers);
  p->model.seq = spin_value (self->seq);
  p->model.mbs = spin_value (self->mbs);
  p->fsdp_prefetch = active (self->prefetch);
  p->reshard_after_forward = active (self->reshard);
  p->ddp_bucket_mb = gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->bucket));
  p->ep_overlap = active (self->ep_overlap);
  p->cp_mode = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->cp_mode)) == 1 ? WEFT_CP_RING : WEFT_CP_ALL_GATHER;
  if (active (self->calibrate))
    {
      if (self->kt != NULL)
        p->kernel_times = self->kt->kt;
      if (hw < G_N_ELEMENTS (self->have_eff) && self->have_eff[hw])
        p->eff = self->eff[hw];
    }
  return weft_compose_params_validate (p, error);
}

static char *
params_name (const WeftComposeParams *p)
{
  g_autofree char *s = weft_compose_strategies_to_string (p->strategies);
  return g_strdup_printf ("%s-%s-%dranks (new)", s, p->model.name, weft_compose_world_size (p));
}

/* Only the widgets that matter for the ticked strategies are sensitive. */
static void
update_sensitivity (WeftTemplateDialog *self)
{
  gboolean ddp = active (self->strategy[S_DDP]);
  gboolean fsdp = active (self->strategy[S_FSDP]);
  gboolean tp = active (self->strategy[S_TP]);
  gboolean ep = active (self->strategy[S_EP]);
  gboolean cp = active (self->strategy[S_CP]);
  gboolean pp = active (self->strategy[S_PP]);

  gtk_widget_set_sensitive (self->dp, ddp || fsdp);
  gtk_widget_set_sensitive (self->tp, tp);
  gtk_widget_set_sensitive (self->strategy[S_SP], tp);
  gtk_widget_set_sensitive (self->ep, ep);
  gtk_widget_set_sensitive (self->cp, cp);
  gtk_widget_set_sensitive (self->hsdp, fsdp);
  gtk_widget_set_sensitive (self->prefetch, fsdp);
  gtk_widget_set_sensitive (self->reshard, fsdp);
  gtk_widget_set_sensitive (self->bucket, ddp);
  gtk_widget_set_sensitive (self->ep_overlap, ep);
  gtk_widget_set_sensitive (self->cp_mode, cp);
  gtk_widget_set_sensitive (self->pp, pp);
  gtk_widget_set_sensitive (self->pp_schedule, pp);
  gtk_widget_set_sensitive (self->microbatches, pp);
  gtk_widget_set_sensitive (self->pp_stages, pp);
}

static void
update_create (WeftTemplateDialog *self)
{
  gtk_widget_set_sensitive (self->create, self->valid && !self->create_pending);
  gtk_widget_set_sensitive (self->keep, self->valid && !self->create_pending && self->current != NULL &&
                                          self->current->serial == self->serial && self->debounce == 0);
  gtk_spinner_set_spinning (GTK_SPINNER (self->spinner), self->running || self->debounce != 0);
}

/* ---- test state and screenshot ------------------------------------------------------ */

static void
take_screenshot (WeftTemplateDialog *self)
{
  g_autoptr (GError) error = NULL;

  if (self->screenshot_path == NULL)
    return;
  if (weft_native_save_png (GTK_NATIVE (self), "dialog", self->screenshot_path, &error))
    self->n_screenshots++;
  else
    g_warning ("WEFT_TEST_SCREENSHOT (template): %s", error->message);
  schedule_state (self);
}

static void
add_int64 (json_object *o, const char *key, gint64 v)
{
  json_object_object_add (o, key, json_object_new_int64 (v));
}

static void
write_state (WeftTemplateDialog *self, gboolean open)
{
  json_object *root = json_object_new_object ();
  g_autoptr (GError) error = NULL;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  json_object_object_add (root, "open", json_object_new_boolean (open));
  json_object_object_add (root, "valid", json_object_new_boolean (self->valid));
  json_object_object_add (root, "error", self->error != NULL ? json_object_new_string (self->error) : NULL);
  json_object_object_add (root, "error_shown", json_object_new_boolean (gtk_widget_get_visible (self->error_label)));
  json_object_object_add (root, "error_text", json_object_new_string (gtk_label_get_text (GTK_LABEL (self->error_label))));
  {
    /* where the explanation and Create are, inside the dialog (its size too) */
    graphene_rect_t b;
    json_object *o;
    GtkWidget *widgets[] = { self->error_label, self->create };
    const char *keys[] = { "error_box", "create_box" };
    for (guint i = 0; i < 2; i++)
      if (gtk_widget_get_mapped (widgets[i]) && gtk_widget_compute_bounds (widgets[i], GTK_WIDGET (self), &b))
        {
          o = json_object_new_object ();
          json_object_object_add (o, "x", json_object_new_int ((int) b.origin.x));
          json_object_object_add (o, "y", json_object_new_int ((int) b.origin.y));
          json_object_object_add (o, "w", json_object_new_int ((int) b.size.width));
          json_object_object_add (o, "h", json_object_new_int ((int) b.size.height));
          json_object_object_add (root, keys[i], o);
        }
    json_object_object_add (root, "width", json_object_new_int (gtk_widget_get_width (GTK_WIDGET (self))));
    json_object_object_add (root, "height", json_object_new_int (gtk_widget_get_height (GTK_WIDGET (self))));
  }
  json_object_object_add (root, "busy", json_object_new_boolean (self->running || self->debounce != 0));
  json_object_object_add (root, "create_sensitive", json_object_new_boolean (gtk_widget_get_sensitive (self->create)));
  json_object_object_add (root, "keep_sensitive", json_object_new_boolean (gtk_widget_get_sensitive (self->keep)));
  json_object_object_add (root, "kept", self->kept != NULL ? json_object_new_string (self->kept->name) : NULL);
  json_object_object_add (root, "focus", json_object_new_string (focus != NULL ? G_OBJECT_TYPE_NAME (focus) : ""));
  add_int64 (root, "serial", self->serial);
  add_int64 (root, "previews", self->n_previews);
  add_int64 (root, "frames", (gint64) self->frames);
  add_int64 (root, "screenshots", self->n_screenshots);
  add_int64 (root, "dp", spin_value (self->dp));
  json_object_object_add (root, "prefilled", json_object_new_boolean (self->prefilled));
  json_object_object_add (root, "calibrate", json_object_new_boolean (active (self->calibrate)));
  json_object_object_add (root, "calibrate_available", json_object_new_boolean (gtk_widget_get_sensitive (self->calibrate)));
  add_int64 (root, "calibrate_shapes", self->n_shapes);
  if (self->current != NULL)
    {
      Preview *p = self->current;
      json_object *o = json_object_new_object ();
      add_int64 (o, "serial", p->serial);
      json_object_object_add (o, "up_to_date", json_object_new_boolean (p->serial == self->serial));
      json_object_object_add (o, "name", json_object_new_string (p->name));
      add_int64 (o, "world", p->world);
      add_int64 (o, "n_ranks", weft_edit_session_get_trace (p->session)->ranks->len);
      add_int64 (o, "rows", weft_layout_get_n_rows (p->layout));
      add_int64 (o, "compose_ms", p->compose_us / 1000);
      add_int64 (o, "solve_ms", p->solve_us / 1000);
      if (p->have_metrics)
        {
          add_int64 (o, "step_time", p->m.step_time);
          json_object_object_add (o, "overlap_pct", json_object_new_double (p->m.overlap_pct));
          add_int64 (o, "exposed_comm", p->m.exposed_comm);
          add_int64 (o, "comm", p->m.comm);
        }
      json_object_object_add (o, "peak_memory_gib", json_object_new_double (p->peak_memory / 1073741824.0));
      json_object_object_add (o, "device_memory_gib",
                              json_object_new_double (p->params.hw.hbm_total_bytes / 1073741824.0));
      json_object_object_add (o, "memory_over", json_object_new_boolean (p->params.hw.hbm_total_bytes > 0 &&
                                                                         p->peak_memory > p->params.hw.hbm_total_bytes));
      json_object_object_add (o, "memory_chip", json_object_new_string (gtk_label_get_label (GTK_LABEL (self->chips[CHIP_MEMORY]))));
      json_object_object_add (o, "bubble_pct", json_object_new_double (self->bubble_pct));
      json_object_object_add (o, "params", weft_compose_params_to_json (&p->params));
      json_object_object_add (o, "pp_schedule", p->params.pp > 1 ? json_object_new_string (
                                                    weft_compose_pp_schedule_to_string (p->params.pp_schedule)) : NULL);
      add_int64 (o, "microbatches", p->params.pp > 1 ? weft_compose_pp_microbatches (&p->params) : 0);
      json_object_object_add (root, "preview", o);
    }
  if (!g_file_set_contents (self->state_path, json_object_to_json_string_ext (root, JSON_C_TO_STRING_PRETTY), -1,
                            &error))
    g_warning ("WEFT_TEST_STATE (template): %s", error->message);
  json_object_put (root);
}

static gboolean
state_idle_cb (gpointer data)
{
  WeftTemplateDialog *self = data;

  self->state_idle = 0;
  write_state (self, TRUE);
  return G_SOURCE_REMOVE;
}

static void
schedule_state (WeftTemplateDialog *self)
{
  if (self->state_path == NULL || self->state_idle != 0 || self->disposed)
    return;
  self->state_idle = g_idle_add_full (G_PRIORITY_LOW, state_idle_cb, self, NULL);
}

/* ---- preview ------------------------------------------------------------------------- */

static void
set_chip (WeftTemplateDialog *self, int chip, const char *name, const char *value)
{
  g_autofree char *markup = g_markup_printf_escaped ("<span alpha='70%%'>%s</span> <b>%s</b>", name, value);
  gtk_label_set_markup (GTK_LABEL (self->chips[chip]), markup);
}

/* The predicted peak memory (largest over ranks), red when it does not
 * fit the hardware preset's GPU memory. */
static void
show_memory (WeftTemplateDialog *self, const Preview *p)
{
  GtkWidget *chip = self->chips[CHIP_MEMORY];
  gint64 hbm = p->params.hw.hbm_total_bytes;
  g_autofree char *tip = NULL;

  if (p->peak_memory <= 0)
    {
      gtk_label_set_text (GTK_LABEL (chip), "");
      gtk_widget_set_tooltip_text (chip, NULL);
      return;
    }
  if (hbm > 0 && p->peak_memory > hbm)
    {
      g_autofree char *markup =
        g_markup_printf_escaped ("<span alpha='70%%'>Peak memory</span> <span foreground='#c01c28'><b>%.1f GiB</b> "
                                 "&gt; %.0f GiB</span>",
                                 p->peak_memory / 1073741824.0, hbm / 1073741824.0);
      gtk_label_set_markup (GTK_LABEL (chip), markup);
    }
  else
    {
      g_autofree char *value = g_strdup_printf ("%.1f GiB", p->peak_memory / 1073741824.0);
      set_chip (self, CHIP_MEMORY, "Peak memory", value);
    }
  tip = g_strdup_printf ("Predicted peak memory: %.2f GiB reserved by the caching allocator on rank %d (the "
                         "largest over ranks); the GPU (%s) has %.1f GiB%s",
                         p->peak_memory / 1073741824.0, p->peak_rank,
                         p->params.hw.device_name != NULL ? p->params.hw.device_name : "?", hbm / 1073741824.0,
                         hbm > 0 && p->peak_memory > hbm ? ": it does not fit" : "");
  gtk_widget_set_tooltip_text (chip, tip);
}

static void
show_metrics (WeftTemplateDialog *self)
{
  Preview *p = self->current;

  if (p == NULL || !p->have_metrics)
    {
      for (int i = 0; i < N_CHIPS; i++)
        gtk_label_set_text (GTK_LABEL (self->chips[i]), "");
      self->bubble_pct = weft_bubble_chip_update (self->bubble, NULL, 0);
      gtk_label_set_text (GTK_LABEL (self->timing), p == NULL ? "Composing…" : "The composed step has no GPU work");
      return;
    }
  {
    g_autofree char *step = weft_format_duration (p->m.step_time);
    g_autofree char *overlap = g_strdup_printf ("%.1f %%", p->m.overlap_pct);
    g_autofree char *exposed = weft_format_duration (p->m.exposed_comm);
    g_autofree char *comm = weft_format_duration (p->m.comm);
    g_autofree char *ranks = g_strdup_printf ("%d", p->world);
    g_autofree char *timing = g_strdup_printf ("%s: composed in %.0f ms, solved in %.0f ms. Rank 0 with its "
                                               "lanes; the other ranks as their overlap band (blue: compute only, "
                                               "green: compute beside communication, red: exposed communication).",
                                               p->name, p->compose_us / 1000.0, p->solve_us / 1000.0);
    set_chip (self, CHIP_STEP, "Step", step);
    set_chip (self, CHIP_OVERLAP, "Overlap", overlap);
    set_chip (self, CHIP_EXPOSED, "Exposed comm", exposed);
    set_chip (self, CHIP_COMM, "Comm", comm);
    set_chip (self, CHIP_RANKS, "Ranks", ranks);
    show_memory (self, p);
    /* the window's bubble chip over the same step */
    self->bubble_pct = weft_bubble_chip_update (self->bubble, weft_edit_session_get_solver (p->session), p->step);
    gtk_label_set_text (GTK_LABEL (self->timing), timing);
  }
}

/* The validator speaks the CLI's language ("needs --tp >= 2", "--experts,
 * or --preset moe-small"): the dialog says it with its own controls. */
static char *
window_wording (const char *message)
{
  static const struct
  {
    const char *cli, *window;
  } words[] = {
    { "(--experts, or --preset moe-small)", "(choose a MoE model preset, e.g. moe-small)" },
    { "--experts", "a MoE model preset" },
    { "--preset", "the model preset" },
    { "--dp-replicate", "the HSDP replicas" },
    { "--dp", "the DP degree" },
    { "--tp", "the TP degree" },
    { "--pp-stages-per-rank", "the stages per rank" },
    { "--pp-schedule", "the schedule" },
    { "--microbatches", "the microbatches" },
    { "--pp", "the PP degree" },
    { "--cp", "the CP degree" },
    { "--ep", "the EP degree" },
    { "--layers", "the layers" },
    { "--seq", "the sequence length" },
    { "--mbs", "the micro-batch" },
    { "--calibrate", "calibration" },
    { "in the strategy list", "ticked" },
    { "strategy tp", "TP" },
    { "strategy cp", "CP" },
    { "strategy ep", "EP" },
    { "strategy pp", "PP" },
  };
  GString *s = g_string_new (message);

  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    g_string_replace (s, words[i].cli, words[i].window, 0);
  return g_string_free (s, FALSE);
}

static void
set_error_text (WeftTemplateDialog *self, const char *message)
{
  g_autofree char *text = window_wording (message);
  g_autofree char *full = g_strdup_printf ("Cannot compose: %s", text);

  gtk_label_set_text (GTK_LABEL (self->error_label), full);
  gtk_widget_set_tooltip_text (self->error_label, full);
}

static gboolean
is_dark (WeftTemplateDialog *self)
{
  GtkWindow *parent = gtk_window_get_transient_for (GTK_WINDOW (self));
  GtkApplication *app = parent != NULL ? gtk_window_get_application (parent) : NULL;

  return app != NULL && WEFT_IS_APPLICATION (app) && weft_application_get_dark (WEFT_APPLICATION (app));
}

static gboolean
screenshot_idle_cb (gpointer data)
{
  WeftTemplateDialog *self = data;

  if (!self->disposed && gtk_widget_get_mapped (GTK_WIDGET (self)))
    take_screenshot (self);
  g_object_unref (self);
  return G_SOURCE_REMOVE;
}

static void
draw_preview (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
  WeftTemplateDialog *self = user_data;
  Preview *p = self->current;
  gboolean dark = is_dark (self);
  WeftRgba bg = weft_render_background_color (dark);
  WeftTrace *trace;
  WeftView view;

  cairo_set_source_rgb (cr, bg.r, bg.g, bg.b);
  cairo_paint (cr);
  if (p == NULL || width <= HEADER_WIDTH + 10)
    return;
  trace = weft_edit_session_get_trace (p->session);
  view = p->view;
  view.dark = dark;
  view.width = width - HEADER_WIDTH;
  view.height = MAX (1, height - WEFT_RENDER_RULER_HEIGHT);
  view.scroll_y = 0;
  weft_view_fit_all (&view, trace);

  cairo_save (cr);
  cairo_translate (cr, HEADER_WIDTH, 0);
  weft_render_paint_ruler (cr, trace, &view);
  cairo_translate (cr, 0, WEFT_RENDER_RULER_HEIGHT);
  cairo_rectangle (cr, 0, 0, view.width, view.height);
  cairo_clip (cr);
  weft_render_paint (cr, trace, &view, p->layout, NULL, NULL, NULL);
  cairo_restore (cr);

  cairo_save (cr);
  cairo_translate (cr, 0, WEFT_RENDER_RULER_HEIGHT);
  cairo_rectangle (cr, 0, 0, HEADER_WIDTH, view.height);
  cairo_clip (cr);
  weft_render_paint_lane_headers (cr, trace, &view, p->layout, HEADER_WIDTH);
  cairo_restore (cr);

  self->frames++;
  if (self->shot_pending && self->screenshot_path != NULL)
    {
      self->shot_pending = FALSE;
      /* after this frame is on screen */
      g_timeout_add_full (G_PRIORITY_LOW, 100, screenshot_idle_cb, g_object_ref (self), NULL);
    }
  schedule_state (self);
}

static void
compose_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  Request *req = task_data;
  GError *error = NULL;
  Preview *p = g_new0 (Preview, 1);
  WeftTrace *trace;
  gint64 t0 = g_get_monotonic_time (), t1;

  p->params = req->params;
  p->params.kernel_times = NULL; /* borrowed from the request: not kept */
  p->serial = req->serial;
  p->name = params_name (&p->params);
  p->world = weft_compose_world_size (&p->params);
  trace = weft_compose_trace (&req->params, &error);
  if (trace == NULL)
    {
      preview_free (p);
      g_task_return_error (task, error);
      return;
    }
  t1 = g_get_monotonic_time ();
  p->session = weft_edit_session_new (trace, NULL, &error);
  if (p->session == NULL)
    {
      weft_trace_free (trace);
      preview_free (p);
      g_task_return_error (task, error);
      return;
    }
  {
    /* the figures the window's chips will show: its first step (the
     * ProfilerStep span the composer writes), else the whole trace */
    WeftSolver *solver = weft_edit_session_get_solver (p->session);
    g_autoptr (GArray) steps = weft_solver_steps (solver);
    int step = steps->len > 0 ? g_array_index (steps, int, 0) : WEFT_SOLVER_ALL_STEPS;
    p->step = step;
    p->have_metrics = weft_solver_metrics (solver, WEFT_SOLVER_ALL_RANKS, step, &p->m);
  }
  {
    /* the memory model's [memory] events, timed by the solver (what the
     * window's memory rows will show) */
    g_autoptr (WeftMemoryTimeline) mem = weft_memory_timeline_new (trace);
    WeftMemoryTimelinePeak peak;
    weft_memory_timeline_update (mem, weft_edit_session_get_solver (p->session));
    p->peak_rank = -1;
    for (guint r = 0; r < trace->ranks->len; r++)
      if (weft_memory_timeline_peak (mem, r, &peak) && peak.peak_reserved > p->peak_memory)
        {
          p->peak_memory = peak.peak_reserved;
          p->peak_rank = weft_trace_rank (trace, r)->rank;
        }
  }
  p->compose_us = t1 - t0;
  p->solve_us = g_get_monotonic_time () - t1;
  /* rank 0 with its lanes, the others collapsed to their overlap band */
  weft_view_init (&p->view, trace);
  for (guint i = 1; i < trace->ranks->len; i++)
    weft_view_set_rank_flags (&p->view, i, WEFT_RANK_VIEW_COLLAPSED);
  p->layout = weft_layout_new (trace, &p->view);
  g_task_return_pointer (task, p, preview_free);
}

static void do_create (WeftTemplateDialog *self);

static void
compose_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  WeftTemplateDialog *self = WEFT_TEMPLATE_DIALOG (source);
  g_autoptr (GError) error = NULL;
  Preview *p = g_task_propagate_pointer (G_TASK (result), &error);

  self->running = FALSE;
  /* destroyed (gtk_window_destroy unrealizes at once; dispose waits for the
   * last reference, e.g. this task's) */
  if (self->disposed || !gtk_widget_get_realized (GTK_WIDGET (self)))
    {
      preview_free (p);
      return;
    }
  if (p == NULL)
    {
      /* the parameters validated but the composer refused them: not again
       * until they change */
      self->failed_serial = ((Request *) g_task_get_task_data (G_TASK (result)))->serial;
      g_free (self->error);
      self->error = g_strdup (error->message);
      set_error_text (self, error->message);
      gtk_widget_set_visible (self->error_label, TRUE);
      self->create_pending = FALSE;
    }
  else
    {
      preview_free (self->current);
      self->current = p;
      self->n_previews++;
      self->shot_pending = TRUE;
      show_metrics (self);
      gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->area),
                                           (int) (WEFT_RENDER_RULER_HEIGHT + weft_layout_get_height (p->layout) + 2));
      gtk_widget_queue_draw (self->area);
    }
  if (p != NULL && self->create_pending && p->serial == self->serial)
    {
      do_create (self); /* destroys the dialog */
      return;
    }
  if (self->valid && self->debounce == 0)
    start_compose (self); /* when the form changed meanwhile */
  update_create (self);
  schedule_state (self);
}

static void
start_compose (WeftTemplateDialog *self)
{
  g_autoptr (GTask) task = NULL;
  g_autoptr (GError) error = NULL;
  Request *req;

  if (self->running)
    return; /* compose_done_cb starts the next one */
  if ((self->current != NULL && self->current->serial == self->serial) || self->failed_serial == self->serial)
    return;
  req = g_new0 (Request, 1);
  if (!collect_params (self, &req->params, &error))
    {
      g_free (req);
      return;
    }
  req->serial = self->serial;
  if (req->params.kernel_times != NULL)
    req->kt = g_atomic_rc_box_acquire (self->kt);
  self->running = TRUE;
  task = g_task_new (self, NULL, compose_done_cb, NULL);
  g_task_set_task_data (task, req, request_free);
  g_task_set_source_tag (task, start_compose);
  g_task_run_in_thread (task, compose_thread);
}

static gboolean
debounce_cb (gpointer data)
{
  WeftTemplateDialog *self = data;

  self->debounce = 0;
  start_compose (self);
  update_create (self);
  schedule_state (self);
  return G_SOURCE_REMOVE;
}

/* Any change of the form: validate now, compose a little later. */
static void
changed_cb (WeftTemplateDialog *self)
{
  WeftComposeParams params;
  g_autoptr (GError) error = NULL;

  if (self->updating || self->disposed)
    return;
  update_sensitivity (self);
  self->serial++;
  self->create_pending = FALSE; /* a change cancels a Create waiting for its preview */
  self->valid = collect_params (self, &params, &error);
  g_clear_pointer (&self->error, g_free);
  if (!self->valid)
    {
      self->error = g_strdup (error->message);
      set_error_text (self, error->message);
      self->create_pending = FALSE;
    }
  gtk_widget_set_visible (self->error_label, !self->valid);
  g_clear_handle_id (&self->debounce, g_source_remove);
  if (self->valid)
    self->debounce = g_timeout_add (DEBOUNCE_MS, debounce_cb, self);
  update_create (self);
  schedule_state (self);
}

/* The preset sets the sequence and micro-batch fields to its own. */
static void
preset_changed_cb (WeftTemplateDialog *self)
{
  const char *const *presets = weft_compose_preset_names ();
  guint i = gtk_drop_down_get_selected (GTK_DROP_DOWN (self->preset));
  WeftComposeParams p;

  weft_compose_params_init (&p);
  if (i != GTK_INVALID_LIST_POSITION && i < g_strv_length ((char **) presets) &&
      weft_compose_params_set_preset (&p, presets[i], NULL))
    {
      self->updating = TRUE;
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->seq), p.model.seq);
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->mbs), p.model.mbs);
      self->updating = FALSE;
    }
  changed_cb (self);
}

/* ---- create --------------------------------------------------------------------------- */

static void
do_create (WeftTemplateDialog *self)
{
  Preview *p = g_steal_pointer (&self->current);
  WeftEditSession *session;
  g_autofree char *name = NULL;

  self->create_pending = FALSE;
  g_clear_pointer (&p->layout, weft_layout_free);
  weft_view_clear (&p->view);
  session = g_steal_pointer (&p->session);
  name = g_strdup (p->name);
  preview_free (p);
  gtk_widget_queue_draw (self->area);
  if (self->kept != NULL && g_signal_has_handler_pending (self, signals[SIGNAL_CREATED_COMPARED], 0, FALSE))
    {
      /* Create Compared: the kept configuration (A) and this one (B) */
      Preview *k = g_steal_pointer (&self->kept);
      WeftEditSession *a = g_steal_pointer (&k->session);
      g_autofree char *name_a = g_strdup (k->name);
      preview_free (k);
      g_signal_emit (self, signals[SIGNAL_CREATED_COMPARED], 0, a, name_a, session, name);
    }
  else if (g_signal_has_handler_pending (self, signals[SIGNAL_CREATED], 0, FALSE))
    g_signal_emit (self, signals[SIGNAL_CREATED], 0, session, name);
  else
    weft_edit_session_free (session);
  gtk_window_destroy (GTK_WINDOW (self));
}

/* Keep as A: the shown preview (up to date) is kept for Create Compared;
 * the same parameters are composed again for the preview. */
static void
keep_clicked_cb (GtkButton *button, WeftTemplateDialog *self)
{
  if (!self->valid || self->current == NULL || self->current->serial != self->serial || self->debounce != 0)
    return;
  g_clear_pointer (&self->kept, preview_free);
  self->kept = g_steal_pointer (&self->current);
  g_clear_pointer (&self->kept->layout, weft_layout_free);
  {
    g_autofree char *label = g_strdup_printf ("C_reate Compared (A: %s)", self->kept->name);
    gtk_button_set_label (GTK_BUTTON (self->create), label);
    gtk_button_set_use_underline (GTK_BUTTON (self->create), TRUE);
  }
  gtk_widget_set_tooltip_text (self->create, "Open the kept configuration (A) and this one (B) compared");
  start_compose (self);
  update_create (self);
  schedule_state (self);
}

static void
create_clicked_cb (GtkButton *button, WeftTemplateDialog *self)
{
  if (!self->valid || self->failed_serial == self->serial)
    return;
  if (self->current != NULL && self->current->serial == self->serial && self->debounce == 0)
    {
      do_create (self);
      return;
    }
  /* the preview of these parameters is on its way */
  self->create_pending = TRUE;
  g_clear_handle_id (&self->debounce, g_source_remove);
  start_compose (self);
  update_create (self);
  schedule_state (self);
}

static void
screenshot_activated (GtkWidget *widget, const char *action_name, GVariant *param)
{
  take_screenshot (WEFT_TEMPLATE_DIALOG (widget));
}

/* ---- construction ----------------------------------------------------------------------- */

static GtkWidget *
new_spin (WeftTemplateDialog *self, double min, double max, double step, double value)
{
  GtkWidget *s = gtk_spin_button_new_with_range (min, max, step);

  gtk_spin_button_set_value (GTK_SPIN_BUTTON (s), value);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (s), TRUE);
  g_signal_connect_swapped (s, "value-changed", G_CALLBACK (changed_cb), self);
  return s;
}

static GtkWidget *
new_check (WeftTemplateDialog *self, const char *mnemonic, const char *tip, gboolean on)
{
  GtkWidget *c = gtk_check_button_new_with_mnemonic (mnemonic);

  gtk_check_button_set_active (GTK_CHECK_BUTTON (c), on);
  if (tip != NULL)
    gtk_widget_set_tooltip_text (c, tip);
  g_signal_connect_swapped (c, "toggled", G_CALLBACK (changed_cb), self);
  return c;
}

static void
attach_row (GtkWidget *grid, int *row, const char *mnemonic, GtkWidget *widget, const char *tip)
{
  GtkWidget *l = gtk_label_new_with_mnemonic (mnemonic);

  gtk_label_set_xalign (GTK_LABEL (l), 1);
  gtk_label_set_mnemonic_widget (GTK_LABEL (l), widget);
  if (tip != NULL)
    gtk_widget_set_tooltip_text (widget, tip);
  gtk_widget_set_halign (widget, GTK_ALIGN_START);
  gtk_grid_attach (GTK_GRID (grid), l, 0, *row, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), widget, 1, *row, 1, 1);
  (*row)++;
}

static void
attach_heading (GtkWidget *grid, int *row, const char *text)
{
  GtkWidget *l = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (l), 0);
  gtk_widget_add_css_class (l, "heading");
  if (*row > 0)
    gtk_widget_set_margin_top (l, 8);
  gtk_grid_attach (GTK_GRID (grid), l, 0, *row, 2, 1);
  (*row)++;
}

static void
weft_template_dialog_dispose (GObject *object)
{
  WeftTemplateDialog *self = WEFT_TEMPLATE_DIALOG (object);

  if (!self->disposed && self->state_path != NULL)
    write_state (self, FALSE);
  self->disposed = TRUE;
  g_clear_handle_id (&self->debounce, g_source_remove);
  g_clear_handle_id (&self->state_idle, g_source_remove);
  g_clear_pointer (&self->current, preview_free);
  g_clear_pointer (&self->kept, preview_free);
  g_clear_pointer (&self->kt, kernel_times_unref);
  G_OBJECT_CLASS (weft_template_dialog_parent_class)->dispose (object);
}

static void
weft_template_dialog_finalize (GObject *object)
{
  WeftTemplateDialog *self = WEFT_TEMPLATE_DIALOG (object);

  g_free (self->error);
  g_free (self->state_path);
  g_free (self->screenshot_path);
  G_OBJECT_CLASS (weft_template_dialog_parent_class)->finalize (object);
}

static void
weft_template_dialog_class_init (WeftTemplateDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = weft_template_dialog_dispose;
  object_class->finalize = weft_template_dialog_finalize;
  signals[SIGNAL_CREATED] = g_signal_new ("created", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_STRING);
  /* (session A, name A, session B, name B): Create after Keep as A */
  signals[SIGNAL_CREATED_COMPARED] = g_signal_new ("created-compared", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                                   0, NULL, NULL, NULL, G_TYPE_NONE, 4, G_TYPE_POINTER, G_TYPE_STRING,
                                                   G_TYPE_POINTER, G_TYPE_STRING);
  gtk_widget_class_install_action (widget_class, "template.screenshot", NULL, screenshot_activated);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F12, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "template.screenshot", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
weft_template_dialog_init (WeftTemplateDialog *self)
{
  GtkWidget *header = gtk_header_bar_new ();
  GtkWidget *cancel = gtk_button_new_with_mnemonic ("_Cancel");
  GtkWidget *paned = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *form = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  GtkWidget *form_scroller = gtk_scrolled_window_new ();
  GtkWidget *grid = gtk_grid_new ();
  GtkWidget *strategies = gtk_grid_new ();
  GtkWidget *right = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  GtkWidget *chips = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *area_scroller = gtk_scrolled_window_new ();
  GtkWidget *title = gtk_label_new ("Preview");
  const char *env;
  int row = 0;

  env = g_getenv ("WEFT_TEST_STATE");
  if (env != NULL && *env != '\0')
    self->state_path = g_strconcat (env, ".template.json", NULL);
  env = g_getenv ("WEFT_TEST_SCREENSHOT");
  if (env != NULL && *env != '\0')
    {
      g_autofree char *base = g_str_has_suffix (env, ".png") ? g_strndup (env, strlen (env) - 4) : g_strdup (env);
      self->screenshot_path = g_strconcat (base, "-template.png", NULL);
    }

  gtk_window_set_title (GTK_WINDOW (self), "New from Template");
  gtk_window_set_default_size (GTK_WINDOW (self), 1180, 720);

  /* header bar */
  self->create = gtk_button_new_with_mnemonic ("C_reate");
  gtk_widget_add_css_class (self->create, "suggested-action");
  gtk_widget_set_tooltip_text (self->create, "Open the composed step as a new, unsaved trace");
  g_signal_connect (self->create, "clicked", G_CALLBACK (create_clicked_cb), self);
  self->keep = gtk_button_new_with_mnemonic ("_Use as A");
  gtk_widget_set_tooltip_text (self->keep, "Keep this configuration as A (Alt+U): change the form, then Create Compared opens "
                                           "both, A above B");
  g_signal_connect (self->keep, "clicked", G_CALLBACK (keep_clicked_cb), self);
  g_signal_connect_swapped (cancel, "clicked", G_CALLBACK (gtk_window_destroy), self);
  self->spinner = gtk_spinner_new ();
  gtk_widget_set_tooltip_text (self->spinner, "Composing the preview");
  gtk_header_bar_set_show_title_buttons (GTK_HEADER_BAR (header), FALSE);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), cancel);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), self->create);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), self->keep);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), self->spinner);
  /* why Create is off, beside it (always in view, whatever the form's
   * scroll): two lines at most, the whole text in its tooltip */
  self->error_label = gtk_label_new ("");
  gtk_label_set_wrap (GTK_LABEL (self->error_label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (self->error_label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_lines (GTK_LABEL (self->error_label), 2);
  gtk_label_set_ellipsize (GTK_LABEL (self->error_label), PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (GTK_LABEL (self->error_label), 1);
  gtk_label_set_max_width_chars (GTK_LABEL (self->error_label), 60);
  gtk_widget_add_css_class (self->error_label, "error");
  gtk_widget_set_visible (self->error_label, FALSE);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), self->error_label);
  gtk_window_set_titlebar (GTK_WINDOW (self), header);

  /* the form */
  for (int i = 0; i < N_STRATEGIES; i++)
    {
      self->strategy[i] = new_check (self, strategy_labels[i], strategy_tips[i], i == S_FSDP);
      gtk_grid_attach (GTK_GRID (strategies), self->strategy[i], i % 3, i / 3, 1, 1);
    }
  gtk_grid_set_column_spacing (GTK_GRID (strategies), 10);

  self->dp = new_spin (self, 1, WEFT_COMPOSE_MAX_RANKS, 1, 8);
  self->tp = new_spin (self, 1, 64, 1, 2);
  self->ep = new_spin (self, 1, WEFT_COMPOSE_MAX_RANKS, 1, 4);
  self->cp = new_spin (self, 1, WEFT_COMPOSE_MAX_RANKS, 1, 2);
  self->hsdp = new_spin (self, 1, 64, 1, 1);
  self->pp = new_spin (self, 1, 64, 1, 2);
  {
    /* the composer's schedules, whatever it knows */
    GtkStringList *names = gtk_string_list_new (NULL);
    for (guint i = 0; weft_compose_pp_schedule_name (i) != NULL; i++)
      gtk_string_list_append (names, weft_compose_pp_schedule_name (i));
    self->pp_schedule = gtk_drop_down_new (G_LIST_MODEL (names), NULL);
    g_signal_connect_swapped (self->pp_schedule, "notify::selected", G_CALLBACK (changed_cb), self);
  }
  self->microbatches = new_spin (self, 0, 1024, 1, 0);
  self->pp_stages = new_spin (self, 0, 16, 1, 0);
  self->preset = gtk_drop_down_new_from_strings (weft_compose_preset_names ());
  g_signal_connect_swapped (self->preset, "notify::selected", G_CALLBACK (preset_changed_cb), self);
  self->hw = gtk_drop_down_new_from_strings (weft_hardware_preset_names ());
  g_signal_connect_swapped (self->hw, "notify::selected", G_CALLBACK (changed_cb), self);
  self->layers = new_spin (self, 1, 128, 1, 4);
  self->seq = new_spin (self, 256, 1 << 20, 1024, 8192);
  self->mbs = new_spin (self, 1, 64, 1, 1);
  self->prefetch = new_check (self, "FSDP prefetch", "All-gather block i+1 while block i computes", TRUE);
  self->reshard = new_check (self, "FSDP reshard after for_ward",
                             "Free the parameters after forward: all-gather them again in backward", TRUE);
  self->bucket = new_spin (self, 1, 1024, 1, 25);
  self->ep_overlap = new_check (self, "EP two-chunk _overlap",
                                "Dispatch / combine of one chunk overlap the expert GEMMs of the other", FALSE);
  self->cp_mode = gtk_drop_down_new_from_strings (cp_modes);
  g_signal_connect_swapped (self->cp_mode, "notify::selected", G_CALLBACK (changed_cb), self);
  self->calibrate = new_check (self, "Kernel t_imes from the open trace",
                               "Compute kernels whose op and shape the open trace has take its measured median "
                               "duration; the others use the efficiencies measured in it (docs/composer.md, "
                               "--calibrate)", FALSE);
  gtk_widget_set_sensitive (self->calibrate, FALSE);
  self->calibrate_info = gtk_label_new ("No trace is open.");
  gtk_label_set_wrap (GTK_LABEL (self->calibrate_info), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->calibrate_info), 0);
  gtk_label_set_max_width_chars (GTK_LABEL (self->calibrate_info), 40);
  gtk_widget_add_css_class (self->calibrate_info, "dim-label");
  gtk_widget_add_css_class (self->calibrate_info, "caption");

  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  attach_heading (grid, &row, "Strategies");
  gtk_grid_attach (GTK_GRID (grid), strategies, 0, row++, 2, 1);
  attach_heading (grid, &row, "Degrees");
  attach_row (grid, &row, "D_ata parallel (dp)", self->dp, "DDP replicas or FSDP shards");
  attach_row (grid, &row, "Tensor parallel (tp)", self->tp, "Ranks of a TP group (inside a node)");
  attach_row (grid, &row, "Expert parallel (ep)", self->ep, "Ranks the experts are spread over (divides dp x cp)");
  attach_row (grid, &row, "Context parallel (cp)", self->cp, "Ranks the sequence is split over");
  attach_row (grid, &row, "HSDP replicas", self->hsdp, "FSDP shards inside a replica, all-reduce across replicas");
  attach_row (grid, &row, "Pipeline sta_ges (pp)", self->pp, "Pipeline stages: ranks along pp, outermost");
  attach_heading (grid, &row, "Pipeline");
  attach_row (grid, &row, "Schedule", self->pp_schedule,
              "The pipeline schedule (torch.distributed.pipelining's, as torchtitan names them; docs/composer.md)");
  attach_row (grid, &row, "Microbatches", self->microbatches,
              "Microbatches per step (0: the micro-batch split into microbatches of 1, as torchtitan)");
  attach_row (grid, &row, "Stages per rank", self->pp_stages,
              "Virtual stages per rank for the looped schedules (0: the composer's default, 2 looped, else 1)");
  attach_heading (grid, &row, "Model and hardware");
  attach_row (grid, &row, "_Model preset", self->preset, "Model shape (docs/composer.md)");
  attach_row (grid, &row, "_Layers", self->layers, "Transformer blocks composed (the structure repeats)");
  attach_row (grid, &row, "Se_quence", self->seq, "Global sequence length (split over cp)");
  attach_row (grid, &row, "Micro-_batch", self->mbs, "Micro-batch size per rank");
  attach_row (grid, &row, "_Hardware", self->hw, "GPU and interconnect figures (docs/composer.md)");
  attach_heading (grid, &row, "Options");
  gtk_grid_attach (GTK_GRID (grid), self->prefetch, 0, row++, 2, 1);
  gtk_grid_attach (GTK_GRID (grid), self->reshard, 0, row++, 2, 1);
  gtk_grid_attach (GTK_GRID (grid), self->ep_overlap, 0, row++, 2, 1);
  attach_row (grid, &row, "DDP buc_ket (MB)", self->bucket, "DDP gradient bucket cap (the first bucket is 1 MB)");
  attach_row (grid, &row, "CP mode", self->cp_mode, "One K/V all-gather per attention, or cp-1 ring steps");
  attach_heading (grid, &row, "Calibration");
  gtk_grid_attach (GTK_GRID (grid), self->calibrate, 0, row++, 2, 1);
  gtk_grid_attach (GTK_GRID (grid), self->calibrate_info, 0, row++, 2, 1);

  gtk_box_append (GTK_BOX (form), grid);
  gtk_widget_set_margin_start (form, 18);
  gtk_widget_set_margin_end (form, 18);
  gtk_widget_set_margin_top (form, 12);
  gtk_widget_set_margin_bottom (form, 12);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (form_scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_width (GTK_SCROLLED_WINDOW (form_scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (form_scroller), form);

  /* the preview */
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_widget_add_css_class (title, "heading");
  for (int i = 0; i < N_CHIPS; i++)
    {
      self->chips[i] = gtk_label_new ("");
      gtk_widget_add_css_class (self->chips[i], "weft-chip");
      gtk_box_append (GTK_BOX (chips), self->chips[i]);
    }
  self->bubble = weft_bubble_chip_new ();
  self->bubble_pct = -1;
  gtk_box_append (GTK_BOX (chips), self->bubble);
  gtk_widget_set_tooltip_text (self->chips[CHIP_OVERLAP],
                               "Overlap %: communication time with compute beside it / all communication time "
                               "(HTA's definition), mean over ranks");
  gtk_widget_set_tooltip_text (self->chips[CHIP_EXPOSED],
                               "Exposed communication: time only communication runs on the GPU, mean over ranks");
  gtk_widget_set_tooltip_text (self->chips[CHIP_STEP], "Step time: first GPU op start to last GPU op end, all ranks");
  self->timing = gtk_label_new ("Composing…");
  gtk_label_set_wrap (GTK_LABEL (self->timing), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->timing), 0);
  gtk_widget_add_css_class (self->timing, "dim-label");
  gtk_widget_add_css_class (self->timing, "caption");
  self->area = gtk_drawing_area_new ();
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->area), draw_preview, self, NULL);
  gtk_widget_set_hexpand (self->area, TRUE);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (area_scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (area_scroller), self->area);
  gtk_widget_set_vexpand (area_scroller, TRUE);
  gtk_widget_set_hexpand (area_scroller, TRUE);
  gtk_box_append (GTK_BOX (right), title);
  gtk_box_append (GTK_BOX (right), chips);
  gtk_box_append (GTK_BOX (right), self->timing);
  gtk_box_append (GTK_BOX (right), area_scroller);
  gtk_widget_set_margin_start (right, 12);
  gtk_widget_set_margin_end (right, 12);
  gtk_widget_set_margin_top (right, 12);
  gtk_widget_set_margin_bottom (right, 12);

  gtk_box_append (GTK_BOX (paned), form_scroller);
  gtk_box_append (GTK_BOX (paned), gtk_separator_new (GTK_ORIENTATION_VERTICAL));
  gtk_box_append (GTK_BOX (paned), right);
  gtk_window_set_child (GTK_WINDOW (self), paned);

  update_sensitivity (self);
  changed_cb (self);
}

/* Kernel durations and efficiencies measured in the parent window's trace
 * (O(events), once, on opening). */
static void
measure_profile (WeftTemplateDialog *self, WeftTrace *profile)
{
  const char *const *hws = weft_hardware_preset_names ();
  g_autoptr (GString) info = g_string_new (NULL);
  WeftKernelTimes *kt = weft_kernel_times_new_from_trace (profile, &self->n_shapes);

  if (kt != NULL && self->n_shapes > 0)
    {
      self->kt = g_atomic_rc_box_new0 (KernelTimes);
      self->kt->kt = kt;
      g_string_append_printf (info, "%u op shapes measured", self->n_shapes);
    }
  else if (kt != NULL)
    weft_kernel_times_free (kt);
  for (guint i = 0; i < G_N_ELEMENTS (self->have_eff) && hws[i] != NULL; i++)
    {
      WeftComposeParams p;
      g_autoptr (GError) error = NULL;

      weft_compose_params_init (&p);
      if (!weft_compose_params_set_hardware (&p, hws[i], NULL))
        continue;
      if (weft_compose_calibrate (&p, profile, &error))
        {
          self->have_eff[i] = TRUE;
          self->eff[i] = p.eff;
          if (i == 0)
            g_string_append_printf (info, "%sGEMM at %.1f %% of %s peak, attention %.1f %% (%u kernels)",
                                    info->len > 0 ? "; " : "", 100 * p.eff.gemm, hws[i], 100 * p.eff.attention,
                                    p.eff.calibrated_kernels);
        }
      else if (i == 0 && info->len == 0)
        g_string_append (info, error->message);
    }
  gtk_widget_set_sensitive (self->calibrate, self->kt != NULL || self->have_eff[0] || self->have_eff[1]);
  gtk_label_set_text (GTK_LABEL (self->calibrate_info), info->len > 0 ? info->str : "Nothing to measure in the open trace.");
}

/* The form from composer parameters (the "weft" key of a composed trace:
 * "re-compose with changes"). Hardware: the preset with the same figures. */
static void
set_form (WeftTemplateDialog *self, const WeftComposeParams *p)
{
  const char *const *presets = weft_compose_preset_names ();
  const char *const *hws = weft_hardware_preset_names ();

  self->updating = TRUE;
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->strategy[S_DDP]), (p->strategies & WEFT_STRATEGY_DDP) != 0);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->strategy[S_FSDP]), (p->strategies & WEFT_STRATEGY_FSDP) != 0);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->strategy[S_TP]), (p->strategies & WEFT_STRATEGY_TP) != 0);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->strategy[S_SP]), p->sequence_parallel);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->strategy[S_EP]), (p->strategies & WEFT_STRATEGY_EP) != 0);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->strategy[S_CP]), (p->strategies & WEFT_STRATEGY_CP) != 0);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->strategy[S_PP]), (p->strategies & WEFT_STRATEGY_PP) != 0);
  if (p->pp > 1)
    {
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->pp), p->pp);
      for (guint i = 0; weft_compose_pp_schedule_name (i) != NULL; i++)
        if (g_strcmp0 (weft_compose_pp_schedule_name (i), weft_compose_pp_schedule_to_string (p->pp_schedule)) == 0)
          gtk_drop_down_set_selected (GTK_DROP_DOWN (self->pp_schedule), i);
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->microbatches), p->microbatches);
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->pp_stages), p->pp_stages_per_rank);
    }
  if (p->dp > 1)
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->dp), p->dp);
  if (p->tp > 1)
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->tp), p->tp);
  if (p->ep > 1)
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->ep), p->ep);
  if (p->cp > 1)
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->cp), p->cp);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->hsdp), MAX (p->dp_replicate, 1));
  for (guint i = 0; presets[i] != NULL; i++)
    if (g_strcmp0 (presets[i], p->model.name) == 0)
      gtk_drop_down_set_selected (GTK_DROP_DOWN (self->preset), i);
  for (guint i = 0; hws[i] != NULL; i++)
    {
      const WeftHardware *hw = weft_hardware_preset (hws[i]);
      if (hw != NULL && hw->peak_flops == p->hw.peak_flops && hw->hbm_bytes_per_s == p->hw.hbm_bytes_per_s)
        gtk_drop_down_set_selected (GTK_DROP_DOWN (self->hw), i);
    }
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->layers), p->model.layers);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->seq), p->model.seq);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->mbs), p->model.mbs);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->prefetch), p->fsdp_prefetch);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->reshard), p->reshard_after_forward);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->ep_overlap), p->ep_overlap);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->bucket), p->ddp_bucket_mb);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->cp_mode), p->cp_mode == WEFT_CP_RING ? 1 : 0);
  self->updating = FALSE;
  changed_cb (self);
}

GtkWidget *
weft_template_dialog_new (GtkWindow *parent)
{
  WeftTemplateDialog *dialog = g_object_new (WEFT_TYPE_TEMPLATE_DIALOG, NULL);
  GtkWidget *self = GTK_WIDGET (dialog);

  if (parent != NULL && WEFT_IS_WINDOW (parent) && weft_window_get_session (WEFT_WINDOW (parent)) != NULL)
    {
      WeftTrace *open = weft_edit_session_get_trace (weft_window_get_session (WEFT_WINDOW (parent)));
      WeftComposeParams p;

      measure_profile (dialog, open);
      if (weft_trace_get_compose_params (open, &p))
        {
          dialog->prefilled = TRUE;
          set_form (dialog, &p); /* re-compose with changes */
        }
    }
  if (parent != NULL)
    {
      gtk_window_set_transient_for (GTK_WINDOW (self), parent);
      gtk_window_set_modal (GTK_WINDOW (self), TRUE);
    }
  gtk_window_set_destroy_with_parent (GTK_WINDOW (self), TRUE);
  return self;
}
