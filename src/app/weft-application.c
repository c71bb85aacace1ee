/* weft-application.c: the Weft GtkApplication.
 *
 * Opens a window per command-line path (HANDLES_OPEN), or one empty window
 * ("Open a trace" and recent files) when started without one. Unique: a
 * second `weft PATH` opens PATH in a window of the running instance
 * (--new-instance: a process of its own). Follows the
 * system's dark/light preference: GTK 4.8 without libadwaita does not read
 * the freedesktop colour scheme itself, so the application reads
 * org.gnome.desktop.interface color-scheme where that schema is installed,
 * honours WEFT_COLOR_SCHEME=dark|light, and watches GtkSettings
 * (gtk-application-prefer-dark-theme, gtk-theme-name) for changes;
 * GTK_THEME=Name:dark (which GTK reads before the settings) is dark too. */
#include "config.h"

#include "weft-application.h"
#include "weft-window.h"

struct _WeftApplication
{
  GtkApplication parent_instance;

  GSettings *interface_settings;
  gboolean   dark;
  gboolean   compare;   /* weft --compare: open the two files compared */
};

G_DEFINE_FINAL_TYPE (WeftApplication, weft_application, GTK_TYPE_APPLICATION)

enum
{
  PROP_0,
  PROP_DARK,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];
static gint64 app_start_time;

void
weft_app_mark_start (void)
{
  if (app_start_time == 0)
    app_start_time = g_get_monotonic_time ();
}

gint64
weft_app_start_time (void)
{
  return app_start_time;
}

/* ---- dark mode ----------------------------------------------------------- */

static gboolean
theme_is_dark (GtkSettings *settings)
{
  gboolean prefer_dark = FALSE;
  g_autofree char *theme = NULL;

  const char *env = g_getenv ("GTK_THEME");

  /* GTK_THEME=Name:dark overrides the settings (GTK reads it first) and
   * is not reflected in gtk-theme-name */
  if (env != NULL && *env != '\0')
    {
      g_autofree char *lower = g_ascii_strdown (env, -1);
      if (g_str_has_suffix (lower, ":dark") || g_str_has_suffix (lower, "-dark"))
        return TRUE;
    }
  g_object_get (settings, "gtk-application-prefer-dark-theme", &prefer_dark, "gtk-theme-name", &theme, NULL);
  if (prefer_dark)
    return TRUE;
  if (theme != NULL)
    {
      g_autofree char *lower = g_ascii_strdown (theme, -1);
      if (g_str_has_suffix (lower, "-dark") || g_str_has_suffix (lower, ":dark") || strstr (lower, "dark") != NULL)
        return TRUE;
    }
  return FALSE;
}

static void
update_dark (WeftApplication *self)
{
  GtkSettings *settings = gtk_settings_get_default ();
  gboolean dark;

  if (settings == NULL)
    return;
  dark = theme_is_dark (settings);
  if (dark != self->dark)
    {
      self->dark = dark;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DARK]);
    }
}

static void
apply_color_scheme (WeftApplication *self)
{
  GtkSettings *settings = gtk_settings_get_default ();
  const char *env = g_getenv ("WEFT_COLOR_SCHEME");
  int want = -1; /* -1: leave to the theme */

  if (settings == NULL)
    return;
  if (env != NULL && g_ascii_strcasecmp (env, "dark") == 0)
    want = 1;
  else if (env != NULL && g_ascii_strcasecmp (env, "light") == 0)
    want = 0;
  else if (self->interface_settings != NULL)
    {
      g_autofree char *scheme = g_settings_get_string (self->interface_settings, "color-scheme");
      if (g_strcmp0 (scheme, "prefer-dark") == 0)
        want = 1;
      else if (g_strcmp0 (scheme, "prefer-light") == 0)
        want = 0;
    }
  if (want >= 0)
    g_object_set (settings, "gtk-application-prefer-dark-theme", want == 1, NULL);
  update_dark (self);
}

static void
on_settings_changed (GtkSettings *settings, GParamSpec *pspec, WeftApplication *self)
{
  update_dark (self);
}

static void
on_color_scheme_changed (GSettings *settings, const char *key, WeftApplication *self)
{
  apply_color_scheme (self);
}

static void
dark_action_changed (GSimpleAction *action, GVariant *value, gpointer user_data)
{
  GtkSettings *settings = gtk_settings_get_default ();

  g_simple_action_set_state (action, value);
  if (settings != NULL)
    g_object_set (settings, "gtk-application-prefer-dark-theme", g_variant_get_boolean (value), NULL);
}

/* ---- actions ------------------------------------------------------------- */

static void
quit_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GApplication *app = G_APPLICATION (user_data);
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (app));

  for (GList *l = windows; l != NULL;)
    {
      GtkWindow *win = l->data;
      l = l->next;
      gtk_window_destroy (win);
    }
  g_application_quit (app);
}

static void
new_window_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  WeftWindow *win = weft_window_new (WEFT_APPLICATION (user_data));
  gtk_window_present (GTK_WINDOW (win));
}

static void
about_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  GtkWindow *parent = gtk_application_get_active_window (app);
  const char *authors[] = { "The Weft authors", NULL };

  gtk_show_about_dialog (parent,
                         "program-name", "Weft",
                         "logo-icon-name", WEFT_APPLICATION_ID,
                         "version", WEFT_VERSION_STRING,
                         "comments", "An editor for the execution traces of distributed LLM training",
                         "license-type", GTK_LICENSE_MIT_X11,
                         "authors", authors,
                         NULL);
}

/* ---- vfuncs -------------------------------------------------------------- */

static WeftWindow *
find_empty_window (WeftApplication *self)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    if (WEFT_IS_WINDOW (l->data) && weft_window_is_empty (l->data))
      return l->data;
  return NULL;
}

static void
weft_application_activate (GApplication *app)
{
  WeftApplication *self = WEFT_APPLICATION (app);
  GtkWindow *win = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (win == NULL)
    win = GTK_WINDOW (weft_window_new (self));
  gtk_window_present (win);
}

static void
weft_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  WeftApplication *self = WEFT_APPLICATION (app);

  if (self->compare)
    {
      /* weft --compare A B: one window, A above B */
      WeftWindow *win = find_empty_window (self);
      self->compare = FALSE;
      if (win == NULL)
        win = weft_window_new (self);
      if (n_files == 2)
        weft_window_open_compare (win, files[0], files[1]);
      else
        {
          g_printerr ("weft: --compare takes two traces (A B), not %d\n", n_files);
          weft_window_open (win, files[0]);
        }
      gtk_window_present (GTK_WINDOW (win));
      return;
    }
  for (int i = 0; i < n_files; i++)
    {
      WeftWindow *win = find_empty_window (self);
      if (win == NULL)
        win = weft_window_new (self);
      weft_window_open (win, files[i]);
      gtk_window_present (GTK_WINDOW (win));
    }
}

static void
weft_application_startup (GApplication *app)
{
  WeftApplication *self = WEFT_APPLICATION (app);
  static const GActionEntry entries[] = {
    { "quit", quit_activated, NULL, NULL, NULL },
    { "new-window", new_window_activated, NULL, NULL, NULL },
    { "about", about_activated, NULL, NULL, NULL },
    { "dark", NULL, NULL, "false", dark_action_changed },
  };
  GtkSettings *settings;
  GSettingsSchemaSource *source;
  g_autoptr (GSettingsSchema) schema = NULL;
  GAction *dark;
  struct
  {
    const char *action;
    const char *accels[3];
  } accels[] = {
    { "app.quit", { "<Control>q", NULL } },
    { "app.new-window", { "<Control>n", NULL } },
    { "win.open", { "<Control>o", NULL } },
    { "win.open-folder", { "<Control><Shift>o", NULL } },
    { "win.close", { "<Control>w", NULL } },
    { "win.export::png", { "<Control>e", NULL } },
    { "win.show-shortcuts", { "<Control>question", "<Control>F1", NULL } },
    { "win.toggle-inspector", { "<Control>i", NULL } },
    { "win.toggle-tables", { "<Control>j", NULL } },
    { "win.undo", { "<Control>z", NULL } },
    { "win.redo", { "<Control><Shift>z", "<Control>y", NULL } },
    { "win.save", { "<Control>s", NULL } },
    { "win.new-from-template", { "<Control><Shift>n", NULL } },
    { "win.apply-strategy", { "<Control><Shift>a", NULL } },
    { "win.side-page::inspector", { "<Control>1", NULL } },
    { "win.side-page::palette", { "<Control>2", NULL } },
    { "win.save-as", { "<Control><Shift>s", NULL } },
    { "win.cancel-load", { "<Control>period", NULL } },
    { "win.compare-with(false)", { "<Control><Alt>c", NULL } },
    { "win.compare-loaded", { "<Control><Shift>l", NULL } },
    { "win.compare-close", { "<Control><Shift>k", NULL } },
    { "win.test-screenshot", { "<Control><Shift>F12", NULL } },
  };

  G_APPLICATION_CLASS (weft_application_parent_class)->startup (app);

  g_set_application_name ("Weft");
  /* The icon is in the app's GResource under the resource base path
   * (/org/weft/Weft/icons): GtkApplication's startup added it to the icon
   * theme, so an uninstalled build finds it too. */
  gtk_window_set_default_icon_name (WEFT_APPLICATION_ID);
  g_action_map_add_action_entries (G_ACTION_MAP (app), entries, G_N_ELEMENTS (entries), app);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (app), accels[i].action, accels[i].accels);

  source = g_settings_schema_source_get_default ();
  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, "org.gnome.desktop.interface", TRUE);
  if (schema != NULL && g_settings_schema_has_key (schema, "color-scheme"))
    {
      self->interface_settings = g_settings_new ("org.gnome.desktop.interface");
      g_signal_connect (self->interface_settings, "changed::color-scheme", G_CALLBACK (on_color_scheme_changed), self);
    }

  settings = gtk_settings_get_default ();
  if (settings != NULL)
    {
      g_signal_connect_object (settings, "notify::gtk-application-prefer-dark-theme", G_CALLBACK (on_settings_changed), self, 0);
      g_signal_connect_object (settings, "notify::gtk-theme-name", G_CALLBACK (on_settings_changed), self, 0);
    }
  apply_color_scheme (self);
  dark = g_action_map_lookup_action (G_ACTION_MAP (app), "dark");
  g_simple_action_set_state (G_SIMPLE_ACTION (dark), g_variant_new_boolean (self->dark));
}

static int
weft_application_handle_local_options (GApplication *app, GVariantDict *options)
{
  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("weft %s\n", WEFT_VERSION_STRING);
      return 0;
    }
  WEFT_APPLICATION (app)->compare = g_variant_dict_contains (options, "compare");
  /* (before registering: the flags may still change). --compare runs its
   * own process: a forwarded open carries no options, so the running
   * instance would open A and B as two windows */
  if (g_variant_dict_contains (options, "new-instance") || WEFT_APPLICATION (app)->compare)
    g_application_set_flags (app, g_application_get_flags (app) | G_APPLICATION_NON_UNIQUE);
  return -1;
}

static void
weft_application_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  WeftApplication *self = WEFT_APPLICATION (object);

  switch (prop_id)
    {
    case PROP_DARK:
      g_value_set_boolean (value, self->dark);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
weft_application_dispose (GObject *object)
{
  WeftApplication *self = WEFT_APPLICATION (object);

  g_clear_object (&self->interface_settings);
  G_OBJECT_CLASS (weft_application_parent_class)->dispose (object);
}

static void
weft_application_class_init (WeftApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->get_property = weft_application_get_property;
  object_class->dispose = weft_application_dispose;
  app_class->startup = weft_application_startup;
  app_class->activate = weft_application_activate;
  app_class->open = weft_application_open;
  app_class->handle_local_options = weft_application_handle_local_options;

  properties[PROP_DARK] = g_param_spec_boolean ("dark", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
weft_application_init (WeftApplication *self)
{
  static const GOptionEntry entries[] = {
    { "version", 'v', 0, G_OPTION_ARG_NONE, NULL, "Print the version and exit", NULL },
    { "new-instance", 0, 0, G_OPTION_ARG_NONE, NULL,
      "Open the files in a new process instead of a new window of the running Weft", NULL },
    { "compare", 0, 0, G_OPTION_ARG_NONE, NULL, "Compare two traces A B: A above B on a shared time axis", NULL },
    { NULL }
  };

  g_application_add_main_option_entries (G_APPLICATION (self), entries);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), "[TRACE FILE OR FOLDER...]");
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            "Open PyTorch profiler (Kineto) traces of a distributed training job, "
                                            "one file per rank or a folder of them, and edit them.");
}

WeftApplication *
weft_application_new (void)
{
  /* Unique, as GNOME applications are: a second `weft FILE` asks the
   * running instance (over the session bus, by the application id) to
   * open FILE in a new window, and exits. --new-instance (NON_UNIQUE, set
   * in handle_local_options) runs a process of its own; without a session
   * bus GApplication is non-unique by itself. */
  return g_object_new (WEFT_TYPE_APPLICATION,
                       "application-id", WEFT_APPLICATION_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       NULL);
}

gboolean
weft_application_get_dark (WeftApplication *self)
{
  g_return_val_if_fail (WEFT_IS_APPLICATION (self), FALSE);
  return self->dark;
}
