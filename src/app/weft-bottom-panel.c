/* weft-bottom-panel.c: the bottom panel's tables (see weft-bottom-panel.h).
 *
 * Each table is a GtkColumnView over a GtkSortListModel of a GListStore of
 * WeftTableRow objects (cell texts + sort keys, filled from the core's
 * weft_solver_collective_rows / _kernel_rows / _range_slices); each column
 * sorts with a GtkCustomSorter (numbers by key, text by collation). The
 * tables are computed when shown: an edit only marks them stale. */
#include "config.h"

#include <string.h>

#include "weft-app-util.h"
#include "weft-bottom-panel.h"

#define MAX_CELLS  8
#define MAX_SLICES 5000

/* ---- a row ------------------------------------------------------------------ */

#define WEFT_TYPE_TABLE_ROW (weft_table_row_get_type ())
G_DECLARE_FINAL_TYPE (WeftTableRow, weft_table_row, WEFT, TABLE_ROW, GObject)

struct _WeftTableRow
{
  GObject parent_instance;
  guint   rank_index;
  guint32 event;
  char   *cells[MAX_CELLS];
  double  keys[MAX_CELLS];
  guint   n_cells;
};

G_DEFINE_FINAL_TYPE (WeftTableRow, weft_table_row, G_TYPE_OBJECT)

static void
weft_table_row_finalize (GObject *object)
{
  WeftTableRow *self = WEFT_TABLE_ROW (object);
  for (guint i = 0; i < self->n_cells; i++)
    g_free (self->cells[i]);
  G_OBJECT_CLASS (weft_table_row_parent_class)->finalize (object);
}

static void
weft_table_row_class_init (WeftTableRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = weft_table_row_finalize;
}

static void
weft_table_row_init (WeftTableRow *self)
{
}

static WeftTableRow *
row_new (guint rank_index, guint32 event)
{
  WeftTableRow *row = g_object_new (WEFT_TYPE_TABLE_ROW, NULL);
  row->rank_index = rank_index;
  row->event = event;
  return row;
}

/* Adds a cell: its text (taken) and its sort key. */
static void
row_cell (WeftTableRow *row, char *text, double key)
{
  g_return_if_fail (row->n_cells < MAX_CELLS);
  row->cells[row->n_cells] = text;
  row->keys[row->n_cells] = key;
  row->n_cells++;
}

/* ---- a table ------------------------------------------------------------------ */

typedef struct
{
  const char *title;
  gboolean    numeric;
  gboolean    expand;
} Column;

typedef struct
{
  GtkWidget     *scrolled;
  GtkWidget     *view;      /* GtkColumnView */
  GListStore    *store;
  GHashTable    *bound;     /* first-column label -> its row (borrowed) */
  GPtrArray     *columns;   /* GtkColumnViewColumn, borrowed */
  gboolean       stale;
} Table;

enum
{
  PAGE_COLLECTIVES = 0,
  PAGE_KERNELS,
  PAGE_SLICES,
  N_PAGES
};

static const char *const page_names[N_PAGES] = { "collectives", "kernels", "slices" };

struct _WeftBottomPanel
{
  GtkWidget parent_instance;

  GtkWidget *box;
  GtkWidget *stack;
  GtkWidget *status;
  GtkWidget *kind;          /* GtkDropDown: the slices' kind */
  Table      tables[N_PAGES];

  WeftSolver *solver;       /* borrowed */
  gint64      origin;
  int         step;
  gboolean    have_range;
  WeftTimeSpan range;
};

G_DEFINE_FINAL_TYPE (WeftBottomPanel, weft_bottom_panel, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_SELECT_EVENT,
  SIGNAL_ROWS_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static int
compare_rows (gconstpointer a, gconstpointer b, gpointer data)
{
  const WeftTableRow *x = a, *y = b;
  guint col = GPOINTER_TO_UINT (data) & 0xff;
  gboolean numeric = (GPOINTER_TO_UINT (data) >> 8) != 0;

  if (col >= x->n_cells || col >= y->n_cells)
    return 0;
  if (numeric)
    return x->keys[col] < y->keys[col] ? GTK_ORDERING_SMALLER
                                       : (x->keys[col] > y->keys[col] ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL);
  return g_utf8_collate (x->cells[col], y->cells[col]);
}

static void
cell_setup_cb (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  gboolean numeric = (GPOINTER_TO_UINT (data) >> 8) != 0;
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1 : 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  if (numeric)
    gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
cell_bind_cb (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  Table *table = g_object_get_data (G_OBJECT (factory), "weft-table");
  guint col = GPOINTER_TO_UINT (data) & 0xff;
  WeftTableRow *row = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  const char *text = col < row->n_cells ? row->cells[col] : "";

  gtk_label_set_text (GTK_LABEL (label), text);
  gtk_widget_set_tooltip_text (label, strlen (text) > 24 ? text : NULL);
  if (col == 0)
    g_hash_table_insert (table->bound, label, row);
}

static void
cell_unbind_cb (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer data)
{
  Table *table = g_object_get_data (G_OBJECT (factory), "weft-table");
  if ((GPOINTER_TO_UINT (data) & 0xff) == 0)
    g_hash_table_remove (table->bound, gtk_list_item_get_child (item));
}

static void
activate_cb (GtkColumnView *view, guint position, WeftBottomPanel *self)
{
  GListModel *model = G_LIST_MODEL (gtk_column_view_get_model (view));
  g_autoptr (WeftTableRow) row = g_list_model_get_item (model, position);

  if (row != NULL && row->event != WEFT_NONE)
    g_signal_emit (self, signals[SIGNAL_SELECT_EVENT], 0, row->rank_index, row->event);
}

/* The rows on screen changed (sorted, filled, scrolled). */
static void
rows_changed_cb (gpointer source, WeftBottomPanel *self)
{
  g_signal_emit (self, signals[SIGNAL_ROWS_CHANGED], 0);
}

static void
items_changed_cb (GListModel *model, guint position, guint removed, guint added, WeftBottomPanel *self)
{
  rows_changed_cb (model, self);
}

/* A new sort order shows its first rows (the list would keep its anchor
 * row in view, somewhere down the new order). */
static gboolean
scroll_top_cb (gpointer data)
{
  GtkWidget *scrolled = g_weak_ref_get (data);
  if (scrolled != NULL)
    {
      gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled)), 0);
      g_object_unref (scrolled);
    }
  return G_SOURCE_REMOVE;
}

static void
weak_ref_free (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

static void
sorter_changed_cb (GtkSorter *sorter, GtkSorterChange change, GtkWidget *scrolled)
{
  GWeakRef *ref = g_new0 (GWeakRef, 1);

  /* after the list has re-anchored itself on the new order */
  g_weak_ref_init (ref, scrolled);
  g_timeout_add_full (G_PRIORITY_DEFAULT_IDLE, 30, scroll_top_cb, ref, weak_ref_free);
}

static void
table_init (WeftBottomPanel *self, Table *table, const Column *cols, guint n_cols)
{
  GtkSortListModel *sorted;
  GtkSingleSelection *selection;

  table->store = g_list_store_new (WEFT_TYPE_TABLE_ROW);
  table->bound = g_hash_table_new (NULL, NULL);
  table->columns = g_ptr_array_new ();
  table->stale = TRUE;
  sorted = gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (table->store)), NULL);
  selection = gtk_single_selection_new (G_LIST_MODEL (sorted));
  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_single_selection_set_can_unselect (selection, TRUE);
  table->view = gtk_column_view_new (GTK_SELECTION_MODEL (selection));
  gtk_column_view_set_single_click_activate (GTK_COLUMN_VIEW (table->view), TRUE);
  gtk_column_view_set_reorderable (GTK_COLUMN_VIEW (table->view), FALSE);
  gtk_column_view_set_show_column_separators (GTK_COLUMN_VIEW (table->view), TRUE);
  gtk_widget_add_css_class (table->view, "data-table");
  g_signal_connect (table->view, "activate", G_CALLBACK (activate_cb), self);
  for (guint i = 0; i < n_cols; i++)
    {
      gpointer data = GUINT_TO_POINTER (i | (cols[i].numeric ? 0x100u : 0u));
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      GtkColumnViewColumn *col;
      GtkSorter *sorter;

      g_object_set_data (G_OBJECT (factory), "weft-table", table);
      g_signal_connect (factory, "setup", G_CALLBACK (cell_setup_cb), data);
      g_signal_connect (factory, "bind", G_CALLBACK (cell_bind_cb), data);
      g_signal_connect (factory, "unbind", G_CALLBACK (cell_unbind_cb), data);
      col = gtk_column_view_column_new (cols[i].title, factory);
      sorter = GTK_SORTER (gtk_custom_sorter_new (compare_rows, data, NULL));
      gtk_column_view_column_set_sorter (col, sorter);
      g_object_unref (sorter);
      gtk_column_view_column_set_resizable (col, TRUE);
      gtk_column_view_column_set_expand (col, cols[i].expand);
      gtk_column_view_append_column (GTK_COLUMN_VIEW (table->view), col);
      g_ptr_array_add (table->columns, col);
      g_object_unref (col);
    }
  gtk_sort_list_model_set_sorter (sorted, gtk_column_view_get_sorter (GTK_COLUMN_VIEW (table->view)));
  g_signal_connect (sorted, "items-changed", G_CALLBACK (items_changed_cb), self);
  table->scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (table->scrolled), table->view);
  g_signal_connect (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (table->scrolled)), "value-changed",
                    G_CALLBACK (rows_changed_cb), self);
  g_signal_connect_object (gtk_column_view_get_sorter (GTK_COLUMN_VIEW (table->view)), "changed",
                           G_CALLBACK (sorter_changed_cb), table->scrolled, G_CONNECT_AFTER);
  gtk_widget_set_vexpand (table->scrolled, TRUE);
}

static void
table_clear (Table *table)
{
  g_list_store_remove_all (table->store);
}

/* ---- filling ------------------------------------------------------------------ */

static char *
fmt_us (gint64 ns)
{
  return weft_format_duration (ns);
}

static void
fill_collectives (WeftBottomPanel *self, Table *table)
{
  WeftTrace *trace = weft_solver_get_trace (self->solver);
  g_autoptr (GArray) rows = weft_solver_collective_rows (self->solver, self->step);
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  gint64 worst = 0;

  for (guint i = 0; i < rows->len; i++)
    {
      const WeftCollectiveRow *r = &g_array_index (rows, WeftCollectiveRow, i);
      WeftTableRow *row = row_new (r->last_rank_index, r->last_event);
      int last = weft_trace_rank (trace, r->last_rank_index)->rank;

      row_cell (row, g_strdup_printf ("%u", r->instance), r->instance);
      row_cell (row, g_strdup (weft_coll_type_to_string (r->type)), 0);
      row_cell (row, *r->group && *r->group_desc ? g_strdup_printf ("%s (%s)", r->group_desc, r->group)
                                                  : g_strdup (*r->group ? r->group : (*r->group_desc ? r->group_desc : "–")),
                0);
      row_cell (row, g_strdup_printf ("%u", r->n_members), r->n_members);
      row_cell (row, r->bytes >= 0 ? weft_format_bytes (r->bytes) : g_strdup ("–"), (double) r->bytes);
      row_cell (row, fmt_us (r->transfer), (double) r->transfer);
      row_cell (row, fmt_us (r->max_wait), (double) r->max_wait);
      row_cell (row, g_strdup_printf ("%d", last), last);
      worst = MAX (worst, r->max_wait);
      g_ptr_array_add (items, row);
    }
  g_list_store_splice (table->store, 0, g_list_model_get_n_items (G_LIST_MODEL (table->store)), items->pdata,
                       items->len);
  {
    g_autofree char *w = weft_format_duration (worst);
    g_autofree char *text = g_strdup_printf ("%u collectives%s; longest wait %s. Click a row to select its "
                                             "last-arriving rank's kernel.", rows->len,
                                             self->step >= 0 ? " in the step" : "", w);
    gtk_label_set_text (GTK_LABEL (self->status), text);
  }
}

static void
fill_kernels (WeftBottomPanel *self, Table *table)
{
  g_autoptr (GArray) rows = weft_solver_kernel_rows (self->solver, self->step);
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < rows->len; i++)
    {
      const WeftKernelRow *r = &g_array_index (rows, WeftKernelRow, i);
      WeftTableRow *row = row_new (r->first_rank_index, r->first_event);

      row_cell (row, g_strdup (r->name), 0);
      row_cell (row, g_strdup (weft_kernel_class_to_string (r->kclass)), 0);
      row_cell (row, g_strdup_printf ("%u", r->count), r->count);
      row_cell (row, fmt_us (r->total), (double) r->total);
      row_cell (row, fmt_us (r->mean), (double) r->mean);
      row_cell (row, g_strdup_printf ("%.1f%%", 100.0 * r->share), r->share);
      g_ptr_array_add (items, row);
    }
  g_list_store_splice (table->store, 0, g_list_model_get_n_items (G_LIST_MODEL (table->store)), items->pdata,
                       items->len);
  {
    g_autofree char *text = g_strdup_printf ("%u kernel names. Share: total / (step time × ranks). Click a row "
                                             "to select its longest op.", rows->len);
    gtk_label_set_text (GTK_LABEL (self->status), text);
  }
}

static void
fill_slices (WeftBottomPanel *self, Table *table)
{
  WeftTrace *trace = weft_solver_get_trace (self->solver);
  WeftSliceKind kind = (WeftSliceKind) gtk_drop_down_get_selected (GTK_DROP_DOWN (self->kind));
  g_autoptr (GArray) rows = NULL;
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  guint n_total = 0;

  if (!self->have_range)
    {
      table_clear (table);
      gtk_label_set_text (GTK_LABEL (self->status), "Drag on the ruler to select a time range: its slices show here.");
      return;
    }
  if (kind >= WEFT_SLICE_KIND_N_KINDS)
    kind = WEFT_SLICE_KIND_ALL;
  rows = weft_solver_range_slices (self->solver, self->range, kind, MAX_SLICES, &n_total);
  for (guint i = 0; i < rows->len; i++)
    {
      const WeftSliceRow *r = &g_array_index (rows, WeftSliceRow, i);
      WeftRank *rank = weft_trace_rank (trace, r->rank_index);
      const WeftEvent *ev = weft_rank_event (rank, r->event);
      const WeftLane *lane = ev->lane != WEFT_NONE ? weft_rank_lane (rank, ev->lane) : NULL;
      WeftTableRow *row = row_new (r->rank_index, r->event);

      row_cell (row, g_strdup (weft_rank_string (rank, ev->name)), 0);
      row_cell (row, g_strdup_printf ("%d", rank->rank), rank->rank);
      row_cell (row, lane == NULL ? g_strdup ("–")
                                  : g_strdup_printf ("%s %" G_GINT64_FORMAT, lane->kind == WEFT_LANE_GPU ? "stream" : "thread",
                                                     lane->tid),
                lane != NULL ? (double) lane->tid : -1);
      row_cell (row, fmt_us (r->start - self->origin), (double) r->start);
      row_cell (row, fmt_us (r->end - r->start), (double) (r->end - r->start));
      g_ptr_array_add (items, row);
    }
  g_list_store_splice (table->store, 0, g_list_model_get_n_items (G_LIST_MODEL (table->store)), items->pdata,
                       items->len);
  {
    g_autofree char *len = weft_format_duration (self->range.end - self->range.begin);
    g_autofree char *text = rows->len < n_total
                                ? g_strdup_printf ("First %u of %u slices in the %s range.", rows->len, n_total, len)
                                : g_strdup_printf ("%u slices in the %s range.", n_total, len);
    gtk_label_set_text (GTK_LABEL (self->status), text);
  }
}

static int
current_page (WeftBottomPanel *self)
{
  const char *name = gtk_stack_get_visible_child_name (GTK_STACK (self->stack));
  for (int i = 0; i < N_PAGES; i++)
    if (g_strcmp0 (name, page_names[i]) == 0)
      return i;
  return PAGE_COLLECTIVES;
}

/* Computes the page shown when it is stale and the panel is on screen. */
static void
update_shown (WeftBottomPanel *self)
{
  int page = current_page (self);
  Table *table = &self->tables[page];

  gtk_widget_set_visible (self->kind, page == PAGE_SLICES);
  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    return;
  if (self->solver == NULL)
    {
      table_clear (table);
      gtk_label_set_text (GTK_LABEL (self->status), "");
      return;
    }
  if (!table->stale)
    return;
  table->stale = FALSE;
  if (page == PAGE_COLLECTIVES)
    fill_collectives (self, table);
  else if (page == PAGE_KERNELS)
    fill_kernels (self, table);
  else
    fill_slices (self, table);
}

static void
mark_stale (WeftBottomPanel *self, int only)
{
  for (int i = 0; i < N_PAGES; i++)
    if (only < 0 || only == i)
      self->tables[i].stale = TRUE;
  update_shown (self);
}

static void
page_changed_cb (GObject *stack, GParamSpec *pspec, WeftBottomPanel *self)
{
  self->tables[current_page (self)].stale = TRUE; /* the status line is the page's */
  update_shown (self);
  g_signal_emit (self, signals[SIGNAL_ROWS_CHANGED], 0);
}

static void
kind_changed_cb (GObject *dropdown, GParamSpec *pspec, WeftBottomPanel *self)
{
  mark_stale (self, PAGE_SLICES);
}

/* ---- public ------------------------------------------------------------------- */

void
weft_bottom_panel_set_solver (WeftBottomPanel *self, WeftSolver *solver, gint64 origin, int step)
{
  g_return_if_fail (WEFT_IS_BOTTOM_PANEL (self));
  self->solver = solver;
  self->origin = origin;
  self->step = step;
  self->have_range = FALSE;
  for (int i = 0; i < N_PAGES; i++)
    table_clear (&self->tables[i]);
  mark_stale (self, -1);
}

void
weft_bottom_panel_set_step (WeftBottomPanel *self, int step)
{
  g_return_if_fail (WEFT_IS_BOTTOM_PANEL (self));
  if (self->step == step)
    return;
  self->step = step;
  mark_stale (self, -1);
}

void
weft_bottom_panel_set_range (WeftBottomPanel *self, const WeftTimeSpan *range)
{
  g_return_if_fail (WEFT_IS_BOTTOM_PANEL (self));
  if ((range == NULL && !self->have_range) ||
      (range != NULL && self->have_range && range->begin == self->range.begin && range->end == self->range.end))
    return;
  self->have_range = range != NULL;
  if (range != NULL)
    self->range = *range;
  mark_stale (self, PAGE_SLICES);
}

void
weft_bottom_panel_refresh (WeftBottomPanel *self)
{
  g_return_if_fail (WEFT_IS_BOTTOM_PANEL (self));
  mark_stale (self, -1);
}

const char *
weft_bottom_panel_get_page (WeftBottomPanel *self)
{
  g_return_val_if_fail (WEFT_IS_BOTTOM_PANEL (self), NULL);
  return page_names[current_page (self)];
}

void
weft_bottom_panel_set_page (WeftBottomPanel *self, const char *page)
{
  g_return_if_fail (WEFT_IS_BOTTOM_PANEL (self));
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), page);
}

guint
weft_bottom_panel_get_n_rows (WeftBottomPanel *self)
{
  g_return_val_if_fail (WEFT_IS_BOTTOM_PANEL (self), 0);
  return g_list_model_get_n_items (G_LIST_MODEL (self->tables[current_page (self)].store));
}

static gint
row_y_cmp (gconstpointer a, gconstpointer b)
{
  const WeftBottomPanelRow *x = a, *y = b;
  graphene_point_t px, py;
  GtkWidget *root = GTK_WIDGET (gtk_widget_get_root (x->widget));
  if (!gtk_widget_compute_point (x->widget, root, &GRAPHENE_POINT_INIT (0, 0), &px) ||
      !gtk_widget_compute_point (y->widget, root, &GRAPHENE_POINT_INIT (0, 0), &py))
    return 0;
  return (px.y > py.y) - (px.y < py.y);
}

GArray *
weft_bottom_panel_visible_rows (WeftBottomPanel *self)
{
  Table *table;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (WeftBottomPanelRow));
  GHashTableIter it;
  gpointer key, value;
  graphene_rect_t area;
  int header;

  g_return_val_if_fail (WEFT_IS_BOTTOM_PANEL (self), out);
  table = &self->tables[current_page (self)];
  if (!gtk_widget_get_mapped (GTK_WIDGET (self)) ||
      !gtk_widget_compute_bounds (table->scrolled, table->scrolled, &area))
    return out;
  header = gtk_widget_get_first_child (table->view) != NULL ? gtk_widget_get_height (gtk_widget_get_first_child (table->view)) : 0;
  g_hash_table_iter_init (&it, table->bound);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      GtkWidget *label = key;
      WeftTableRow *row = value;
      graphene_rect_t b;
      WeftBottomPanelRow r;
      if (!gtk_widget_get_mapped (label) || !gtk_widget_compute_bounds (label, table->scrolled, &b))
        continue;
      /* fully inside the scrolled window, below the column titles */
      if (b.origin.y < header || b.origin.y + b.size.height > area.size.height || b.size.height <= 0)
        continue;
      r.widget = label;
      r.rank_index = row->rank_index;
      r.event = row->event;
      r.cells = (const char *const *) row->cells;
      r.n_cells = row->n_cells;
      g_array_append_val (out, r);
    }
  g_array_sort (out, row_y_cmp);
  return out;
}

static GtkWidget *
find_label (GtkWidget *widget, const char *text)
{
  if (!gtk_widget_get_mapped (widget))
    return NULL;
  if (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found;
      if (GTK_IS_LIST_VIEW (c) || g_strcmp0 (G_OBJECT_TYPE_NAME (c), "GtkColumnListView") == 0)
        continue; /* the rows: only the titles */
      if ((found = find_label (c, text)) != NULL)
        return found;
    }
  return NULL;
}

GtkWidget *
weft_bottom_panel_column_title (WeftBottomPanel *self, const char *title)
{
  g_return_val_if_fail (WEFT_IS_BOTTOM_PANEL (self), NULL);
  return find_label (self->box, title);
}

/* ---- lifecycle ------------------------------------------------------------------ */

static void
weft_bottom_panel_map (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (weft_bottom_panel_parent_class)->map (widget);
  update_shown (WEFT_BOTTOM_PANEL (widget));
}

static void
weft_bottom_panel_dispose (GObject *object)
{
  WeftBottomPanel *self = WEFT_BOTTOM_PANEL (object);

  g_clear_pointer (&self->box, gtk_widget_unparent);
  for (int i = 0; i < N_PAGES; i++)
    {
      g_clear_object (&self->tables[i].store);
      g_clear_pointer (&self->tables[i].bound, g_hash_table_unref);
      g_clear_pointer (&self->tables[i].columns, g_ptr_array_unref);
    }
  self->solver = NULL;
  G_OBJECT_CLASS (weft_bottom_panel_parent_class)->dispose (object);
}

static void
weft_bottom_panel_class_init (WeftBottomPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = weft_bottom_panel_dispose;
  widget_class->map = weft_bottom_panel_map;
  signals[SIGNAL_SELECT_EVENT] = g_signal_new ("select-event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                               NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_UINT);
  signals[SIGNAL_ROWS_CHANGED] = g_signal_new ("rows-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                               NULL, NULL, G_TYPE_NONE, 0);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "weft-bottom-panel");
}

static void
weft_bottom_panel_init (WeftBottomPanel *self)
{
  static const Column coll_cols[] = {
    { "#", TRUE, FALSE },        { "Type", FALSE, FALSE },     { "Group", FALSE, TRUE },
    { "Ranks", TRUE, FALSE },    { "Size", TRUE, FALSE },      { "Transfer", TRUE, FALSE },
    { "Max wait", TRUE, FALSE }, { "Last rank", TRUE, FALSE },
  };
  static const Column kernel_cols[] = {
    { "Kernel", FALSE, TRUE }, { "Class", FALSE, FALSE }, { "Count", TRUE, FALSE },
    { "Total", TRUE, FALSE },  { "Mean", TRUE, FALSE },   { "Share", TRUE, FALSE },
  };
  static const Column slice_cols[] = {
    { "Name", FALSE, TRUE }, { "Rank", TRUE, FALSE }, { "Lane", TRUE, FALSE },
    { "Start", TRUE, FALSE }, { "Duration", TRUE, FALSE },
  };
  static const char *const kinds[] = { "All slices", "GPU ops", "Collectives", "CPU ops", NULL };
  static const char *const titles[N_PAGES] = { "Collectives", "Kernels", "Slices in range" };
  GtkWidget *bar, *switcher;

  self->step = -1;
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_set_margin_start (bar, 8);
  gtk_widget_set_margin_end (bar, 8);
  gtk_widget_set_margin_top (bar, 4);
  gtk_widget_set_margin_bottom (bar, 4);
  gtk_box_append (GTK_BOX (self->box), bar);
  self->stack = gtk_stack_new ();
  gtk_widget_set_vexpand (self->stack, TRUE);
  switcher = gtk_stack_switcher_new ();
  gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher), GTK_STACK (self->stack));
  gtk_box_append (GTK_BOX (bar), switcher);
  self->status = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->status), 0);
  gtk_label_set_ellipsize (GTK_LABEL (self->status), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (self->status, TRUE);
  gtk_widget_add_css_class (self->status, "dim-label");
  gtk_box_append (GTK_BOX (bar), self->status);
  self->kind = gtk_drop_down_new_from_strings (kinds);
  gtk_widget_set_tooltip_text (self->kind, "Which slices of the range to list");
  g_signal_connect (self->kind, "notify::selected", G_CALLBACK (kind_changed_cb), self);
  gtk_box_append (GTK_BOX (bar), self->kind);
  gtk_box_append (GTK_BOX (self->box), self->stack);

  table_init (self, &self->tables[PAGE_COLLECTIVES], coll_cols, G_N_ELEMENTS (coll_cols));
  table_init (self, &self->tables[PAGE_KERNELS], kernel_cols, G_N_ELEMENTS (kernel_cols));
  table_init (self, &self->tables[PAGE_SLICES], slice_cols, G_N_ELEMENTS (slice_cols));
  for (int i = 0; i < N_PAGES; i++)
    gtk_stack_add_titled (GTK_STACK (self->stack), self->tables[i].scrolled, page_names[i], titles[i]);
  g_signal_connect (self->stack, "notify::visible-child", G_CALLBACK (page_changed_cb), self);
  gtk_widget_set_size_request (GTK_WIDGET (self), -1, 120);
}

GtkWidget *
weft_bottom_panel_new (void)
{
  return g_object_new (WEFT_TYPE_BOTTOM_PANEL, NULL);
}
