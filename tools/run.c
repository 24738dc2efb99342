/*
 * run.c: `bibop run` — runs a libgc program on bibop through the drop-in
 * library, with the library writing a trace, and summarises the trace when
 * the program ends. Its exit status is the program's. Also the environment
 * every bibop run gets (bibop_environment), which compare.c reuses.
 */
#include "tool.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char **bibop_environment(const struct settings *s, const char *dropin, const char *trace_path) {
  const char *names[SETTINGS_MAX + 2], *values[SETTINGS_MAX + 2];
  int n = 0;
  for (int k = 0; k < s->count; k++) {
    names[n] = s->names[k];
    values[n++] = s->values[k];
  }
  char path[PATH_MAX * 2];
  const char *old = getenv("LD_LIBRARY_PATH");
  snprintf(path, sizeof path, "%s%s%s", dropin, old && *old ? ":" : "", old ? old : "");
  names[n] = "LD_LIBRARY_PATH";
  values[n++] = path;
  names[n] = "BIBOP_TRACE";
  values[n++] = trace_path;
  return env_with(names, values, n);
}

const char *bibop_dropin_or_complain(void) {
  const char *dropin = dropin_dir();
  if (!dropin)
    fprintf(stderr,
            "bibop: cannot find the drop-in libgc.so.1 (looked in %s relative to this "
            "command, and in the build tree); is bibop installed completely?\n",
            BIBOP_DROPIN_FROM_BINDIR);
  return dropin;
}

void complain_not_started(const char *program, int error) {
  fprintf(stderr, "bibop: cannot run %s: %s\n", program, strerror(error));
}

/* Called when the trace holds nothing: say why, as precisely as ldd lets us.
   True if that is an error (the program does not run on bibop at all). */
bool explain_empty_trace(const char *program, char **env) {
  char where[PATH_MAX] = "";
  switch (libgc_dependency(program, env, where, sizeof where)) {
    case LIBGC_NONE:
      fprintf(stderr,
              "bibop: %s does not use libgc (no libgc.so in its dynamic dependencies, and no "
              "collector started): there is nothing for bibop to run or measure\n",
              program);
      return true;
    case LIBGC_OTHER:
      fprintf(stderr,
              "bibop: %s loads libgc from %s, not bibop's drop-in (an RPATH in the program "
              "beats LD_LIBRARY_PATH); rebuild it against bibop (docs/GUIDE.md)\n",
              program, where);
      return true;
    case LIBGC_BIBOP:
      fprintf(stderr, "bibop: %s ran on bibop but never started the collector: no collections\n",
              program);
      return false;
    case LIBGC_UNKNOWN:
      fprintf(stderr,
              "bibop: no collector started in %s (no GC trace written): it does not seem to use "
              "libgc\n",
              program);
      return true;
  }
  return true;
}

static void summary_line(const char *label, const char *text) {
  fprintf(stderr, "  %-14s %s\n", label, text);
}

/* The reasons, most frequent first, as "allocation 40, explicit 2". */
static void reason_counts(const struct trace *t, char *out, size_t len) {
  const char *names[16];
  size_t counts[16], kinds = 0;
  for (size_t k = 0; k < t->n; k++) {
    size_t r = 0;
    while (r < kinds && strcmp(names[r], t->gcs[k].reason) != 0) r++;
    if (r == kinds) {
      if (kinds == 16) continue;
      names[kinds] = t->gcs[k].reason;
      counts[kinds++] = 0;
    }
    counts[r]++;
  }
  out[0] = '\0';
  for (size_t done = 0; done < kinds; done++) {
    size_t best = 0;
    for (size_t r = 1; r < kinds; r++)
      if (counts[r] > counts[best]) best = r;
    size_t used = strlen(out);
    snprintf(out + used, len - used, "%s%s %zu", done ? ", " : "", names[best], counts[best]);
    counts[best] = 0;
  }
}

void print_summary(const char *program, const struct trace *t, const struct launch_result *r) {
  char a[64], b[64], c[64], text[256];
  struct pause_stats ps;
  trace_pause_stats(t, &ps);
  format_ns(a, sizeof a, r->wall_ns);
  fprintf(stderr, "bibop: %s exited with status %d after %s\n", program,
          launch_exit_code(r->wait_status), a);
  char reasons[200];
  reason_counts(t, reasons, sizeof reasons);
  snprintf(text, sizeof text, "%zu%s%s%s", t->n, t->n ? " (" : "", reasons, t->n ? ")" : "");
  summary_line("collections", text);
  format_ns(a, sizeof a, ps.total_ns);
  snprintf(text, sizeof text, "%s, %.1f%% of wall time", a,
           r->wall_ns ? 100.0 * (double)ps.total_ns / (double)r->wall_ns : 0.0);
  summary_line("time in GC", text);
  if (ps.count) {
    format_ns(a, sizeof a, ps.median_ns);
    format_ns(b, sizeof b, ps.p95_ns);
    format_ns(c, sizeof c, ps.max_ns);
    snprintf(text, sizeof text, "median %s, p95 %s, max %s", a, b, c);
    summary_line("pauses", text);
  }
  format_bytes(a, sizeof a, trace_peak_heap(t));
  summary_line("peak heap", a);
  format_bytes(a, sizeof a, (uint64_t)r->max_rss_kib * 1024);
  summary_line("peak RSS", a);
  if (t->has_exit) {
    format_bytes(a, sizeof a, t->exit_live_bytes);
    format_bytes(b, sizeof b, t->exit_external_bytes);
    format_bytes(c, sizeof c, t->exit_heap_bytes);
    snprintf(text, sizeof text, "live %s, external %s (heap %s)", a, b, c);
    summary_line("at exit", text);
  } else if (t->n) {
    const struct trace_gc *last = &t->gcs[t->n - 1];
    format_bytes(a, sizeof a, last->live_bytes);
    format_bytes(b, sizeof b, last->external_bytes);
    snprintf(text, sizeof text,
             "live %s, external %s after the last collection (no exit record: the program "
             "ended without exit(), e.g. killed or _exit)",
             a, b);
    summary_line("at the end", text);
  }
}

int command_run(int argc, char **argv) {
  struct settings s;
  int i = 1;
  if (!settings_parse(argc, argv, &i, &s, NULL, NULL)) return TOOL_EXIT_USAGE;
  char **program = argv + i;
  const char *dropin = bibop_dropin_or_complain();
  if (!dropin) return TOOL_EXIT_NOT_RUN;

  char temp[PATH_MAX];
  const char *trace_path = s.trace_path;
  if (!trace_path) {
    if (!temp_file(temp, sizeof temp, "trace")) {
      fprintf(stderr, "bibop: cannot create a temporary trace file: %s\n", strerror(errno));
      return TOOL_EXIT_NOT_RUN;
    }
    trace_path = temp;
  } else {
    /* A trace left from an earlier run must not pass for this one's. */
    unlink(trace_path);
  }
  char **env = bibop_environment(&s, dropin, trace_path);
  struct launch_result r;
  int error = launch(program, env, NULL, NULL, &r);
  if (error) {
    complain_not_started(program[0], error);
    env_release(env);
    if (!s.trace_path) unlink(temp);
    return TOOL_EXIT_NOT_RUN;
  }
  int status = launch_exit_code(r.wait_status);

  struct trace t;
  char err[PATH_MAX + 128];
  bool not_on_bibop = false;
  if (!trace_read(trace_path, &t, err, sizeof err)) {
    if (errno == ENOENT) not_on_bibop = explain_empty_trace(program[0], env);
    else fprintf(stderr, "bibop: %s\n", err);
  } else {
    if (t.n == 0 && !t.has_exit) not_on_bibop = explain_empty_trace(program[0], env);
    else print_summary(program[0], &t, &r);
    trace_release(&t);
    if (s.trace_path) fprintf(stderr, "  %-14s %s\n", "trace", s.trace_path);
  }
  if (!s.trace_path) unlink(temp);
  env_release(env);
  /* A program that never ran on bibop "succeeded" at nothing bibop could do. */
  if (status == 0 && not_on_bibop) return TOOL_EXIT_NOT_BIBOP;
  return status;
}
