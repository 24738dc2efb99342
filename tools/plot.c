/*
 * plot.c: `bibop plot` — an SVG timeline of a trace, drawn here without any
 * library: an upper panel with heap size, live bytes and external bytes
 * over time (step lines: each value holds from one collection to the next),
 * and a lower panel with one mark per collection, <line class="pause">, at
 * the collection's start, as tall as its pause. Each mark has a <title> a
 * browser shows on hover. Every pause is one element, so a reader (or a
 * test) can count them.
 */
#include "tool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLOT_DEFAULT_WIDTH 960
#define PLOT_DEFAULT_HEIGHT 540
#define PLOT_MIN_SIDE 200
#define PLOT_MAX_SIDE 10000
#define MARGIN_LEFT 90
#define MARGIN_RIGHT 24
#define MARGIN_TOP 48
#define MARGIN_BOTTOM 48
#define PANEL_GAP 36
#define PAUSE_PANEL_SHARE 0.28    /* of the plotting height */
#define MIN_PAUSE_MARK_PX 2.0     /* a zero-length pause is still visible */
#define TICKS 5

struct plot_frame {
  double left, right;             /* x of time 0 and of the end */
  double mem_top, mem_bottom;     /* upper panel */
  double pause_top, pause_bottom; /* lower panel */
  uint64_t t_end, mem_max, pause_max;
};

static double x_of(const struct plot_frame *f, uint64_t t) {
  return f->left + (f->right - f->left) * ((double)t / (double)f->t_end);
}

static double y_mem(const struct plot_frame *f, uint64_t bytes) {
  return f->mem_bottom - (f->mem_bottom - f->mem_top) * ((double)bytes / (double)f->mem_max);
}

/* A round axis maximum for bytes: TICKS steps of a power of two. */
static uint64_t nice_ceiling(uint64_t v) {
  uint64_t step = 1;
  while (step * TICKS < v) step *= 2;
  return step * TICKS;
}

static void svg_text_escaped(FILE *out, const char *s) {
  for (; *s; s++) {
    if (*s == '<') fputs("&lt;", out);
    else if (*s == '>') fputs("&gt;", out);
    else if (*s == '&') fputs("&amp;", out);
    else if (*s == '"') fputs("&quot;", out);
    else fputc(*s, out);
  }
}

/* One series as a step line: the value after collection k holds until
   collection k+1 (or the exit). */
static void plot_series(FILE *out, const struct plot_frame *f, const struct trace *t,
                        size_t field, uint64_t exit_value, const char *cls) {
  fprintf(out, "<polyline class=\"%s\" points=\"", cls);
  double prev_y = y_mem(f, 0);
  fprintf(out, "%.1f,%.1f", x_of(f, 0), prev_y);
  for (size_t k = 0; k < t->n; k++) {
    uint64_t v = *(const uint64_t *)((const char *)&t->gcs[k] + field);
    double x = x_of(f, t->gcs[k].end_ns), y = y_mem(f, v);
    fprintf(out, " %.1f,%.1f %.1f,%.1f", x, prev_y, x, y);
    prev_y = y;
  }
  double x_end = x_of(f, f->t_end);
  fprintf(out, " %.1f,%.1f", x_end, prev_y);
  if (t->has_exit) fprintf(out, " %.1f,%.1f", x_end, y_mem(f, exit_value));
  fprintf(out, "\"/>\n");
}

static void plot_axes(FILE *out, const struct plot_frame *f) {
  char label[64];
  for (int k = 0; k <= TICKS; k++) {
    uint64_t bytes = f->mem_max / TICKS * (uint64_t)k;
    double y = y_mem(f, bytes);
    format_bytes(label, sizeof label, bytes);
    fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
            f->left, y, f->right, y);
    fprintf(out, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
            f->left - 6, y + 4, label);
  }
  for (int k = 0; k <= TICKS; k++) {
    uint64_t t = f->t_end / TICKS * (uint64_t)k;
    double x = x_of(f, t);
    format_ns(label, sizeof label, t);
    fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x,
            f->mem_top, x, f->pause_bottom);
    fprintf(out, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
            x, f->pause_bottom + 18, label);
  }
  format_ns(label, sizeof label, f->pause_max);
  fprintf(out, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
          f->left - 6, f->pause_top + 4, label);
  fprintf(out, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">0</text>\n",
          f->left - 6, f->pause_bottom + 4);
  fprintf(out, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">pauses</text>\n",
          f->left - 6, (f->pause_top + f->pause_bottom) / 2 + 4);
  fprintf(out, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
          f->left, f->mem_top, f->right - f->left, f->mem_bottom - f->mem_top);
  fprintf(out, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
          f->left, f->pause_top, f->right - f->left, f->pause_bottom - f->pause_top);
}

static void plot_pauses(FILE *out, const struct plot_frame *f, const struct trace *t) {
  char pause[32], heap[32], live[32];
  double height = f->pause_bottom - f->pause_top;
  for (size_t k = 0; k < t->n; k++) {
    const struct trace_gc *g = &t->gcs[k];
    double x = x_of(f, g->start_ns);
    double h = height * ((double)g->pause_ns / (double)f->pause_max);
    if (h < MIN_PAUSE_MARK_PX) h = MIN_PAUSE_MARK_PX;
    format_ns(pause, sizeof pause, g->pause_ns);
    format_bytes(heap, sizeof heap, g->heap_bytes);
    format_bytes(live, sizeof live, g->live_bytes);
    fprintf(out,
            "<line class=\"pause\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\">"
            "<title>GC #%lu (",
            x, f->pause_bottom, x, f->pause_bottom - h, g->gc);
    svg_text_escaped(out, g->reason);
    fprintf(out, "): pause %s, heap %s, live %s</title></line>\n", pause, heap, live);
  }
}

static void plot_legend(FILE *out, const struct plot_frame *f) {
  static const struct { const char *cls, *label; } keys[] = {
    { "heap", "heap size" }, { "live", "live bytes" },
    { "external", "external bytes" }, { "key-pause", "pause" },
  };
  double x = f->left + 10, y = f->mem_top + 16;
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    fprintf(out,
            "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
            "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">%s</text>\n",
            keys[k].cls, x, y - 4, x + 24, y - 4, x + 30, y, keys[k].label);
    x += 130;
  }
}

static bool plot_write(FILE *out, const char *trace_name, const struct trace *t, int width,
                       int height) {
  struct plot_frame f;
  double plot_h = height - MARGIN_TOP - MARGIN_BOTTOM - PANEL_GAP;
  f.left = MARGIN_LEFT;
  f.right = width - MARGIN_RIGHT;
  f.mem_top = MARGIN_TOP;
  f.mem_bottom = MARGIN_TOP + plot_h * (1 - PAUSE_PANEL_SHARE);
  f.pause_top = f.mem_bottom + PANEL_GAP;
  f.pause_bottom = height - MARGIN_BOTTOM;
  f.t_end = trace_last_ns(t);
  if (f.t_end == 0) f.t_end = 1;
  uint64_t mem = trace_peak_heap(t);
  struct pause_stats ps;
  trace_pause_stats(t, &ps);
  for (size_t k = 0; k < t->n; k++) {
    if (t->gcs[k].live_bytes > mem) mem = t->gcs[k].live_bytes;
    if (t->gcs[k].external_bytes > mem) mem = t->gcs[k].external_bytes;
  }
  if (t->has_exit && t->exit_external_bytes > mem) mem = t->exit_external_bytes;
  f.mem_max = nice_ceiling(mem);
  f.pause_max = ps.max_ns ? ps.max_ns : 1;

  fprintf(out,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\">\n"
          "<style>\n"
          "  text { font-family: sans-serif; font-size: 12px; fill: #222; }\n"
          "  .title { font-size: 14px; font-weight: bold; }\n"
          "  .grid { stroke: #ddd; stroke-width: 1; }\n"
          "  .frame { fill: none; stroke: #888; stroke-width: 1; }\n"
          "  polyline { fill: none; stroke-width: 2; }\n"
          "  .heap { stroke: #1f77b4; stroke-width: 2; }\n"
          "  .live { stroke: #2ca02c; stroke-width: 2; }\n"
          "  .external { stroke: #ff7f0e; stroke-width: 2; }\n"
          "  .pause, .key-pause { stroke: #d62728; stroke-width: 2; }\n"
          "</style>\n"
          "<rect class=\"background\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
          width, height, width, height, width, height);
  char gc_time[32], max_pause[32];
  format_ns(gc_time, sizeof gc_time, ps.total_ns);
  format_ns(max_pause, sizeof max_pause, ps.max_ns);
  fprintf(out, "<text class=\"title\" x=\"%d\" y=\"24\">", MARGIN_LEFT);
  svg_text_escaped(out, trace_name);
  fprintf(out, ": %zu collections, %s in GC, max pause %s</text>\n", t->n, gc_time, max_pause);
  plot_axes(out, &f);
  plot_series(out, &f, t, offsetof(struct trace_gc, heap_bytes), t->exit_heap_bytes, "heap");
  plot_series(out, &f, t, offsetof(struct trace_gc, live_bytes), t->exit_live_bytes, "live");
  plot_series(out, &f, t, offsetof(struct trace_gc, external_bytes), t->exit_external_bytes,
              "external");
  plot_pauses(out, &f, t);
  plot_legend(out, &f);
  fprintf(out, "</svg>\n");
  return !ferror(out);
}

static bool parse_side(const char *opt, const char *arg, int *out) {
  char *end;
  long v = arg ? strtol(arg, &end, 10) : 0;
  if (!arg || *end || v < PLOT_MIN_SIDE || v > PLOT_MAX_SIDE) {
    fprintf(stderr, "bibop: %s needs a size in pixels from %d to %d\n", opt, PLOT_MIN_SIDE,
            PLOT_MAX_SIDE);
    return false;
  }
  *out = (int)v;
  return true;
}

int command_plot(int argc, char **argv) {
  const char *trace_path = NULL, *svg_path = NULL;
  int width = PLOT_DEFAULT_WIDTH, height = PLOT_DEFAULT_HEIGHT;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) {
      if (!next) {
        fprintf(stderr, "bibop: %s needs a file name\n", arg);
        return TOOL_EXIT_USAGE;
      }
      svg_path = argv[++i];
    } else if (strcmp(arg, "--width") == 0) {
      if (!parse_side(arg, next, &width)) return TOOL_EXIT_USAGE;
      i++;
    } else if (strcmp(arg, "--height") == 0) {
      if (!parse_side(arg, next, &height)) return TOOL_EXIT_USAGE;
      i++;
    } else if (arg[0] == '-' && arg[1]) {
      fprintf(stderr, "bibop: unknown plot option %s\n", arg);
      return TOOL_EXIT_USAGE;
    } else if (!trace_path) {
      trace_path = arg;
    } else {
      fprintf(stderr, "bibop: plot takes one trace (got %s and %s)\n", trace_path, arg);
      return TOOL_EXIT_USAGE;
    }
  }
  if (!trace_path || !svg_path) {
    fprintf(stderr, "usage: bibop plot TRACE -o FILE.svg [--width W] [--height H]\n");
    return TOOL_EXIT_USAGE;
  }
  struct trace t;
  char err[4200];
  if (!trace_read(trace_path, &t, err, sizeof err)) {
    fprintf(stderr, "bibop: %s\n", err);
    return 1;
  }
  if (t.n == 0) {
    fprintf(stderr, "bibop: %s holds no collections: nothing to plot\n", trace_path);
    trace_release(&t);
    return 1;
  }
  FILE *out = strcmp(svg_path, "-") == 0 ? stdout : fopen(svg_path, "w");
  if (!out) {
    fprintf(stderr, "bibop: cannot write %s: %s\n", svg_path, strerror(errno));
    trace_release(&t);
    return 1;
  }
  const char *name = strrchr(trace_path, '/');
  bool ok = plot_write(out, name ? name + 1 : trace_path, &t, width, height);
  if (out != stdout) ok = fclose(out) == 0 && ok;
  if (!ok) fprintf(stderr, "bibop: error writing %s\n", svg_path);
  trace_release(&t);
  return ok ? 0 : 1;
}
