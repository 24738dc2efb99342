/*
 * compare.c: `bibop compare` — the same program on the system's libgc and on
 * bibop, alternating (stock, bibop, bibop, stock, ...) so that drifting
 * machine load falls on both alike; prints medians and ratios, and whether
 * every run printed the same standard output. Collections and pauses of the
 * stock runs come from stock libgc's own statistics (GC_PRINT_STATS into a
 * GC_LOG_FILE), those of bibop's runs from the trace.
 */
#include "tool.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COMPARE_DEFAULT_RUNS 5
#define COMPARE_MAX_RUNS 1000

enum side { SIDE_STOCK, SIDE_BIBOP };
static const char *const side_names[] = { "stock libgc", "bibop" };

struct run_numbers {
  uint64_t wall_ns, rss_bytes, collections, max_pause_ns;
  int status;
};

struct compare_options {
  int runs;
  const char *trace_dir;
};

static int compare_extra_option(const char *opt, const char *arg, void *ctx) {
  struct compare_options *o = ctx;
  if (strcmp(opt, "-n") == 0 || strcmp(opt, "--runs") == 0) {
    char *end;
    long n = arg ? strtol(arg, &end, 10) : 0;
    if (!arg || *end || n < 1 || n > COMPARE_MAX_RUNS) {
      fprintf(stderr, "bibop: %s needs a number of runs from 1 to %d\n", opt, COMPARE_MAX_RUNS);
      return -1;
    }
    o->runs = (int)n;
    return 2;
  }
  if (strcmp(opt, "--trace-dir") == 0) {
    if (!arg) {
      fprintf(stderr, "bibop: --trace-dir needs a directory\n");
      return -1;
    }
    o->trace_dir = arg;
    return 2;
  }
  return 0;
}

/* Stock libgc with GC_PRINT_STATS logs "Complete collection took A ms B ns"
   once per collection. */
static void read_stock_log(const char *path, struct run_numbers *n) {
  FILE *f = fopen(path, "r");
  char line[512];
  while (f && fgets(line, sizeof line, f)) {
    unsigned long ms, ns;
    if (sscanf(line, "Complete collection took %lu ms %lu ns", &ms, &ns) != 2) continue;
    uint64_t pause = (uint64_t)ms * 1000000u + ns;
    n->collections++;
    if (pause > n->max_pause_ns) n->max_pause_ns = pause;
  }
  if (f) fclose(f);
}

static bool same_file_contents(const char *a, const char *b) {
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  bool same = fa && fb;
  while (same) {
    int ca = getc(fa), cb = getc(fb);
    if (ca != cb) same = false;
    if (ca == EOF || cb == EOF) break;
  }
  if (fa) fclose(fa);
  if (fb) fclose(fb);
  return same;
}

static void show_stderr_head(const char *path) {
  FILE *f = fopen(path, "r");
  char line[512];
  for (int k = 0; f && k < 10 && fgets(line, sizeof line, f); k++) fprintf(stderr, "    %s", line);
  if (f) fclose(f);
}

static uint64_t median_of(const struct run_numbers *runs, int count, size_t field) {
  uint64_t values[COMPARE_MAX_RUNS];
  for (int k = 0; k < count; k++)
    values[k] = *(const uint64_t *)((const char *)&runs[k] + field);
  struct pause_stats s;
  pause_stats_of(values, (size_t)count, &s);
  return s.median_ns;
}

static void table_row(const char *label, uint64_t stock, uint64_t bibop,
                      void (*format)(char *, size_t, uint64_t)) {
  char a[64], b[64], ratio[32] = "-";
  format(a, sizeof a, stock);
  format(b, sizeof b, bibop);
  if (stock) snprintf(ratio, sizeof ratio, "%.2f", (double)bibop / (double)stock);
  printf("%-16s %14s %14s %10s\n", label, a, b, ratio);
}

static void format_count(char *buf, size_t len, uint64_t n) {
  snprintf(buf, len, "%llu", (unsigned long long)n);
}

struct compare_state {
  char **program;
  char **stock_env_base;
  const char *dropin;
  struct settings settings;
  struct compare_options options;
  char reference_stdout[PATH_MAX];    /* the first run's output */
  char out_path[PATH_MAX], err_path[PATH_MAX], log_path[PATH_MAX], trace_temp[PATH_MAX];
  int mismatches;
  char first_mismatch[128];
};

/* One run on one side; false if the program could not be started or does
   not run on bibop (the comparison is then pointless). */
static bool compare_one(struct compare_state *c, enum side side, int index, int done, int total,
                        struct run_numbers *out) {
  fprintf(stderr, "bibop compare: run %d/%d %s...\n", done, total, side_names[side]);
  char trace_path[PATH_MAX];
  char **env;
  if (side == SIDE_STOCK) {
    const char *names[SETTINGS_MAX + 3], *values[SETTINGS_MAX + 3];
    int n = 0;
    for (int k = 0; k < c->settings.count; k++) {
      names[n] = c->settings.names[k];
      values[n++] = c->settings.values[k];
    }
    names[n] = "GC_PRINT_STATS", values[n++] = "1";
    names[n] = "GC_LOG_FILE", values[n++] = c->log_path;
    names[n] = "BIBOP_TRACE", values[n++] = NULL;
    env = env_with(names, values, n);
    unlink(c->log_path);   /* stock libgc appends to an existing log */
  } else {
    if (c->options.trace_dir)
      snprintf(trace_path, sizeof trace_path, "%s/bibop-run-%d.jsonl", c->options.trace_dir,
               index + 1);
    else
      snprintf(trace_path, sizeof trace_path, "%s", c->trace_temp);
    unlink(trace_path);
    env = bibop_environment(&c->settings, c->dropin, trace_path);
  }
  const char *out_path = done == 1 ? c->reference_stdout : c->out_path;
  struct launch_result r;
  int error = launch(c->program, env, out_path, c->err_path, &r);
  if (error) {
    complain_not_started(c->program[0], error);
    env_release(env);
    return false;
  }
  memset(out, 0, sizeof *out);
  out->wall_ns = r.wall_ns;
  out->rss_bytes = (uint64_t)r.max_rss_kib * 1024;
  out->status = launch_exit_code(r.wait_status);
  bool ok = true;
  if (side == SIDE_STOCK) {
    read_stock_log(c->log_path, out);
  } else {
    struct trace t;
    char err[PATH_MAX + 128];
    if (trace_read(trace_path, &t, err, sizeof err)) {
      struct pause_stats ps;
      trace_pause_stats(&t, &ps);
      out->collections = t.n;
      out->max_pause_ns = ps.max_ns;
      if (t.n == 0 && !t.has_exit) ok = !explain_empty_trace(c->program[0], env);
      trace_release(&t);
    } else if (errno == ENOENT) {
      ok = !explain_empty_trace(c->program[0], env);
    } else {
      fprintf(stderr, "bibop: %s\n", err);
    }
  }
  if (out->status != 0) {
    fprintf(stderr, "bibop compare: %s run %d exited with status %d; its stderr begins:\n",
            side_names[side], index + 1, out->status);
    show_stderr_head(c->err_path);
  }
  if (done > 1 && !same_file_contents(c->reference_stdout, c->out_path)) {
    if (c->mismatches++ == 0)
      snprintf(c->first_mismatch, sizeof c->first_mismatch, "%s run %d", side_names[side],
               index + 1);
  }
  env_release(env);
  return ok;
}

int command_compare(int argc, char **argv) {
  struct compare_state c;
  memset(&c, 0, sizeof c);
  c.options.runs = COMPARE_DEFAULT_RUNS;
  int i = 1;
  if (!settings_parse(argc, argv, &i, &c.settings, compare_extra_option, &c.options))
    return TOOL_EXIT_USAGE;
  if (c.settings.trace_path) {
    fprintf(stderr, "bibop: compare keeps traces with --trace-dir DIR, not --trace\n");
    return TOOL_EXIT_USAGE;
  }
  if (c.options.trace_dir && access(c.options.trace_dir, W_OK) != 0) {
    fprintf(stderr, "bibop: cannot write traces into %s: %s\n", c.options.trace_dir,
            strerror(errno));
    return TOOL_EXIT_USAGE;
  }
  c.program = argv + i;
  c.dropin = bibop_dropin_or_complain();
  if (!c.dropin) return TOOL_EXIT_NOT_RUN;
  if (!temp_file(c.reference_stdout, PATH_MAX, "stdout") ||
      !temp_file(c.out_path, PATH_MAX, "stdout") || !temp_file(c.err_path, PATH_MAX, "stderr") ||
      !temp_file(c.log_path, PATH_MAX, "gclog") || !temp_file(c.trace_temp, PATH_MAX, "trace")) {
    fprintf(stderr, "bibop: cannot create temporary files: %s\n", strerror(errno));
    return TOOL_EXIT_NOT_RUN;
  }

  int runs = c.options.runs, total = 2 * runs, done = 0;
  struct run_numbers *numbers[2];
  numbers[SIDE_STOCK] = calloc((size_t)runs, sizeof(struct run_numbers));
  numbers[SIDE_BIBOP] = calloc((size_t)runs, sizeof(struct run_numbers));
  bool ok = numbers[0] && numbers[1];
  int statuses_differ = 0;
  for (int k = 0; ok && k < runs; k++) {
    /* stock first in even pairs, bibop first in odd ones */
    for (int half = 0; ok && half < 2; half++) {
      enum side side = (enum side)((k + half) % 2);
      ok = compare_one(&c, side, k, ++done, total, &numbers[side][k]);
    }
    if (ok && numbers[SIDE_STOCK][k].status != numbers[SIDE_BIBOP][k].status) statuses_differ++;
  }
  int result = 0;
  if (ok) {
    printf("%s: %d runs each, medians\n", c.program[0], runs);
    printf("%-16s %14s %14s %10s\n", "", side_names[SIDE_STOCK], side_names[SIDE_BIBOP],
           "bibop/stock");
    const struct run_numbers *s = numbers[SIDE_STOCK], *b = numbers[SIDE_BIBOP];
    table_row("wall time", median_of(s, runs, offsetof(struct run_numbers, wall_ns)),
              median_of(b, runs, offsetof(struct run_numbers, wall_ns)), format_ns);
    table_row("peak RSS", median_of(s, runs, offsetof(struct run_numbers, rss_bytes)),
              median_of(b, runs, offsetof(struct run_numbers, rss_bytes)), format_bytes);
    table_row("collections", median_of(s, runs, offsetof(struct run_numbers, collections)),
              median_of(b, runs, offsetof(struct run_numbers, collections)), format_count);
    table_row("max pause", median_of(s, runs, offsetof(struct run_numbers, max_pause_ns)),
              median_of(b, runs, offsetof(struct run_numbers, max_pause_ns)), format_ns);
    if (c.mismatches)
      printf("stdout: DIFFERS in %d of %d runs (first: %s, against stock libgc run 1)\n",
             c.mismatches, total - 1, c.first_mismatch);
    else
      printf("stdout: identical in all %d runs\n", total);
    if (statuses_differ)
      printf("exit status: DIFFERS between stock libgc and bibop in %d of %d pairs\n",
             statuses_differ, runs);
    if (c.options.trace_dir)
      printf("traces: %s/bibop-run-1.jsonl ... bibop-run-%d.jsonl\n", c.options.trace_dir, runs);
    if (c.mismatches || statuses_differ) result = 1;
  } else {
    result = TOOL_EXIT_NOT_RUN;
  }
  unlink(c.reference_stdout);
  unlink(c.out_path);
  unlink(c.err_path);
  unlink(c.log_path);
  unlink(c.trace_temp);
  free(numbers[0]);
  free(numbers[1]);
  return result;
}
