/* weft-apply-dialog.c: Apply a strategy to the open trace.
 *
 * The strategy (one of weft-apply.h's, as radio buttons), the group size
 * (degree) and the strategy's options; below, what Apply will insert
 * (weft_apply_strategy_collectives(): each collective with its size, stream,
 * phase, count per block and cost-model time) and the blocks found on rank 0
 * (weft_apply_find_blocks(): how, how many forward / backward). Invalid
 * choices (weft_apply_params_validate(), a degree that does not divide the
 * ranks) are explained inline and disable Apply.
 *
 * Apply runs weft_apply_strategy() on the window's edit session: one undo
 * entry, re-solved, so the window's chips show the change; the dialog then
 * shows the report (collectives inserted, step time / overlap / exposed
 * communication before and after) and offers Close. A one-rank profile is
 * replicated to `degree` ranks (weft_apply_replicate) into a new session
 * that "created" hands to the window.
 *
 * For tests: with WEFT_TEST_STATE=FILE the dialog writes FILE.apply.json. */
#include "config.h"

#include <json-c/json.h>
#include <string.h>

#include "weft/weft-apply.h"
#include "weft-app-util.h"
#include "weft-apply-dialog.h"

struct _WeftApplyDialog
{
  GtkWindow parent_instance;

  WeftEditSession *session;   /* borrowed */
  GtkWidget *strategy[WEFT_APPLY_N_STRATEGIES];
  GtkWidget *degree;
  GtkWidget *bucket;
  GtkWidget *prefetch;
  GtkWidget *reshard;
  GtkWidget *strip;
  GtkWidget *blocks_label;
  GtkWidget *plan_label;
  GtkWidget *error_label;
  GtkWidget *report_label;
  GtkWidget *apply;
  GtkWidget *cancel;

  gboolean   valid;
  gboolean   applied;        /* Apply done for the parameters now in the form */
  char      *error;
  guint      n_planned;
  WeftApplyReport report;
  gboolean   have_report;
  guint      n_applied;
  char      *state_path;
};

G_DEFINE_FINAL_TYPE (WeftApplyDialog, weft_apply_dialog, GTK_TYPE_WINDOW)

enum
{
  SIGNAL_CREATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const char *const strategy_labels[WEFT_APPLY_N_STRATEGIES] = {
  "_DDP: bucketed gradient all-reduce in backward",
  "_FSDP: per-block all-gather (forward, backward) and reduce-scatter",
  "_TP: all-reduces after the row-parallel GEMMs",
  "TP + _SP: all-gathers and reduce-scatters",
  "_EP: token all-to-alls around the expert GEMMs",
  "CP _ring: K/V passed around a ring (send/recv)",
  "CP a_ll-gather: one K/V all-gather per attention",
};

static WeftTrace *
trace_of (WeftApplyDialog *self)
{
  return weft_edit_session_get_trace (self->session);
}

/* ---- state ------------------------------------------------------------------------------ */

static void
write_state (WeftApplyDialog *self, gboolean open)
{
  json_object *root;
  g_autoptr (GError) error = NULL;

  if (self->state_path == NULL)
    return;
  root = json_object_new_object ();
  json_object_object_add (root, "open", json_object_new_boolean (open));
  json_object_object_add (root, "valid", json_object_new_boolean (self->valid));
  json_object_object_add (root, "error", self->error != NULL ? json_object_new_string (self->error) : NULL);
  json_object_object_add (root, "apply_sensitive", json_object_new_boolean (gtk_widget_get_sensitive (self->apply)));
  json_object_object_add (root, "planned", json_object_new_int ((int) self->n_planned));
  json_object_object_add (root, "blocks", json_object_new_string (gtk_label_get_text (GTK_LABEL (self->blocks_label))));
  json_object_object_add (root, "applied", json_object_new_int ((int) self->n_applied));
  if (self->have_report)
    {
      json_object *r = json_object_new_object ();
      json_object_object_add (r, "n_collectives", json_object_new_int ((int) self->report.n_collectives));
      json_object_object_add (r, "n_groups", json_object_new_int ((int) self->report.n_groups));
      json_object_object_add (r, "n_forward", json_object_new_int ((int) self->report.n_forward));
      json_object_object_add (r, "n_backward", json_object_new_int ((int) self->report.n_backward));
      json_object_object_add (r, "step_before", json_object_new_int64 (self->report.before.step_time));
      json_object_object_add (r, "step_after", json_object_new_int64 (self->report.after.step_time));
      json_object_object_add (root, "report", r);
    }
  if (!g_file_set_contents (self->state_path, json_object_to_json_string_ext (root, JSON_C_TO_STRING_PRETTY), -1,
                            &error))
    g_warning ("WEFT_TEST_STATE (apply): %s", error->message);
  json_object_put (root);
}

/* ---- parameters ------------------------------------------------------------------------------ */

static WeftApplyStrategy
selected_strategy (WeftApplyDialog *self)
{
  for (int i = 0; i < WEFT_APPLY_N_STRATEGIES; i++)
    if (gtk_check_button_get_active (GTK_CHECK_BUTTON (self->strategy[i])))
      return (WeftApplyStrategy) i;
  return WEFT_APPLY_FSDP;
}

static gboolean
collect_params (WeftApplyDialog *self, WeftApplyParams *p, GError **error)
{
  guint n_ranks = trace_of (self)->ranks->len;

  weft_apply_params_init (p);
  p->strategy = selected_strategy (self);
  p->degree = gtk_spin_button_get_value_as_int (GTK_SPIN_BUTTON (self->degree));
  p->bucket_mb = gtk_spin_button_get_value (GTK_SPIN_BUTTON (self->bucket));
  p->no_prefetch = !gtk_check_button_get_active (GTK_CHECK_BUTTON (self->prefetch));
  p->no_reshard = !gtk_check_button_get_active (GTK_CHECK_BUTTON (self->reshard));
  p->strip_collectives = gtk_check_button_get_active (GTK_CHECK_BUTTON (self->strip));
  if (!weft_apply_params_validate (p, error))
    return FALSE;
  if (n_ranks > 1 && n_ranks % (guint) p->degree != 0)
    {
      g_set_error (error, WEFT_ERROR, WEFT_ERROR_INVALID,
                   "the trace has %u ranks: groups are runs of %d consecutive ranks, so the degree must divide %u",
                   n_ranks, p->degree, n_ranks);
      return FALSE;
    }
  return TRUE;
}

static void
set_error_text (WeftApplyDialog *self, const char *message)
{
  g_autofree char *markup = g_markup_printf_escaped ("<span foreground='#c01c28'>⚠ %s</span>", message);
  gtk_label_set_markup (GTK_LABEL (self->error_label), markup);
}

static void
update_plan (WeftApplyDialog *self, const WeftApplyParams *p)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) cs = weft_apply_strategy_collectives (p, &error);
  g_autoptr (GString) text = g_string_new (NULL);

  self->n_planned = 0;
  if (cs == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->plan_label), error->message);
      return;
    }
  for (guint i = 0; i < cs->len; i++)
    {
      const WeftApplyCollective *c = g_ptr_array_index (cs, i);
      g_autofree char *bytes = weft_format_bytes (c->bytes);
      g_autofree char *t = weft_format_duration (c->estimate_ns);
      g_string_append_printf (text, "%s• %s: %s, %s on %d ranks, stream %" G_GINT64_FORMAT ", %s, %u per block, ≈ %s",
                              i > 0 ? "\n" : "", c->label, weft_coll_type_to_string (c->type), bytes,
                              c->group_size, c->stream, c->phase, c->per_block, t);
    }
  if (cs->len == 0)
    g_string_append (text, "nothing");
  self->n_planned = cs->len;
  gtk_label_set_text (GTK_LABEL (self->plan_label), text->str);
}

static void
update_sensitivity (WeftApplyDialog *self)
{
  WeftApplyStrategy s = selected_strategy (self);

  gtk_widget_set_sensitive (self->bucket, s == WEFT_APPLY_DDP);
  gtk_widget_set_sensitive (self->prefetch, s == WEFT_APPLY_FSDP);
  gtk_widget_set_sensitive (self->reshard, s == WEFT_APPLY_FSDP);
}

static void
changed_cb (WeftApplyDialog *self)
{
  WeftApplyParams p;
  g_autoptr (GError) error = NULL;

  update_sensitivity (self);
  self->applied = FALSE;
  self->valid = collect_params (self, &p, &error);
  g_clear_pointer (&self->error, g_free);
  if (!self->valid)
    {
      self->error = g_strdup (error->message);
      set_error_text (self, error->message);
      self->n_planned = 0;
      gtk_label_set_text (GTK_LABEL (self->plan_label), "");
    }
  else
    update_plan (self, &p);
  gtk_widget_set_visible (self->error_label, !self->valid);
  gtk_widget_set_sensitive (self->apply, self->valid && !self->applied);
  write_state (self, TRUE);
}

static void
find_blocks (WeftApplyDialog *self)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WeftBlocks) b = weft_apply_find_blocks (trace_of (self), 0, &error);
  g_autofree char *text = NULL;

  if (b == NULL)
    text = g_strdup_printf ("Blocks: none found on rank 0 (%s); Apply needs them.", error->message);
  else if (b->phases_known)
    text = g_strdup_printf ("Blocks on rank 0: %u forward + %u backward, found from %s.", b->n_forward, b->n_backward,
                            weft_block_source_to_string (b->source));
  else
    text = g_strdup_printf ("Blocks on rank 0: %u, found from %s (no backward found: all taken as forward).",
                            b->n_forward + b->n_backward, weft_block_source_to_string (b->source));
  gtk_label_set_text (GTK_LABEL (self->blocks_label), text);
}

/* ---- apply ---------------------------------------------------------------------------------- */

static void
show_report (WeftApplyDialog *self)
{
  const WeftApplyReport *r = &self->report;
  g_autofree char *s0 = weft_format_duration (r->before.step_time);
  g_autofree char *s1 = weft_format_duration (r->after.step_time);
  g_autofree char *e0 = weft_format_duration (r->before.exposed_comm);
  g_autofree char *e1 = weft_format_duration (r->after.exposed_comm);
  g_autofree char *text =
    g_strdup_printf ("Applied: %u collective instances in %u group%s over %u ranks (%u forward + %u backward blocks%s%s).\n"
                     "Step %s → %s · overlap %.1f %% → %.1f %% · exposed communication %s → %s.\n"
                     "Undo (Ctrl+Z in the window) removes it all.",
                     r->n_collectives, r->n_groups, r->n_groups == 1 ? "" : "s", r->n_ranks, r->n_forward, r->n_backward,
                     r->n_stripped > 0 ? ", own collectives removed first" : "",
                     r->sizes_inferred ? ", sizes from the GEMMs' shapes" : ", Llama-3-8B sizes", s0, s1,
                     r->before.overlap_pct, r->after.overlap_pct, e0, e1);
  gtk_label_set_text (GTK_LABEL (self->report_label), text);
  gtk_widget_set_visible (self->report_label, TRUE);
}

static void
apply_clicked_cb (GtkButton *button, WeftApplyDialog *self)
{
  WeftApplyParams p;
  g_autoptr (GError) error = NULL;
  WeftTrace *trace = trace_of (self);

  if (!collect_params (self, &p, &error))
    return;
  if (trace->ranks->len == 1)
    {
      /* a one-rank profile: a replicated copy becomes a new trace */
      /* weft_apply_to_trace() takes the copy in every case (the session
       * owns it, or it is freed on failure): no autoptr here. */
      WeftTrace *copy = weft_apply_replicate (trace, p.degree, &error);
      WeftEditSession *session = NULL;
      g_autofree char *name = NULL;

      if (copy != NULL)
        session = weft_apply_to_trace (copy, &p, &self->report, &error);
      if (session == NULL)
        {
          set_error_text (self, error->message);
          gtk_widget_set_visible (self->error_label, TRUE);
          return;
        }
      name = g_strdup_printf ("%s x %d (new)", weft_apply_strategy_to_string (p.strategy), p.degree);
      self->have_report = TRUE;
      self->n_applied++;
      write_state (self, TRUE);
      if (g_signal_has_handler_pending (self, signals[SIGNAL_CREATED], 0, FALSE))
        g_signal_emit (self, signals[SIGNAL_CREATED], 0, session, name);
      else
        weft_edit_session_free (session);
      gtk_window_destroy (GTK_WINDOW (self));
      return;
    }
  if (!weft_apply_strategy (self->session, &p, &self->report, &error))
    {
      set_error_text (self, error->message);
      gtk_widget_set_visible (self->error_label, TRUE);
      write_state (self, TRUE);
      return;
    }
  self->have_report = TRUE;
  self->applied = TRUE;
  self->n_applied++;
  show_report (self);
  gtk_widget_set_sensitive (self->apply, FALSE);
  gtk_button_set_label (GTK_BUTTON (self->cancel), "_Close");
  write_state (self, TRUE);
}

/* ---- construction ------------------------------------------------------------------------------ */

static void
weft_apply_dialog_dispose (GObject *object)
{
  WeftApplyDialog *self = WEFT_APPLY_DIALOG (object);

  if (self->session != NULL)
    write_state (self, FALSE);
  self->session = NULL;
  G_OBJECT_CLASS (weft_apply_dialog_parent_class)->dispose (object);
}

static void
weft_apply_dialog_finalize (GObject *object)
{
  WeftApplyDialog *self = WEFT_APPLY_DIALOG (object);

  g_free (self->error);
  g_free (self->state_path);
  G_OBJECT_CLASS (weft_apply_dialog_parent_class)->finalize (object);
}

static void
weft_apply_dialog_class_init (WeftApplyDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = weft_apply_dialog_dispose;
  object_class->finalize = weft_apply_dialog_finalize;
  signals[SIGNAL_CREATED] = g_signal_new ("created", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_STRING);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static GtkWidget *
heading (const char *text)
{
  GtkWidget *l = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (l), 0);
  gtk_widget_add_css_class (l, "heading");
  gtk_widget_set_margin_top (l, 6);
  return l;
}

static GtkWidget *
wrapped (const char *text, gboolean dim)
{
  GtkWidget *l = gtk_label_new (text);

  gtk_label_set_wrap (GTK_LABEL (l), TRUE);
  gtk_label_set_xalign (GTK_LABEL (l), 0);
  gtk_label_set_max_width_chars (GTK_LABEL (l), 70);
  gtk_label_set_selectable (GTK_LABEL (l), TRUE);
  if (dim)
    gtk_widget_add_css_class (l, "dim-label");
  return l;
}

static void
weft_apply_dialog_init (WeftApplyDialog *self)
{
  GtkWidget *header = gtk_header_bar_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *grid = gtk_grid_new ();
  GtkWidget *l;
  const char *env = g_getenv ("WEFT_TEST_STATE");

  if (env != NULL && *env != '\0')
    self->state_path = g_strconcat (env, ".apply.json", NULL);
  gtk_window_set_title (GTK_WINDOW (self), "Apply a Strategy");
  gtk_window_set_default_size (GTK_WINDOW (self), 640, -1);

  self->cancel = gtk_button_new_with_mnemonic ("_Cancel");
  g_signal_connect_swapped (self->cancel, "clicked", G_CALLBACK (gtk_window_destroy), self);
  self->apply = gtk_button_new_with_mnemonic ("_Apply");
  gtk_widget_add_css_class (self->apply, "suggested-action");
  gtk_widget_set_tooltip_text (self->apply, "Insert the strategy's collectives around the blocks (one undo entry)");
  g_signal_connect (self->apply, "clicked", G_CALLBACK (apply_clicked_cb), self);
  gtk_header_bar_set_show_title_buttons (GTK_HEADER_BAR (header), FALSE);
  gtk_header_bar_pack_start (GTK_HEADER_BAR (header), self->cancel);
  gtk_header_bar_pack_end (GTK_HEADER_BAR (header), self->apply);
  gtk_window_set_titlebar (GTK_WINDOW (self), header);

  gtk_box_append (GTK_BOX (box), heading ("Strategy"));
  for (int i = 0; i < WEFT_APPLY_N_STRATEGIES; i++)
    {
      self->strategy[i] = gtk_check_button_new_with_mnemonic (strategy_labels[i]);
      if (i > 0)
        gtk_check_button_set_group (GTK_CHECK_BUTTON (self->strategy[i]), GTK_CHECK_BUTTON (self->strategy[0]));
      gtk_box_append (GTK_BOX (box), self->strategy[i]);
    }
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->strategy[WEFT_APPLY_FSDP]), TRUE);

  gtk_box_append (GTK_BOX (box), heading ("Group and options"));
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  self->degree = gtk_spin_button_new_with_range (2, 64, 1);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (self->degree), TRUE);
  l = gtk_label_new_with_mnemonic ("De_gree (ranks per group)");
  gtk_label_set_xalign (GTK_LABEL (l), 1);
  gtk_label_set_mnemonic_widget (GTK_LABEL (l), self->degree);
  gtk_grid_attach (GTK_GRID (grid), l, 0, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), self->degree, 1, 0, 1, 1);
  self->bucket = gtk_spin_button_new_with_range (1, 1024, 1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->bucket), 25);
  l = gtk_label_new_with_mnemonic ("DDP buc_ket (MB)");
  gtk_label_set_xalign (GTK_LABEL (l), 1);
  gtk_label_set_mnemonic_widget (GTK_LABEL (l), self->bucket);
  gtk_grid_attach (GTK_GRID (grid), l, 0, 1, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), self->bucket, 1, 1, 1, 1);
  gtk_box_append (GTK_BOX (box), grid);
  self->prefetch = gtk_check_button_new_with_mnemonic ("FSDP _prefetch (all-gather block i+1 while block i computes)");
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->prefetch), TRUE);
  self->reshard = gtk_check_button_new_with_mnemonic ("FSDP reshard after for_ward (all-gather again in backward)");
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->reshard), TRUE);
  self->strip = gtk_check_button_new_with_mnemonic ("Rem_ove the trace's own collectives first");
  gtk_box_append (GTK_BOX (box), self->prefetch);
  gtk_box_append (GTK_BOX (box), self->reshard);
  gtk_box_append (GTK_BOX (box), self->strip);

  self->error_label = wrapped ("", FALSE);
  gtk_widget_set_visible (self->error_label, FALSE);
  gtk_box_append (GTK_BOX (box), self->error_label);
  gtk_box_append (GTK_BOX (box), heading ("What Apply inserts"));
  self->plan_label = wrapped ("", TRUE);
  gtk_box_append (GTK_BOX (box), self->plan_label);
  self->blocks_label = wrapped ("", TRUE);
  gtk_box_append (GTK_BOX (box), self->blocks_label);
  self->report_label = wrapped ("", FALSE);
  gtk_widget_set_visible (self->report_label, FALSE);
  gtk_widget_set_margin_top (self->report_label, 8);
  gtk_box_append (GTK_BOX (box), self->report_label);

  gtk_widget_set_margin_start (box, 18);
  gtk_widget_set_margin_end (box, 18);
  gtk_widget_set_margin_top (box, 12);
  gtk_widget_set_margin_bottom (box, 18);
  gtk_window_set_child (GTK_WINDOW (self), box);
}

GtkWidget *
weft_apply_dialog_new (GtkWindow *parent, WeftEditSession *session)
{
  WeftApplyDialog *self;
  guint n_ranks;

  g_return_val_if_fail (session != NULL, NULL);
  self = g_object_new (WEFT_TYPE_APPLY_DIALOG, NULL);
  self->session = session;
  n_ranks = trace_of (self)->ranks->len;
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (self->degree), n_ranks > 1 ? MIN (n_ranks, 64) : 8);
  find_blocks (self);
  for (int i = 0; i < WEFT_APPLY_N_STRATEGIES; i++)
    g_signal_connect_swapped (self->strategy[i], "toggled", G_CALLBACK (changed_cb), self);
  g_signal_connect_swapped (self->degree, "value-changed", G_CALLBACK (changed_cb), self);
  g_signal_connect_swapped (self->bucket, "value-changed", G_CALLBACK (changed_cb), self);
  g_signal_connect_swapped (self->prefetch, "toggled", G_CALLBACK (changed_cb), self);
  g_signal_connect_swapped (self->reshard, "toggled", G_CALLBACK (changed_cb), self);
  g_signal_connect_swapped (self->strip, "toggled", G_CALLBACK (changed_cb), self);
  if (n_ranks == 1)
    gtk_widget_set_tooltip_text (self->apply, "A one-rank profile is replicated to `degree` ranks into a new trace");
  changed_cb (self);
  if (parent != NULL)
    {
      gtk_window_set_transient_for (GTK_WINDOW (self), parent);
      gtk_window_set_modal (GTK_WINDOW (self), TRUE);
    }
  gtk_window_set_destroy_with_parent (GTK_WINDOW (self), TRUE);
  return GTK_WIDGET (self);
}
