/* weft-window-private.h: the WeftWindow struct and the functions its files
 * share (as GNOME Text Editor's editor-window-private.h).
 *
 *   weft-window.c           the window: template, document, loading, signals
 *   weft-window-actions.c   the win.* actions and the one place that enables them
 *   weft-window-save.c      Save / Save As, closing with unsaved edits, recovery
 *   weft-window-recent.c    the recent files (empty page list, Open menu)
 *   weft-window-search.c    the search bar
 *   weft-window-teststate.c WEFT_TEST_STATE and WEFT_TEST_SCREENSHOT
 *   weft-window-compare.c   Compare With…, the compare page, weft --compare
 *
 * The widgets are in weft-window.ui (a template, in the app's GResource). */
#pragma once

#include <gtk/gtk.h>

#include "weft/weft-edit.h"
#include "weft/weft-load.h"
#include "weft/weft-render.h"
#include "weft-window.h"

G_BEGIN_DECLS

typedef struct _WeftWindowCompare WeftWindowCompare; /* weft-window-compare.c */
typedef struct _WeftWindowPipeline WeftWindowPipeline; /* weft-window-pipeline.c */

struct _WeftWindow
{
  GtkApplicationWindow parent_instance;

  /* template children */
  GtkWidget *stack;
  GtkWidget *header;
  GtkWidget *metrics;
  GtkWidget *recent_menu_button;
  GMenu     *recent_menu;
  GtkWidget *undo_button;
  GtkWidget *redo_button;
  GtkWidget *save_button;

  /* empty page */
  GtkWidget *recent_list;
  GtkWidget *recent_title;

  /* loading page */
  GtkWidget *progress;
  GtkWidget *progress_label;
  guint      progress_timer;
  gint64     progress_phase_us; /* when the load's current phase began (monotonic) */
  int        progress_phase;

  /* trace page */
  GtkWidget *search_bar;
  GtkWidget *search_entry;
  GtkWidget *search_regex;
  GtkWidget *search_kind;
  GtkWidget *search_status;
  GtkWidget *vpaned;
  GtkWidget *paned;
  GtkWidget *view;
  GtkWidget *side;
  GtkWidget *inspector;
  GtkWidget *palette;
  GtkWidget *side_stack;
  GtkWidget *breakdown;
  GtkWidget *bottom_panel;
  GtkWidget *legend;

  /* document: the edit session owns the trace and the solver; without
   * one (the solver refused the trace) the window owns the trace */
  WeftEditSession *session;
  WeftTrace  *trace;
  WeftSolver *solver;
  WeftRenderTimes times;
  GArray         *critical_segments; /* WeftPathSegment of the step's critical path */
  WeftEventRef   *critical;
  guint           n_critical;
  char      **paths;
  char       *display_name;

  /* loading (weft_trace_load_async) */
  GCancellable     *cancellable;
  WeftLoadProgress *load_progress;
  char            **paths_loading; /* what is being loaded (NULL-terminated) */
  char             *page_before_load;

  /* state for tests */
  char    *last_error;
  guint    n_errors;
  char    *state_path;
  char    *screenshot_path;
  guint    state_idle;
  guint    n_screenshots;
  gboolean screenshot_pending;
  gint64   first_frame_us;   /* since process start */
  gint64   load_us;
  gint64   solve_us;
  GtkWidget *error_dialog;
  guint      n_recent;

  /* editing */
  guint      refresh_idle;
  gboolean   refresh_stale;  /* a drag skipped the breakdown / critical path */
  guint      autosave_timer;
  char      *save_file;      /* Ctrl+S target: one file ... */
  char      *save_dir;       /* ... or a folder of rank<R>_trace<ext> */
  char      *save_ext;
  GtkFileChooserNative *save_dialog; /* the Save As dialog while shown */
  gboolean   closing;        /* the user confirmed closing with unsaved edits */
  gboolean   no_clock_alignment; /* View > Align Rank Clocks off */
  gboolean   show_inspector; /* View > Inspector: the side pane shown */
  gboolean   show_tables;    /* View > Tables: the bottom panel shown */

  /* comparing with another trace (weft-window-compare.c), NULL until used */
  WeftWindowCompare *compare;
  /* the pipeline controls (weft-window-pipeline.c) */
  WeftWindowPipeline *pipeline;
  gboolean   color_microbatch; /* View > Colour by Microbatch */
};

/* The formats Save As offers for a folder of rank files (json.gz first:
 * the default); the test state lists them. */
typedef struct
{
  const char *id;    /* the extension without its dot */
  const char *label;
} WeftSaveFormat;

extern const WeftSaveFormat _weft_window_save_formats[];
extern const guint _weft_window_n_save_formats;

/* weft-window.c */
gboolean _weft_window_is_loading     (WeftWindow *self);
gboolean _weft_window_is_dark        (WeftWindow *self);
void     _weft_window_update_title   (WeftWindow *self);
void     _weft_window_start_load     (WeftWindow *self,
                                      char      **paths,
                                      guint       n_paths,
                                      const char *display_name);
void     _weft_window_reload         (WeftWindow *self);
WeftLoadProgress *_weft_window_progress_begin (WeftWindow *self, const char *text); /* (transfer none) */
void     _weft_window_progress_end   (WeftWindow *self);
void     _weft_window_show_error     (WeftWindow *self,
                                      const char *what,
                                      const char *message);

/* weft-window-actions.c */
void     _weft_window_class_actions_init (WeftWindowClass *klass);
void     _weft_window_update_actions     (WeftWindow      *self);

/* weft-window-save.c */
gboolean _weft_window_save           (WeftWindow *self,
                                      gboolean    ask);
gboolean _weft_window_close_request  (GtkWindow  *window);
void     _weft_window_offer_recovery (WeftWindow *self);

/* weft-window-recent.c */
void     _weft_window_recent_init    (WeftWindow *self);
void     _weft_window_add_recent     (WeftWindow *self,
                                      const char *path);

/* weft-window-search.c */
void     _weft_window_class_search_init (WeftWindowClass *klass);
void     _weft_window_search_init       (WeftWindow      *self);

/* weft-window-teststate.c */
void     _weft_window_teststate_init      (WeftWindow *self);
void     _weft_window_teststate_watch     (WeftWindow *self);
void     _weft_window_schedule_state_late (WeftWindow *self);
void     _weft_window_schedule_state      (WeftWindow *self);
void     _weft_window_take_test_screenshot (WeftWindow *self);
void     _weft_window_first_frame_screenshot (WeftWindow *self);
/* A widget's box in X window coordinates (what `xdotool mousemove --window`
 * takes), or NULL when it is not shown. */
json_object *_weft_window_widget_box (WeftWindow *self, GtkWidget *widget);

/* weft-window-compare.c */
void     _weft_window_class_compare_init      (WeftWindowClass *klass);
void     _weft_window_compare_update_actions  (WeftWindow      *self);
void     _weft_window_compare_clear           (WeftWindow      *self);
void     _weft_window_compare_document_set    (WeftWindow      *self);
void     _weft_window_compare_changed         (WeftWindow      *self);
gboolean _weft_window_compare_is_shown        (WeftWindow      *self);
void     _weft_window_compare_free            (WeftWindow      *self);
void     _weft_window_compare_test_state      (WeftWindow      *self,
                                               json_object     *root);
/* the colour-by-microbatch mode of both compare timelines */
void     _weft_window_compare_set_color       (WeftWindow      *self,
                                               gboolean         on);
/* the document (A) compared with SESSION_B (taken), labelled LABEL_B */
void     _weft_window_compare_show_session    (WeftWindow      *self,
                                               WeftEditSession *session_b,
                                               const char      *label_b);
/* weft-window-pipeline.c */
void     _weft_window_class_pipeline_init     (WeftWindowClass *klass);
void     _weft_window_pipeline_init           (WeftWindow      *self);
void     _weft_window_pipeline_document_set   (WeftWindow      *self);
void     _weft_window_pipeline_clear          (WeftWindow      *self);
void     _weft_window_pipeline_update_actions (WeftWindow      *self);
void     _weft_window_pipeline_free           (WeftWindow      *self);
void     _weft_window_pipeline_set_color      (WeftWindow      *self,
                                               gboolean         on);
void     _weft_window_pipeline_test_state     (WeftWindow      *self,
                                               json_object     *root);
/* the template dialog's "created-compared": takes both sessions */
void     _weft_window_compare_template_cb     (GtkWidget       *dialog,
                                               gpointer         session_a,
                                               const char      *name_a,
                                               gpointer         session_b,
                                               const char      *name_b,
                                               WeftWindow      *self);

G_END_DECLS
