/*
 * tool.h: the `bibop` command's shared declarations. The command runs
 * programs (launch.c), reads GC traces (trace_read.c), and has one file per
 * subcommand: run.c, compare.c, plot.c; main.c dispatches and parses the
 * settings options every subcommand shares. The command never links the
 * collector: it observes programs through the environment and the trace the
 * library writes (BIBOP_TRACE, JSON Lines, see docs/GUIDE.md).
 */
#ifndef BIBOP_TOOL_H
#define BIBOP_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit statuses of the command itself (a run's status is the program's). */
#define TOOL_EXIT_USAGE 2
#define TOOL_EXIT_NOT_RUN 127
#define TOOL_EXIT_NOT_BIBOP 3   /* the program never used libgc: nothing measured */

/* ---- traces (trace_read.c) ---------------------------------------------- */

struct trace_gc {
  unsigned long gc;
  uint64_t start_ns, end_ns, pause_ns;
  uint64_t heap_bytes, live_bytes, external_bytes, marked_objects;
  char reason[32];
};

struct trace {
  struct trace_gc *gcs;
  size_t n, cap;
  bool has_exit;   /* the program ended through exit(): the final record */
  uint64_t exit_end_ns, exit_collections, exit_heap_bytes, exit_live_bytes,
      exit_external_bytes, exit_peak_heap_bytes;
};

/* Reads a trace; on failure returns false with a message naming the file
   and, for a malformed line, its number. Unknown keys and unknown record
   types are ignored. */
bool trace_read(const char *path, struct trace *t, char *err, size_t err_len);
void trace_release(struct trace *t);
uint64_t trace_peak_heap(const struct trace *t);
uint64_t trace_last_ns(const struct trace *t);

struct pause_stats {
  size_t count;
  uint64_t total_ns, median_ns, p95_ns, max_ns;
};
void pause_stats_of(const uint64_t *pauses, size_t n, struct pause_stats *out);
void trace_pause_stats(const struct trace *t, struct pause_stats *out);

/* ---- settings shared by run and compare (main.c) ------------------------ */

#define SETTINGS_MAX 16
struct settings {
  const char *names[SETTINGS_MAX];    /* environment variables to set */
  const char *values[SETTINGS_MAX];
  int count;
  const char *trace_path;             /* --trace FILE (run) */
};

/* Parses argv[*i...] options up to the program (after an optional "--").
   extra(opt, arg, ctx) handles subcommand options, returning the number of
   arguments it consumed (1 or 2) or 0 if it does not know opt. Returns false
   after printing a message on a bad option or a missing program. */
typedef int settings_extra_fn(const char *opt, const char *arg, void *ctx);
bool settings_parse(int argc, char **argv, int *i, struct settings *s,
                    settings_extra_fn *extra, void *ctx);
void settings_usage(void);

/* ---- running programs (launch.c) ---------------------------------------- */

struct launch_result {
  int wait_status;        /* as from wait4 */
  uint64_t wall_ns;
  long max_rss_kib;       /* ru_maxrss of the program */
};

/* The directory holding the drop-in libgc.so.1: next to an installed
   command (bin/../lib/bibop) or the build tree's lib/. NULL if neither. */
const char *dropin_dir(void);

/* A copy of the environment with names[k]=values[k] set (values NULL:
   removed). Freed with env_release. */
char **env_with(const char *const *names, const char *const *values, int count);
void env_release(char **env);

/* Runs argv with env, stdout/stderr to the named files (NULL: inherited),
   waits and measures. Returns 0, or the errno of a failed start. While the
   program runs, SIGINT and SIGQUIT reach it, not the command. */
int launch(char *const *argv, char **env, const char *stdout_path,
           const char *stderr_path, struct launch_result *out);
/* The program's exit status as a shell reports it (128 + signal). */
int launch_exit_code(int wait_status);

enum libgc_use { LIBGC_NONE, LIBGC_BIBOP, LIBGC_OTHER, LIBGC_UNKNOWN };
/* Which libgc.so.1 the program loads under env (asks ldd); where receives
   the path of the library for LIBGC_OTHER / LIBGC_BIBOP. */
enum libgc_use libgc_dependency(const char *program, char **env, char *where, size_t where_len);

/* A fresh temporary file name (the file is created empty). */
bool temp_file(char *buf, size_t len, const char *tag);

/* ---- formatting (trace_read.c) ------------------------------------------ */

void format_bytes(char *buf, size_t len, uint64_t bytes);
void format_ns(char *buf, size_t len, uint64_t ns);

/* ---- runs on bibop (run.c) --------------------------------------------- */

/* The environment of a run on bibop: the settings, the drop-in directory
   first in LD_LIBRARY_PATH, BIBOP_TRACE=trace_path. */
char **bibop_environment(const struct settings *s, const char *dropin, const char *trace_path);
const char *bibop_dropin_or_complain(void);
void complain_not_started(const char *program, int error);
/* Says why a run left no trace records; true if the program does not run
   on bibop at all (does not use libgc, or loads another libgc). */
bool explain_empty_trace(const char *program, char **env);
void print_summary(const char *program, const struct trace *t, const struct launch_result *r);

/* ---- subcommands --------------------------------------------------------- */

int command_run(int argc, char **argv);
int command_compare(int argc, char **argv);
int command_plot(int argc, char **argv);

#endif
