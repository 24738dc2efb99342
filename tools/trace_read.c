/*
 * trace_read.c: reads a GC trace (JSON Lines written by the library's
 * trace.c) into memory, and the statistics and formatting the subcommands
 * share. The reader accepts any flat JSON object per line, takes the keys it
 * knows (integers, and the reason string) and skips every other key and
 * value, so the library may add keys without breaking it. A line that is not
 * a JSON object, or a known key with a value of the wrong type, is an error.
 */
#include "tool.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct json_cursor {
  const char *p;
  const char *problem;   /* first error, or NULL */
};

static void json_space(struct json_cursor *c) {
  while (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n') c->p++;
}

static bool json_fail(struct json_cursor *c, const char *problem) {
  if (!c->problem) c->problem = problem;
  return false;
}

/* A string into out (truncated to cap, escapes kept as the escaped char). */
static bool json_string(struct json_cursor *c, char *out, size_t cap) {
  size_t n = 0;
  if (*c->p != '"') return json_fail(c, "expected a string");
  c->p++;
  while (*c->p && *c->p != '"') {
    char ch = *c->p++;
    if (ch == '\\') {
      if (!*c->p) break;
      ch = *c->p++;
    }
    if (out && n + 1 < cap) out[n++] = ch;
  }
  if (*c->p != '"') return json_fail(c, "unterminated string");
  c->p++;
  if (out && cap) out[n] = '\0';
  return true;
}

static bool json_unsigned(struct json_cursor *c, uint64_t *out) {
  if (!isdigit((unsigned char)*c->p)) return json_fail(c, "expected a non-negative integer");
  errno = 0;
  char *end;
  unsigned long long v = strtoull(c->p, &end, 10);
  if (errno || *end == '.' || *end == 'e' || *end == 'E')
    return json_fail(c, "expected an integer");
  c->p = end;
  *out = v;
  return true;
}

/* Skips any JSON value: nested objects and arrays by depth, strings with
   their escapes, scalars up to the next delimiter. */
static bool json_skip_value(struct json_cursor *c) {
  int depth = 0;
  do {
    json_space(c);
    char ch = *c->p;
    if (ch == '"') {
      if (!json_string(c, NULL, 0)) return false;
    } else if (ch == '{' || ch == '[') {
      depth++;
      c->p++;
    } else if (ch == '}' || ch == ']') {
      if (depth == 0) return json_fail(c, "unexpected bracket");
      depth--;
      c->p++;
    } else if (ch == ',' || ch == ':') {
      if (depth == 0) return json_fail(c, "expected a value");
      c->p++;
    } else if (ch) {
      const char *start = c->p;
      while (*c->p && !strchr(",:{}[]\" \t\r\n", *c->p)) c->p++;
      if (c->p == start) return json_fail(c, "expected a value");
    } else {
      return json_fail(c, "line ends inside a value");
    }
  } while (depth > 0);
  return true;
}

/* The keys the reader knows; each maps to a field of one of the records. */
struct trace_line {
  char type[16];
  char reason[32];
  uint64_t gc, start_ns, end_ns, pause_ns, heap_bytes, live_bytes, external_bytes,
      marked_objects, collections, peak_heap_bytes;
  unsigned seen;   /* bit per known key */
};

enum {
  SEEN_GC = 1, SEEN_START = 2, SEEN_END = 4, SEEN_PAUSE = 8, SEEN_HEAP = 16,
  SEEN_LIVE = 32, SEEN_EXTERNAL = 64, SEEN_COLLECTIONS = 128, SEEN_PEAK = 256
};

static const struct {
  const char *key;
  size_t offset;
  unsigned seen;
} trace_integer_keys[] = {
  { "gc", offsetof(struct trace_line, gc), SEEN_GC },
  { "start_ns", offsetof(struct trace_line, start_ns), SEEN_START },
  { "end_ns", offsetof(struct trace_line, end_ns), SEEN_END },
  { "pause_ns", offsetof(struct trace_line, pause_ns), SEEN_PAUSE },
  { "heap_bytes", offsetof(struct trace_line, heap_bytes), SEEN_HEAP },
  { "live_bytes", offsetof(struct trace_line, live_bytes), SEEN_LIVE },
  { "external_bytes", offsetof(struct trace_line, external_bytes), SEEN_EXTERNAL },
  { "marked_objects", offsetof(struct trace_line, marked_objects), 0 },
  { "collections", offsetof(struct trace_line, collections), SEEN_COLLECTIONS },
  { "peak_heap_bytes", offsetof(struct trace_line, peak_heap_bytes), SEEN_PEAK },
};

static bool trace_parse_line(const char *text, struct trace_line *l, const char **problem) {
  struct json_cursor c = { text, NULL };
  memset(l, 0, sizeof *l);
  json_space(&c);
  if (*c.p != '{') {
    *problem = "not a JSON object";
    return false;
  }
  c.p++;
  json_space(&c);
  bool first = true;
  while (*c.p != '}') {
    if (!first) {
      if (*c.p != ',') { *problem = "expected ',' or '}'"; return false; }
      c.p++;
      json_space(&c);
    }
    first = false;
    char key[32];
    if (!json_string(&c, key, sizeof key)) break;
    json_space(&c);
    if (*c.p != ':') { json_fail(&c, "expected ':'"); break; }
    c.p++;
    json_space(&c);
    bool known = false;
    for (size_t k = 0; k < sizeof trace_integer_keys / sizeof trace_integer_keys[0]; k++) {
      if (strcmp(key, trace_integer_keys[k].key) != 0) continue;
      known = true;
      if (!json_unsigned(&c, (uint64_t *)((char *)l + trace_integer_keys[k].offset))) break;
      l->seen |= trace_integer_keys[k].seen;
    }
    if (!known && strcmp(key, "type") == 0) {
      known = true;
      json_string(&c, l->type, sizeof l->type);
    } else if (!known && strcmp(key, "reason") == 0) {
      known = true;
      json_string(&c, l->reason, sizeof l->reason);
    }
    if (!known) json_skip_value(&c);
    if (c.problem) break;
    json_space(&c);
  }
  if (!c.problem && *c.p == '}') {
    c.p++;
    json_space(&c);
    if (*c.p) c.problem = "text after the object";
  } else if (!c.problem) {
    c.problem = "unterminated object";
  }
  if (!c.problem && !l->type[0]) c.problem = "no \"type\"";
  if (!c.problem && strcmp(l->type, "gc") == 0 &&
      (l->seen & (SEEN_START | SEEN_END | SEEN_HEAP | SEEN_LIVE)) !=
          (SEEN_START | SEEN_END | SEEN_HEAP | SEEN_LIVE))
    c.problem = "a \"gc\" record needs start_ns, end_ns, heap_bytes and live_bytes";
  if (!c.problem && strcmp(l->type, "gc") == 0 && l->end_ns < l->start_ns)
    c.problem = "end_ns before start_ns";
  *problem = c.problem;
  return c.problem == NULL;
}

static bool trace_add(struct trace *t, const struct trace_line *l) {
  if (t->n == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 256;
    struct trace_gc *grown = realloc(t->gcs, cap * sizeof *grown);
    if (!grown) return false;
    t->gcs = grown;
    t->cap = cap;
  }
  struct trace_gc *g = &t->gcs[t->n++];
  g->gc = (unsigned long)((l->seen & SEEN_GC) ? l->gc : t->n);
  g->start_ns = l->start_ns;
  g->end_ns = l->end_ns;
  g->pause_ns = (l->seen & SEEN_PAUSE) ? l->pause_ns : l->end_ns - l->start_ns;
  g->heap_bytes = l->heap_bytes;
  g->live_bytes = l->live_bytes;
  g->external_bytes = l->external_bytes;
  g->marked_objects = l->marked_objects;
  snprintf(g->reason, sizeof g->reason, "%s", l->reason[0] ? l->reason : "unknown");
  return true;
}

bool trace_read(const char *path, struct trace *t, char *err, size_t err_len) {
  memset(t, 0, sizeof *t);
  FILE *f = fopen(path, "r");
  if (!f) {
    int error = errno;
    snprintf(err, err_len, "cannot read trace %s: %s", path, strerror(error));
    errno = error;   /* callers tell a missing trace from a bad one */
    return false;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  unsigned long number = 0;
  bool ok = true;
  while (ok && (len = getline(&line, &cap, f)) >= 0) {
    number++;
    if (strspn(line, " \t\r\n") == (size_t)len) continue;
    struct trace_line l;
    const char *problem;
    if (!trace_parse_line(line, &l, &problem)) {
      snprintf(err, err_len, "%s:%lu: malformed trace line (%s)", path, number, problem);
      ok = false;
    } else if (strcmp(l.type, "gc") == 0) {
      if (!trace_add(t, &l)) {
        snprintf(err, err_len, "%s: out of memory", path);
        ok = false;
      }
    } else if (strcmp(l.type, "exit") == 0) {
      t->has_exit = true;
      t->exit_end_ns = l.end_ns;
      t->exit_collections = l.collections;
      t->exit_heap_bytes = l.heap_bytes;
      t->exit_live_bytes = l.live_bytes;
      t->exit_external_bytes = l.external_bytes;
      t->exit_peak_heap_bytes = l.peak_heap_bytes;
    }
  }
  if (ok && ferror(f)) {
    snprintf(err, err_len, "cannot read trace %s: %s", path, strerror(errno));
    ok = false;
  }
  free(line);
  fclose(f);
  if (!ok) trace_release(t);
  return ok;
}

void trace_release(struct trace *t) {
  free(t->gcs);
  memset(t, 0, sizeof *t);
}

uint64_t trace_peak_heap(const struct trace *t) {
  uint64_t peak = t->has_exit ? t->exit_peak_heap_bytes : 0;
  for (size_t k = 0; k < t->n; k++)
    if (t->gcs[k].heap_bytes > peak) peak = t->gcs[k].heap_bytes;
  return peak;
}

uint64_t trace_last_ns(const struct trace *t) {
  uint64_t last = t->has_exit ? t->exit_end_ns : 0;
  if (t->n && t->gcs[t->n - 1].end_ns > last) last = t->gcs[t->n - 1].end_ns;
  return last;
}

static int compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Nearest-rank percentiles: the median and p95 are pauses that happened. */
static uint64_t percentile_of_sorted(const uint64_t *v, size_t n, unsigned percent) {
  size_t rank = (n * percent + 99) / 100;
  return v[rank ? rank - 1 : 0];
}

void pause_stats_of(const uint64_t *pauses, size_t n, struct pause_stats *out) {
  memset(out, 0, sizeof *out);
  out->count = n;
  if (n == 0) return;
  uint64_t *sorted = malloc(n * sizeof *sorted);
  if (!sorted) return;
  memcpy(sorted, pauses, n * sizeof *sorted);
  qsort(sorted, n, sizeof *sorted, compare_u64);
  for (size_t k = 0; k < n; k++) out->total_ns += sorted[k];
  out->median_ns = percentile_of_sorted(sorted, n, 50);
  out->p95_ns = percentile_of_sorted(sorted, n, 95);
  out->max_ns = sorted[n - 1];
  free(sorted);
}

void trace_pause_stats(const struct trace *t, struct pause_stats *out) {
  uint64_t *pauses = malloc((t->n ? t->n : 1) * sizeof *pauses);
  if (!pauses) {
    memset(out, 0, sizeof *out);
    return;
  }
  for (size_t k = 0; k < t->n; k++) pauses[k] = t->gcs[k].pause_ns;
  pause_stats_of(pauses, t->n, out);
  free(pauses);
}

void format_bytes(char *buf, size_t len, uint64_t bytes) {
  static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
  double v = (double)bytes;
  unsigned u = 0;
  while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
    v /= 1024;
    u++;
  }
  if (u == 0) snprintf(buf, len, "%llu B", (unsigned long long)bytes);
  else snprintf(buf, len, "%.*f %s", v < 10 ? 2 : v < 100 ? 1 : 0, v, units[u]);
}

void format_ns(char *buf, size_t len, uint64_t ns) {
  if (ns < 1000) snprintf(buf, len, "%llu ns", (unsigned long long)ns);
  else if (ns < 1000000) snprintf(buf, len, "%.1f us", ns / 1e3);
  else if (ns < 1000000000) snprintf(buf, len, "%.2f ms", ns / 1e6);
  else snprintf(buf, len, "%.3f s", ns / 1e9);
}
