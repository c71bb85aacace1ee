/* weft-inspector.c: the right pane.
 *
 * Rebuilt from scratch for each selection (a handful of labels): the event
 * (name, category, lane, start, duration, solved figures, args parsed
 * lazily with json-c), its dependencies both ways (buttons that follow
 * them: "follow-edge"), the reasons of its critical-path segments, its
 * collective (type, size, group, and each rank's
 * arrival, wait and transfer time from the solver), or for a time range the
 * compute / overlap / communication / idle breakdown per rank. */
#include "config.h"

#include <string.h>

#include "weft/weft-edit.h"
#include "weft-app-util.h"
#include "weft-inspector.h"

#define MAX_ARGS       200
#define MAX_ARG_CHARS  400

struct _WeftInspector
{
  GtkWidget parent_instance;

  GtkWidget *scrolled;
  GtkWidget *box;        /* rebuilt content */

  WeftTrace  *trace;     /* borrowed */
  WeftSolver *solver;    /* borrowed, may be NULL */
  WeftEditSession *session; /* borrowed, may be NULL: read-only */
  guint       cur_rank;  /* the event shown, for the edit controls */
  guint32     cur_event;
  gint64      origin;
  char       *title;
  GArray     *critical;  /* WeftPathSegment of the step's critical path (borrowed), may be NULL */
  GPtrArray  *edges;     /* the edge buttons shown (borrowed widgets) */
  GPtrArray  *reasons;   /* char*: the critical-path reasons shown */
  GtkWidget  *title_label; /* the event's name heading (borrowed), NULL when none */
};

G_DEFINE_FINAL_TYPE (WeftInspector, weft_inspector, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_EDIT_ERROR,
  SIGNAL_FOLLOW,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ---- building blocks -------------------------------------------------------- */

static void
reset (WeftInspector *self, const char *title)
{
  GtkWidget *child;
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  /* Do not leave the focus on a widget that goes away (the edit entries). */
  if (focus != NULL && gtk_widget_is_ancestor (focus, self->box))
    gtk_root_set_focus (root, NULL);
  g_ptr_array_set_size (self->edges, 0);
  g_ptr_array_set_size (self->reasons, 0);
  self->title_label = NULL;
  while ((child = gtk_widget_get_first_child (self->box)) != NULL)
    gtk_box_remove (GTK_BOX (self->box), child);
  g_free (self->title);
  self->title = g_strdup (title);
}

static void
copy_clicked_cb (GtkButton *button, const char *text)
{
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (button)), text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (button), "Copied");
}

/* The event's name as the pane's title: one line, ellipsized in the middle
 * (mangled kernel names run to hundreds of characters), the whole name in
 * its tooltip and a button that copies it. */
static GtkWidget *
add_title (WeftInspector *self, const char *text)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new (text);
  GtkWidget *copy = gtk_button_new_from_icon_name ("edit-copy-symbolic");

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_single_line_mode (GTK_LABEL (label), TRUE);
  gtk_label_set_width_chars (GTK_LABEL (label), 12);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_set_tooltip_text (label, text);
  gtk_widget_add_css_class (label, "title-3");
  gtk_widget_add_css_class (label, "weft-inspector-title");
  gtk_widget_add_css_class (copy, "flat");
  gtk_widget_set_valign (copy, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (copy, "Copy the name");
  g_signal_connect_data (copy, "clicked", G_CALLBACK (copy_clicked_cb), g_strdup (text), (GClosureNotify) (void (*) (void)) g_free,
                         0);
  gtk_box_append (GTK_BOX (row), label);
  gtk_box_append (GTK_BOX (row), copy);
  gtk_box_append (GTK_BOX (self->box), row);
  self->title_label = label;
  return label;
}

static GtkWidget *
add_heading (WeftInspector *self, const char *text, gboolean big)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), big);
  {
    /* kernel names are long identifiers: break them without hyphens */
    PangoAttrList *attrs = pango_attr_list_new ();
    pango_attr_list_insert (attrs, pango_attr_insert_hyphens_new (FALSE));
    gtk_label_set_attributes (GTK_LABEL (label), attrs);
    pango_attr_list_unref (attrs);
  }
  gtk_widget_add_css_class (label, big ? "title-3" : "heading");
  gtk_widget_add_css_class (label, big ? "weft-inspector-title" : "weft-inspector-section");
  gtk_box_append (GTK_BOX (self->box), label);
  return label;
}

static GtkWidget *
add_grid (WeftInspector *self)
{
  GtkWidget *grid = gtk_grid_new ();

  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 3);
  gtk_box_append (GTK_BOX (self->box), grid);
  return grid;
}

static void
grid_row (GtkWidget *grid, int row, const char *key, const char *value)
{
  GtkWidget *k = gtk_label_new (key);
  GtkWidget *v = gtk_label_new (value);

  gtk_label_set_xalign (GTK_LABEL (k), 0);
  gtk_label_set_yalign (GTK_LABEL (k), 0);
  gtk_widget_add_css_class (k, "dim-label");
  gtk_label_set_xalign (GTK_LABEL (v), 0);
  gtk_label_set_selectable (GTK_LABEL (v), TRUE);
  gtk_label_set_wrap (GTK_LABEL (v), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (v), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_max_width_chars (GTK_LABEL (v), 40);
  gtk_widget_set_hexpand (v, TRUE);
  gtk_grid_attach (GTK_GRID (grid), k, 0, row, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), v, 1, row, 1, 1);
}

static void
grid_cells (GtkWidget *grid, int row, const char *const *cells, guint n, gboolean header)
{
  for (guint i = 0; i < n; i++)
    {
      GtkWidget *l = gtk_label_new (cells[i]);
      gtk_label_set_xalign (GTK_LABEL (l), i == 0 ? 0 : 1);
      if (header)
        gtk_widget_add_css_class (l, "dim-label");
      else
        gtk_widget_add_css_class (l, "numeric");
      gtk_grid_attach (GTK_GRID (grid), l, (int) i, row, 1, 1);
    }
}

static gint64
event_start (WeftInspector *self, guint r, guint32 e)
{
  WeftRank *rank = weft_trace_rank (self->trace, r);
  if (self->solver != NULL)
    return weft_solver_start (self->solver, r, e);
  return weft_rank_event (rank, e)->ts + weft_trace_rank_offset (self->trace, rank);
}

static gint64
event_end (WeftInspector *self, guint r, guint32 e)
{
  WeftRank *rank = weft_trace_rank (self->trace, r);
  if (self->solver != NULL)
    return weft_solver_end (self->solver, r, e);
  return weft_event_end (rank, weft_rank_event (rank, e)) + weft_trace_rank_offset (self->trace, rank);
}

static char *
lane_label (WeftRank *rank, guint32 lane_idx)
{
  WeftLane *lane;
  const char *name;

  if (lane_idx == WEFT_NONE)
    return g_strdup ("none");
  lane = weft_rank_lane (rank, lane_idx);
  name = weft_rank_string (rank, lane->name);
  if (lane->kind == WEFT_LANE_GPU)
    return g_strdup_printf ("GPU %d · stream %" G_GINT64_FORMAT "%s%s", lane->device, lane->tid,
                            lane->role != WEFT_LANE_ROLE_NONE ? " · " : "",
                            lane->role != WEFT_LANE_ROLE_NONE ? weft_lane_role_to_string (lane->role) : "");
  if (lane->kind == WEFT_LANE_CPU)
    return g_strdup_printf ("CPU thread %" G_GINT64_FORMAT "%s%s%s", lane->tid, *name ? " (" : "", name,
                            *name ? ")" : "");
  return g_strdup_printf ("%s / %s", weft_rank_string (rank, lane->pid_text), weft_rank_string (rank, lane->tid_text));
}

/* ---- collective ------------------------------------------------------------- */

static void
show_collective (WeftInspector *self, guint rank_index, const WeftCollective *coll)
{
  WeftRank *rank = weft_trace_rank (self->trace, rank_index);
  GtkWidget *grid;
  int row = 0;
  g_autofree char *bytes = weft_format_bytes (coll->bytes);
  g_autofree char *group = NULL;
  static const char *const cols[] = { "Rank", "Arrival", "Wait", "Transfer" };

  add_heading (self, "Collective", FALSE);
  grid = add_grid (self);
  grid_row (grid, row++, "Type", weft_coll_type_to_string (coll->type));
  if (coll->coll_name != 0)
    grid_row (grid, row++, "Name", weft_rank_string (rank, coll->coll_name));
  grid_row (grid, row++, "Size", bytes);
  if (coll->dtype != 0)
    grid_row (grid, row++, "Data type", weft_rank_string (rank, coll->dtype));
  if (coll->in_nelems >= 0 || coll->out_nelems >= 0)
    {
      g_autofree char *n = g_strdup_printf ("in %" G_GINT64_FORMAT " / out %" G_GINT64_FORMAT, coll->in_nelems,
                                            coll->out_nelems);
      grid_row (grid, row++, "Elements", n);
    }
  {
    GString *g = g_string_new (NULL);
    if (coll->pg_name != 0)
      g_string_append (g, weft_rank_string (rank, coll->pg_name));
    if (coll->pg_desc != 0)
      g_string_append_printf (g, "%s%s", g->len ? " · " : "", weft_rank_string (rank, coll->pg_desc));
    if (coll->group_size > 0)
      g_string_append_printf (g, "%s%d ranks", g->len ? " · " : "", coll->group_size);
    if (coll->n_pg_ranks > 0)
      {
        g_string_append (g, g->len ? " [" : "[");
        for (guint i = 0; i < coll->n_pg_ranks && i < 64; i++)
          g_string_append_printf (g, "%s%d", i ? "," : "", coll->pg_ranks[i]);
        g_string_append (g, coll->n_pg_ranks > 64 ? ",…]" : "]");
      }
    group = g_string_free (g, FALSE);
  }
  grid_row (grid, row++, "Group", *group ? group : "unknown");
  if (coll->seq >= 0)
    {
      g_autofree char *s = g_strdup_printf ("%" G_GINT64_FORMAT, coll->seq);
      grid_row (grid, row++, "Seq", s);
    }
  if (coll->src_rank >= 0 || coll->dst_rank >= 0)
    {
      g_autofree char *s = g_strdup_printf ("%d → %d", coll->src_rank, coll->dst_rank);
      grid_row (grid, row++, "Peer", s);
    }

  if (coll->instance == WEFT_NONE || coll->instance >= self->trace->instances->len)
    {
      grid_row (grid, row++, "Instance", "not matched across ranks");
      return;
    }

  {
    const WeftCollInstance *inst = &g_array_index (self->trace->instances, WeftCollInstance, coll->instance);
    guint n = inst->members->len;
    g_autofree WeftSolverArrival *arr = g_new0 (WeftSolverArrival, MAX (n, 1));
    WeftSolverInstanceInfo info = { 0 };
    gboolean have = FALSE;
    gint64 first = G_MAXINT64;
    g_autofree char *transfer = NULL;
    g_autofree char *maxwait = NULL;
    static const char *const methods[] = { "process group + Seq", "ordinal in process group",
                                           "ordinal on stream", "send/recv peers" };

    if (self->solver != NULL)
      have = weft_solver_instance_info (self->solver, coll->instance, &info, arr, n);
    if (!have)
      {
        /* observed times */
        info.n_members = n;
        info.last_arrival = G_MININT64;
        info.end = G_MININT64;
        for (guint i = 0; i < n; i++)
          {
            const WeftInstanceMember *m = &g_array_index (inst->members, WeftInstanceMember, i);
            WeftRank *mr = weft_trace_rank (self->trace, m->rank_index);
            const WeftCollective *mc = &g_array_index (mr->collectives, WeftCollective, m->coll);
            arr[i].rank_index = m->rank_index;
            arr[i].event = mc->event;
            arr[i].arrival = event_start (self, m->rank_index, mc->event);
            arr[i].end = event_end (self, m->rank_index, mc->event);
            if (arr[i].arrival > info.last_arrival)
              {
                info.last_arrival = arr[i].arrival;
                info.last_rank_index = m->rank_index;
              }
            info.end = MAX (info.end, arr[i].end);
          }
        for (guint i = 0; i < n; i++)
          {
            arr[i].wait = info.last_arrival - arr[i].arrival;
            info.max_wait = MAX (info.max_wait, arr[i].wait);
            info.total_wait += arr[i].wait;
          }
        info.transfer = info.end - info.last_arrival;
      }

    transfer = weft_format_duration (info.transfer);
    maxwait = weft_format_duration (info.max_wait);
    grid_row (grid, row++, "Matched by", methods[CLAMP (inst->method, 0, 3)]);
    grid_row (grid, row++, "Transfer", transfer);
    grid_row (grid, row++, "Longest wait", maxwait);
    {
      g_autofree char *s = g_strdup_printf ("rank %d", weft_trace_rank (self->trace, info.last_rank_index)->rank);
      grid_row (grid, row++, "Last to arrive", s);
    }

    add_heading (self, "Per rank (arrival relative to the first)", FALSE);
    grid = add_grid (self);
    grid_cells (grid, 0, cols, G_N_ELEMENTS (cols), TRUE);
    for (guint i = 0; i < n; i++)
      first = MIN (first, arr[i].arrival);
    for (guint i = 0; i < n && i < 512; i++)
      {
        g_autofree char *rk = g_strdup_printf ("%d%s", weft_trace_rank (self->trace, arr[i].rank_index)->rank,
                                               arr[i].rank_index == rank_index ? " •" : "");
        g_autofree char *a = weft_format_delta (arr[i].arrival - first);
        g_autofree char *w = weft_format_duration (arr[i].wait);
        g_autofree char *t = weft_format_duration (arr[i].end - MAX (arr[i].arrival, info.last_arrival));
        const char *cells[] = { rk, a, w, t };
        grid_cells (grid, (int) i + 1, cells, 4, FALSE);
      }
  }
}

/* ---- args ------------------------------------------------------------------- */

static void
show_args (WeftInspector *self, WeftRank *rank, const WeftEvent *ev)
{
  json_object *args = weft_event_parse_args (rank, ev);
  GtkWidget *grid;
  int row = 0;

  if (args == NULL)
    return;
  if (!json_object_is_type (args, json_type_object) || json_object_object_length (args) == 0)
    {
      json_object_put (args);
      return;
    }
  add_heading (self, "Args", FALSE);
  grid = add_grid (self);
  json_object_object_foreach (args, key, val)
    {
      const char *text;
      g_autofree char *shown = NULL;

      if (row >= MAX_ARGS)
        {
          grid_row (grid, row++, "…", "more args not shown");
          break;
        }
      if (val != NULL && json_object_is_type (val, json_type_string))
        text = json_object_get_string (val);
      else
        text = json_object_to_json_string_ext (val, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
      if (text == NULL)
        text = "null";
      if (g_utf8_strlen (text, -1) > MAX_ARG_CHARS)
        {
          const char *end = g_utf8_offset_to_pointer (text, MAX_ARG_CHARS);
          shown = g_strdup_printf ("%.*s…", (int) (end - text), text);
        }
      else
        shown = g_utf8_make_valid (text, -1);
      grid_row (grid, row++, key, shown);
    }
  json_object_put (args);
}

/* ---- edit controls ------------------------------------------------------------ */

/* "12.5" (µs), "12.5us", "12.5 µs", "1.2ms", "800ns", "0.5s" -> ns; FALSE if unreadable. */
static gboolean
parse_duration (const char *text, gint64 *ns)
{
  char *end = NULL;
  double v;
  double unit = 1e3;

  while (g_ascii_isspace (*text))
    text++;
  v = g_ascii_strtod (text, &end);
  if (end == text || v < 0 || v > 1e12)
    return FALSE;
  while (g_ascii_isspace (*end))
    end++;
  if (*end == '\0' || g_str_has_prefix (end, "us") || g_str_has_prefix (end, "µs"))
    unit = 1e3;
  else if (g_str_has_prefix (end, "ns"))
    unit = 1;
  else if (g_str_has_prefix (end, "ms"))
    unit = 1e6;
  else if (g_str_has_prefix (end, "s"))
    unit = 1e9;
  else
    return FALSE;
  *ns = (gint64) (v * unit + 0.5);
  return TRUE;
}

static void
duration_activate_cb (GtkEntry *entry, WeftInspector *self)
{
  WeftEventRef op = { self->cur_rank, self->cur_event };
  g_autoptr (GError) error = NULL;
  gint64 ns;

  if (self->session == NULL)
    return;
  if (!parse_duration (gtk_editable_get_text (GTK_EDITABLE (entry)), &ns))
    {
      gtk_widget_add_css_class (GTK_WIDGET (entry), "error");
      return;
    }
  gtk_widget_remove_css_class (GTK_WIDGET (entry), "error");
  if (!weft_edit_session_set_duration (self->session, op, ns, &error))
    g_signal_emit (self, signals[SIGNAL_EDIT_ERROR], 0, "Could not set the duration", error->message);
}

static void
stream_activate_cb (GtkEntry *entry, WeftInspector *self)
{
  WeftEventRef op = { self->cur_rank, self->cur_event };
  g_autoptr (GError) error = NULL;
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));
  char *end = NULL;
  gint64 stream = g_ascii_strtoll (text, &end, 10);

  if (self->session == NULL)
    return;
  if (end == text || *end != '\0' || stream < 0)
    {
      gtk_widget_add_css_class (GTK_WIDGET (entry), "error");
      return;
    }
  gtk_widget_remove_css_class (GTK_WIDGET (entry), "error");
  if (!weft_edit_session_move_to_stream (self->session, op, stream, -1, TRUE, &error))
    g_signal_emit (self, signals[SIGNAL_EDIT_ERROR], 0, "The op cannot move to that stream", error->message);
}

static void
scale_clicked_cb (GtkButton *button, WeftInspector *self)
{
  WeftEventRef op = { self->cur_rank, self->cur_event };
  double factor = *(const double *) g_object_get_data (G_OBJECT (button), "factor");
  g_autoptr (GError) error = NULL;

  if (self->session != NULL && !weft_edit_session_scale_duration (self->session, op, factor, &error))
    g_signal_emit (self, signals[SIGNAL_EDIT_ERROR], 0, "Could not scale the duration", error->message);
}

/* Duration entry, stream entry and scale buttons for a GPU op. */
static void
add_edit_controls (WeftInspector *self, guint rank_index, guint32 event, gint64 dur)
{
  static const double factors[] = { 0.5, 0.8, 1.25, 2.0 };
  static const char *const labels[] = { "×0.5", "×0.8", "×1.25", "×2" };
  GtkWidget *grid, *entry, *stream, *box;
  WeftRank *rank = weft_trace_rank (self->trace, rank_index);
  guint32 lane = weft_solver_op_lane (self->solver, rank_index, event);
  g_autofree char *dur_text = g_strdup_printf ("%.3f", dur / 1e3);
  g_autofree char *stream_text = NULL;

  self->cur_rank = rank_index;
  self->cur_event = event;
  add_heading (self, "Edit", FALSE);
  grid = add_grid (self);

  entry = gtk_entry_new ();
  gtk_editable_set_text (GTK_EDITABLE (entry), dur_text);
  gtk_editable_set_width_chars (GTK_EDITABLE (entry), 12);
  gtk_widget_set_tooltip_text (entry, "Duration in µs (or with a unit: ns, us, ms, s); Enter applies. "
                                      "For a collective: its transfer time on every rank.");
  g_signal_connect (entry, "activate", G_CALLBACK (duration_activate_cb), self);
  gtk_grid_attach (GTK_GRID (grid), gtk_label_new ("Duration (µs)"), 0, 0, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), entry, 1, 0, 1, 1);

  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_add_css_class (box, "linked");
  for (guint i = 0; i < G_N_ELEMENTS (factors); i++)
    {
      GtkWidget *b = gtk_button_new_with_label (labels[i]);
      g_object_set_data (G_OBJECT (b), "factor", (gpointer) &factors[i]);
      gtk_widget_set_tooltip_text (b, "Scale this op's duration");
      g_signal_connect (b, "clicked", G_CALLBACK (scale_clicked_cb), self);
      gtk_box_append (GTK_BOX (box), b);
    }
  gtk_grid_attach (GTK_GRID (grid), gtk_label_new ("Scale"), 0, 1, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), box, 1, 1, 1, 1);

  stream = gtk_entry_new ();
  if (lane != WEFT_NONE)
    stream_text = g_strdup_printf ("%" G_GINT64_FORMAT, weft_rank_lane (rank, lane)->tid);
  gtk_editable_set_text (GTK_EDITABLE (stream), stream_text != NULL ? stream_text : "");
  gtk_editable_set_width_chars (GTK_EDITABLE (stream), 12);
  gtk_widget_set_tooltip_text (stream, "Move to the stream with this id on the same GPU (created when missing); "
                                       "a collective moves on every rank. Enter applies.");
  g_signal_connect (stream, "activate", G_CALLBACK (stream_activate_cb), self);
  gtk_grid_attach (GTK_GRID (grid), gtk_label_new ("Stream"), 0, 2, 1, 1);
  gtk_grid_attach (GTK_GRID (grid), stream, 1, 2, 1, 1);
  for (GtkWidget *c = gtk_widget_get_first_child (grid); c != NULL; c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_LABEL (c))
      {
        gtk_label_set_xalign (GTK_LABEL (c), 0);
        gtk_widget_add_css_class (c, "dim-label");
      }
}

/* ---- dependencies, both ways; the critical path's reasons -------------------------- */

#define MAX_EDGES 24

static void
edge_clicked_cb (GtkButton *button, WeftInspector *self)
{
  guint r = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "weft-rank"));
  guint32 e = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "weft-event"));

  g_signal_emit (self, signals[SIGNAL_FOLLOW], 0, r, e);
}

/* One list of edges: a button per edge, a click follows it. */
static void
add_edge_list (WeftInspector *self, const char *title, const char *dir, const WeftSolverDep *deps, guint n,
               guint total, guint bind_rank, guint32 bind_event)
{
  GtkWidget *list;

  add_heading (self, title, FALSE);
  if (n == 0)
    {
      GtkWidget *none = gtk_label_new (strcmp (dir, "pred") == 0 ? "nothing: released at its observed time"
                                                                : "nothing");
      gtk_label_set_xalign (GTK_LABEL (none), 0);
      gtk_widget_add_css_class (none, "dim-label");
      gtk_box_append (GTK_BOX (self->box), none);
      return;
    }
  list = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  for (guint i = 0; i < n; i++)
    {
      WeftRank *orank = weft_trace_rank (self->trace, deps[i].rank_index);
      const char *name = deps[i].event < orank->events->len
                             ? weft_rank_string (orank, weft_rank_event (orank, deps[i].event)->name)
                             : "?";
      gboolean binding = deps[i].rank_index == bind_rank && deps[i].event == bind_event;
      g_autofree char *text = g_strdup_printf ("%s%s · rank %d · %s", weft_dep_kind_to_string (deps[i].kind),
                                               binding ? " (decides its start)"
                                                       : (deps[i].kind == WEFT_DEP_RENDEZVOUS ? " (arrives last)" : ""),
                                               orank->rank, name);
      g_autofree char *tip = g_strdup_printf ("%s\nClick to select it", text);
      GtkWidget *button = gtk_button_new ();
      GtkWidget *label = gtk_label_new (text);

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_button_set_child (GTK_BUTTON (button), label);
      gtk_widget_add_css_class (button, "flat");
      gtk_widget_set_tooltip_text (button, tip);
      g_object_set_data (G_OBJECT (button), "weft-rank", GUINT_TO_POINTER (deps[i].rank_index));
      g_object_set_data (G_OBJECT (button), "weft-event", GUINT_TO_POINTER (deps[i].event));
      g_object_set_data (G_OBJECT (button), "weft-dir", (gpointer) dir);
      g_object_set_data (G_OBJECT (button), "weft-kind", (gpointer) weft_dep_kind_to_string (deps[i].kind));
      g_signal_connect (button, "clicked", G_CALLBACK (edge_clicked_cb), self);
      gtk_box_append (GTK_BOX (list), button);
      g_ptr_array_add (self->edges, button);
    }
  if (total > n)
    {
      g_autofree char *more = g_strdup_printf ("… and %u more", total - n);
      GtkWidget *l = gtk_label_new (more);
      gtk_label_set_xalign (GTK_LABEL (l), 0);
      gtk_widget_add_css_class (l, "dim-label");
      gtk_box_append (GTK_BOX (list), l);
    }
  gtk_box_append (GTK_BOX (self->box), list);
}

/* The dependencies of one direction, a collective's rendezvous folded into
 * one entry: its last-arriving rank's member (the one the others wait for;
 * the other members are in the Collective section). Returns how many are
 * kept in out (n_in in, kept in place). */
static guint
fold_rendezvous (WeftInspector *self, guint rank_index, guint32 event, WeftSolverDep *deps, guint n, gboolean keep_last)
{
  WeftRank *rank = weft_trace_rank (self->trace, rank_index);
  const WeftEvent *ev = weft_rank_event (rank, event);
  WeftSolverInstanceInfo info;
  guint32 inst = WEFT_NONE;
  guint k = 0;

  if (weft_event_coll (rank, ev) != WEFT_NONE && weft_event_coll (rank, ev) < rank->collectives->len)
    inst = g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev)).instance;
  if (inst == WEFT_NONE || !weft_solver_instance_info (self->solver, inst, &info, NULL, 0))
    info.last_rank_index = G_MAXUINT;
  for (guint i = 0; i < n; i++)
    {
      if (deps[i].kind == WEFT_DEP_RENDEZVOUS && (!keep_last || deps[i].rank_index != info.last_rank_index))
        continue;
      deps[k++] = deps[i];
    }
  return k;
}

/* What the op waits for and what waits on it (weft_solver_preds /
 * weft_solver_succs). */
static void
show_dependencies (WeftInspector *self, guint rank_index, guint32 event)
{
  WeftSolverDep deps[MAX_EDGES];
  guint n, shown;
  guint br = G_MAXUINT;
  guint32 be = WEFT_NONE;

  weft_solver_binding (self->solver, rank_index, event, &br, &be);
  n = weft_solver_preds (self->solver, rank_index, event, deps, MAX_EDGES);
  shown = fold_rendezvous (self, rank_index, event, deps, MIN (n, (guint) MAX_EDGES), TRUE);
  add_edge_list (self, "Waits for", "pred", deps, shown, shown + (n > MAX_EDGES ? n - MAX_EDGES : 0), br, be);
  n = weft_solver_succs (self->solver, rank_index, event, deps, MAX_EDGES);
  shown = fold_rendezvous (self, rank_index, event, deps, MIN (n, (guint) MAX_EDGES), FALSE);
  add_edge_list (self, "Waited on by", "succ", deps, shown, shown + (n > MAX_EDGES ? n - MAX_EDGES : 0), G_MAXUINT,
                 WEFT_NONE);
}

/* The collective instance of an op, WEFT_NONE if none. */
static guint32
op_instance (WeftTrace *trace, guint rank_index, guint32 event)
{
  WeftRank *rank = weft_trace_rank (trace, rank_index);
  const WeftEvent *ev = event < rank->events->len ? weft_rank_event (rank, event) : NULL;

  if (ev == NULL || weft_event_coll (rank, ev) == WEFT_NONE || weft_event_coll (rank, ev) >= rank->collectives->len)
    return WEFT_NONE;
  return g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev)).instance;
}

/* The op's segments of the step's critical path, each with its reason; for
 * a collective also its instance's transfer where the path takes it on
 * another rank. */
static void
show_critical (WeftInspector *self, guint rank_index, guint32 event)
{
  gboolean any = FALSE;
  guint32 inst = op_instance (self->trace, rank_index, event);

  if (self->critical == NULL)
    return;
  for (guint i = 0; i < self->critical->len; i++)
    {
      const WeftPathSegment *seg = &g_array_index (self->critical, WeftPathSegment, i);
      char *why;
      GtkWidget *label;
      gboolean same_op = seg->rank_index == rank_index && seg->event == event;
      gboolean same_inst = inst != WEFT_NONE && seg->kind == WEFT_PATH_COMM &&
                           op_instance (self->trace, seg->rank_index, seg->event) == inst;

      if (!same_op && !same_inst)
        continue;
      if (!any)
        add_heading (self, "Why it is on the critical path", FALSE);
      any = TRUE;
      why = weft_solver_path_reason (self->solver, seg);
      label = gtk_label_new (why);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_max_width_chars (GTK_LABEL (label), 50);
      /* not selectable: a selectable wrapped label takes the clicks meant
       * for the buttons below it (GTK 4.8) */
      gtk_widget_add_css_class (label, "weft-inspector-reason");
      gtk_box_append (GTK_BOX (self->box), label);
      g_ptr_array_add (self->reasons, why);
    }
}

void
weft_inspector_set_critical_path (WeftInspector *self, GArray *segments)
{
  g_return_if_fail (WEFT_IS_INSPECTOR (self));
  self->critical = segments;
}

guint
weft_inspector_get_n_edges (WeftInspector *self)
{
  g_return_val_if_fail (WEFT_IS_INSPECTOR (self), 0);
  return self->edges->len;
}

GtkWidget *
weft_inspector_get_edge (WeftInspector *self, guint i, const char **dir, const char **kind, guint *rank_index,
                         guint32 *event)
{
  GtkWidget *b;

  g_return_val_if_fail (WEFT_IS_INSPECTOR (self), NULL);
  g_return_val_if_fail (i < self->edges->len, NULL);
  b = g_ptr_array_index (self->edges, i);
  *dir = g_object_get_data (G_OBJECT (b), "weft-dir");
  *kind = g_object_get_data (G_OBJECT (b), "weft-kind");
  *rank_index = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (b), "weft-rank"));
  *event = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (b), "weft-event"));
  return b;
}

GtkWidget *
weft_inspector_get_title_label (WeftInspector *self)
{
  g_return_val_if_fail (WEFT_IS_INSPECTOR (self), NULL);
  return self->title_label;
}

const GPtrArray *
weft_inspector_get_reasons (WeftInspector *self)
{
  g_return_val_if_fail (WEFT_IS_INSPECTOR (self), NULL);
  return self->reasons;
}

/* ---- public ------------------------------------------------------------------ */

void
weft_inspector_show_event (WeftInspector *self, guint rank_index, guint32 event)
{
  WeftRank *rank;
  const WeftEvent *ev;
  GtkWidget *grid;
  int row = 0;
  gint64 start, end;
  g_autofree char *lane = NULL;
  g_autofree char *s_start = NULL;
  g_autofree char *s_dur = NULL;
  g_autofree char *s_rank = NULL;
  gboolean show_edges = FALSE;

  g_return_if_fail (WEFT_IS_INSPECTOR (self));
  if (self->trace == NULL || rank_index >= self->trace->ranks->len)
    return;
  rank = weft_trace_rank (self->trace, rank_index);
  if (event >= rank->events->len)
    return;
  ev = weft_rank_event (rank, event);

  reset (self, weft_rank_string (rank, ev->name));
  add_title (self, weft_rank_string (rank, ev->name));

  start = event_start (self, rank_index, event);
  end = event_end (self, rank_index, event);
  lane = lane_label (rank, ev->lane);
  s_start = weft_format_duration (start - self->origin);
  s_dur = weft_format_duration (end - start);
  s_rank = g_strdup_printf ("%d", rank->rank);

  add_heading (self, "Event", FALSE);
  grid = add_grid (self);
  grid_row (grid, row++, "Category", weft_rank_string (rank, ev->cat));
  if (ev->kclass != WEFT_KCLASS_NONE)
    grid_row (grid, row++, "Class", weft_kernel_class_to_string (ev->kclass));
  grid_row (grid, row++, "Rank", s_rank);
  grid_row (grid, row++, "Lane", lane);
  grid_row (grid, row++, "Start", s_start);
  grid_row (grid, row++, "Duration", s_dur);

  if (self->solver != NULL && weft_solver_is_node (self->solver, rank_index, event))
    {
      guint pr = 0;
      guint32 pe = WEFT_NONE;
      WeftDepKind dep = weft_solver_binding (self->solver, rank_index, event, &pr, &pe);
      gint64 slack = weft_solver_slack (self->solver, rank_index, event);
      gint64 observed = ev->ts + weft_trace_rank_offset (self->trace, rank);

      if (start != observed)
        {
          g_autofree char *moved = weft_format_delta (start - observed);
          grid_row (grid, row++, "Moved by", moved);
        }
      if (slack >= 0)
        {
          g_autofree char *s = weft_format_duration (slack);
          grid_row (grid, row++, "Slack", s);
        }
      grid_row (grid, row++, "Critical path",
                weft_solver_is_critical (self->solver, rank_index, event) ? "yes" : "no");
      if (dep != WEFT_DEP_NONE && pe != WEFT_NONE && pr < self->trace->ranks->len)
        {
          WeftRank *prank = weft_trace_rank (self->trace, pr);
          g_autofree char *s = g_strdup_printf ("%s: %s (rank %d)", weft_dep_kind_to_string (dep),
                                                weft_rank_string (prank, weft_rank_event (prank, pe)->name),
                                                prank->rank);
          grid_row (grid, row++, "Started by", s);
        }
      else if (weft_solver_inferred_cause (self->solver, rank_index, event, &pr, &pe) == WEFT_DEP_INFERRED &&
               pr < self->trace->ranks->len)
        {
          /* no recorded edge explains the start: say what most likely did */
          WeftRank *prank = weft_trace_rank (self->trace, pr);
          g_autofree char *s = g_strdup_printf ("inferred: %s (rank %d; no recorded edge, it ended last before)",
                                                weft_rank_string (prank, weft_rank_event (prank, pe)->name),
                                                prank->rank);
          grid_row (grid, row++, "Started by", s);
        }
      show_edges = TRUE;
    }
  if (weft_event_link (ev) != WEFT_NONE && weft_event_link (ev) < rank->events->len)
    {
      const WeftEvent *l = weft_rank_event (rank, weft_event_link (ev));
      grid_row (grid, row++, (ev->flags & WEFT_EVENT_GPU_OP) ? "Launched by" : "Launches",
                weft_rank_string (rank, l->name));
    }
  if (weft_event_correlation (rank, ev) >= 0)
    {
      g_autofree char *s = g_strdup_printf ("%" G_GINT64_FORMAT, weft_event_correlation (rank, ev));
      grid_row (grid, row++, "Correlation", s);
    }
  {
    WeftPpAction act;
    static const char *const kinds[] = { "forward", "backward", "input gradients", "weight gradients" };
    if (weft_rank_pp_action (rank, event, &act))
      {
        g_autofree char *s = g_strdup_printf ("stage %d, %s of microbatch %d", act.stage,
                                              kinds[act.kind == 'F' ? 0 : act.kind == 'B' ? 1 : act.kind == 'I' ? 2 : 3],
                                              act.microbatch);
        grid_row (grid, row++, "Pipeline", s);
      }
  }

  if (show_edges)
    {
      show_dependencies (self, rank_index, event);
      show_critical (self, rank_index, event);
    }

  if (self->session != NULL && self->solver != NULL && weft_solver_is_node (self->solver, rank_index, event))
    add_edit_controls (self, rank_index, event, end - start);

  if (weft_event_coll (rank, ev) != WEFT_NONE && weft_event_coll (rank, ev) < rank->collectives->len)
    show_collective (self, rank_index, &g_array_index (rank->collectives, WeftCollective, weft_event_coll (rank, ev)));

  show_args (self, rank, ev);
}

void
weft_inspector_show_range (WeftInspector *self, WeftTimeSpan range, const WeftRenderTimes *times)
{
  GtkWidget *grid;
  g_autofree char *len = NULL;
  g_autofree char *from = NULL;
  static const char *const cols[] = { "Rank", "Compute", "Overlap", "Comm", "Idle", "Overlap %" };
  gint64 tot[WEFT_OVERLAP_N_STATES] = { 0 };
  guint n = 0;

  g_return_if_fail (WEFT_IS_INSPECTOR (self));
  if (self->trace == NULL)
    return;
  reset (self, "Range");
  len = weft_format_duration (range.end - range.begin);
  from = weft_format_duration (range.begin - self->origin);
  add_heading (self, "Time range", TRUE);
  grid = add_grid (self);
  grid_row (grid, 0, "Start", from);
  grid_row (grid, 1, "Length", len);

  add_heading (self, "GPU time per rank (compute only, overlapped, communication only, idle)", FALSE);
  grid = add_grid (self);
  grid_cells (grid, 0, cols, G_N_ELEMENTS (cols), TRUE);
  for (guint r = 0; r < self->trace->ranks->len; r++)
    {
      g_autoptr (GArray) band = weft_render_overlap_band (self->trace, times, r);
      gint64 sum[WEFT_OVERLAP_N_STATES] = { 0 };
      gint64 covered = 0;
      char *cells[6];

      if (band == NULL)
        continue;
      for (guint i = 0; i < band->len; i++)
        {
          const WeftOverlapSegment *s = &g_array_index (band, WeftOverlapSegment, i);
          gint64 b = MAX (s->begin, range.begin), e = MIN (s->end, range.end);
          if (e > b && s->state < WEFT_OVERLAP_N_STATES)
            {
              sum[s->state] += e - b;
              covered += e - b;
            }
        }
      /* time in the range outside the rank's first..last op is idle */
      sum[WEFT_OVERLAP_IDLE] += MAX ((gint64) 0, (range.end - range.begin) - covered);
      for (int k = 0; k < WEFT_OVERLAP_N_STATES; k++)
        tot[k] += sum[k];
      n++;
      cells[0] = g_strdup_printf ("%d", weft_trace_rank (self->trace, r)->rank);
      cells[1] = weft_format_duration (sum[WEFT_OVERLAP_COMPUTE_ONLY]);
      cells[2] = weft_format_duration (sum[WEFT_OVERLAP_OVERLAPPED]);
      cells[3] = weft_format_duration (sum[WEFT_OVERLAP_COMM_ONLY]);
      cells[4] = weft_format_duration (sum[WEFT_OVERLAP_IDLE]);
      {
        gint64 comm = sum[WEFT_OVERLAP_OVERLAPPED] + sum[WEFT_OVERLAP_COMM_ONLY];
        cells[5] = comm > 0 ? g_strdup_printf ("%.1f%%", 100.0 * sum[WEFT_OVERLAP_OVERLAPPED] / comm) : g_strdup ("–");
      }
      grid_cells (grid, (int) n, (const char *const *) cells, 6, FALSE);
      for (int k = 0; k < 6; k++)
        g_free (cells[k]);
    }
  if (n > 1)
    {
      char *cells[6];
      gint64 comm = tot[WEFT_OVERLAP_OVERLAPPED] + tot[WEFT_OVERLAP_COMM_ONLY];
      cells[0] = g_strdup ("mean");
      cells[1] = weft_format_duration (tot[WEFT_OVERLAP_COMPUTE_ONLY] / n);
      cells[2] = weft_format_duration (tot[WEFT_OVERLAP_OVERLAPPED] / n);
      cells[3] = weft_format_duration (tot[WEFT_OVERLAP_COMM_ONLY] / n);
      cells[4] = weft_format_duration (tot[WEFT_OVERLAP_IDLE] / n);
      cells[5] = comm > 0 ? g_strdup_printf ("%.1f%%", 100.0 * tot[WEFT_OVERLAP_OVERLAPPED] / comm) : g_strdup ("–");
      grid_cells (grid, (int) n + 1, (const char *const *) cells, 6, FALSE);
      for (int k = 0; k < 6; k++)
        g_free (cells[k]);
    }
  {
    GtkWidget *note = gtk_label_new ("Overlap % = overlapped / communication time (the HTA definition).");
    gtk_label_set_wrap (GTK_LABEL (note), TRUE);
    gtk_label_set_xalign (GTK_LABEL (note), 0);
    gtk_widget_add_css_class (note, "dim-label");
    gtk_box_append (GTK_BOX (self->box), note);
  }
}

void
weft_inspector_show_summary (WeftInspector *self)
{
  GtkWidget *grid;
  int row = 0;
  guint64 n_events = 0, n_gpu = 0, n_lanes = 0, n_coll = 0;
  WeftTimeSpan span;
  g_autofree char *s_span = NULL;
  g_autofree char *s_ev = NULL;
  g_autofree char *s_gpu = NULL;
  g_autofree char *s_ranks = NULL;
  g_autofree char *s_coll = NULL;

  g_return_if_fail (WEFT_IS_INSPECTOR (self));
  reset (self, "Trace");
  if (self->trace == NULL)
    return;
  for (guint r = 0; r < self->trace->ranks->len; r++)
    {
      WeftRank *rank = weft_trace_rank (self->trace, r);
      n_events += rank->events->len;
      n_lanes += rank->lanes->len;
      n_coll += rank->collectives->len;
      for (guint e = 0; e < rank->events->len; e++)
        n_gpu += (weft_rank_event (rank, e)->flags & (WEFT_EVENT_GPU_OP | WEFT_EVENT_DELETED)) == WEFT_EVENT_GPU_OP;
    }
  span = weft_trace_time_span (self->trace);
  if (self->solver != NULL)
    {
      /* where the edits put the GPU ops */
      WeftTimeSpan s = weft_solver_span (self->solver);
      if (s.end > s.begin)
        {
          span.begin = MIN (span.begin, s.begin);
          span.end = MAX (span.end, s.end);
        }
    }
  s_span = weft_format_duration (span.end - span.begin);
  s_ev = g_strdup_printf ("%" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " lanes)", n_events, n_lanes);
  s_gpu = g_strdup_printf ("%" G_GUINT64_FORMAT, n_gpu);
  s_ranks = g_strdup_printf ("%u", self->trace->ranks->len);
  s_coll = g_strdup_printf ("%" G_GUINT64_FORMAT " kernels, %u instances", n_coll, self->trace->instances->len);

  add_heading (self, "Trace", TRUE);
  grid = add_grid (self);
  grid_row (grid, row++, "Ranks", s_ranks);
  grid_row (grid, row++, "Events", s_ev);
  grid_row (grid, row++, "GPU ops", s_gpu);
  grid_row (grid, row++, "Collectives", s_coll);
  grid_row (grid, row++, "Length", s_span);
  grid_row (grid, row++, "Clock alignment",
            !self->trace->offsets_estimated ? "not estimated"
                                            : (self->trace->apply_clock_offsets ? "applied" : "estimated, off"));

  if (self->trace->offsets_estimated && self->trace->ranks->len > 1)
    {
      add_heading (self, "Clock offsets (from collective end times)", FALSE);
      grid = add_grid (self);
      for (guint r = 0; r < self->trace->ranks->len && r < 256; r++)
        {
          WeftRank *rank = weft_trace_rank (self->trace, r);
          g_autofree char *k = g_strdup_printf ("rank %d", rank->rank);
          g_autofree char *v = weft_format_delta (rank->clock_offset_ns);
          grid_row (grid, (int) r, k, v);
        }
    }

  {
    GtkWidget *hint = gtk_label_new ("Click an event to inspect it; drag on the ruler to measure a range. "
                                     "W/S zoom, A/D pan, F focus, 0 fit, Ctrl+F search, Ctrl+? all shortcuts.");
    gtk_label_set_wrap (GTK_LABEL (hint), TRUE);
    gtk_label_set_xalign (GTK_LABEL (hint), 0);
    gtk_widget_add_css_class (hint, "dim-label");
    gtk_widget_set_margin_top (hint, 12);
    gtk_box_append (GTK_BOX (self->box), hint);
  }
}

void
weft_inspector_set_trace (WeftInspector *self, WeftTrace *trace, WeftSolver *solver, gint64 origin)
{
  g_return_if_fail (WEFT_IS_INSPECTOR (self));
  self->trace = trace;
  self->solver = solver;
  self->origin = origin;
  if (trace != NULL)
    weft_inspector_show_summary (self);
  else
    reset (self, "");
}

void
weft_inspector_set_session (WeftInspector *self, WeftEditSession *session)
{
  g_return_if_fail (WEFT_IS_INSPECTOR (self));
  self->session = session;
}

const char *
weft_inspector_get_title (WeftInspector *self)
{
  g_return_val_if_fail (WEFT_IS_INSPECTOR (self), NULL);
  return self->title != NULL ? self->title : "";
}

static void
weft_inspector_dispose (GObject *object)
{
  WeftInspector *self = WEFT_INSPECTOR (object);

  g_clear_pointer (&self->scrolled, gtk_widget_unparent);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->edges, g_ptr_array_unref);
  g_clear_pointer (&self->reasons, g_ptr_array_unref);
  self->critical = NULL;
  self->trace = NULL;
  self->solver = NULL;
  self->session = NULL;
  G_OBJECT_CLASS (weft_inspector_parent_class)->dispose (object);
}

static void
weft_inspector_class_init (WeftInspectorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = weft_inspector_dispose;
  signals[SIGNAL_EDIT_ERROR] = g_signal_new ("edit-error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                             NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  signals[SIGNAL_FOLLOW] = g_signal_new ("follow-edge", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                         NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_UINT);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "weft-inspector");
}

static void
weft_inspector_init (WeftInspector *self)
{
  self->edges = g_ptr_array_new ();
  self->reasons = g_ptr_array_new_with_free_func (g_free);
  self->scrolled = weft_scrolled_column_new (GTK_WIDGET (self), &self->box);
  if (GTK_IS_VIEWPORT (gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (self->scrolled))))
    gtk_viewport_set_scroll_to_focus (GTK_VIEWPORT (gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (self->scrolled))),
                                      FALSE);
  gtk_widget_set_size_request (GTK_WIDGET (self), 280, -1);
}

GtkWidget *
weft_inspector_new (void)
{
  return g_object_new (WEFT_TYPE_INSPECTOR, NULL);
}
