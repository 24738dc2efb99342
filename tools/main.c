/*
 * main.c: the `bibop` command — dispatch to a subcommand, and the settings
 * options shared by `run` and `compare`, which become the environment
 * variables the library reads (the user never needs their names).
 */
#include "tool.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An option that sets one environment variable of the library. */
struct setting_option {
  const char *option;
  const char *variable;
  const char *fixed_value;   /* NULL: the option takes an argument */
  enum { VALUE_SIZE, VALUE_COUNT, VALUE_NONE } kind;
  const char *help;
};

static const struct setting_option setting_options[] = {
  { "--initial-heap", "GC_INITIAL_HEAP_SIZE", NULL, VALUE_SIZE,
    "SIZE  heap budget at start (bytes, or with K/M/G); default 64K" },
  { "--max-heap", "GC_MAXIMUM_HEAP_SIZE", NULL, VALUE_SIZE,
    "SIZE      heap limit; allocation fails (out of memory) beyond it; default none" },
  { "--free-space-divisor", "GC_FREE_SPACE_DIVISOR", NULL, VALUE_COUNT,
    "N  collect after allocating live/N bytes; bigger = smaller heap, more collections; default 3" },
  { "--markers", "GC_MARKERS", NULL, VALUE_COUNT,
    "N          marking threads (1 = no parallel marking); default one per core, at most 16" },
  { "--unmap-threshold", "GC_UNMAP_THRESHOLD", NULL, VALUE_COUNT,
    "N  collections a free 2 MiB chunk waits before it goes back to the OS (0 = never); default 6" },
  { "--no-thp", "BIBOP_THP", "0", VALUE_NONE,
    "             no Transparent Huge Pages for the heap" },
  { "--no-gc", "GC_DONT_GC", "1", VALUE_NONE,
    "              never collect (the heap only grows)" },
  { "--print-stats", "GC_PRINT_STATS", "1", VALUE_NONE,
    "         also print one line per collection on stderr" },
};
#define SETTING_OPTION_COUNT (sizeof setting_options / sizeof setting_options[0])

void settings_usage(void) {
  fprintf(stderr, "settings (run and compare):\n");
  for (size_t k = 0; k < SETTING_OPTION_COUNT; k++)
    fprintf(stderr, "  %s %s\n", setting_options[k].option, setting_options[k].help);
}

static bool valid_value(const char *value, int kind) {
  const char *p = value;
  if (!isdigit((unsigned char)*p)) return false;
  while (isdigit((unsigned char)*p)) p++;
  if (kind == VALUE_SIZE && *p && strchr("kKmMgG", *p)) p++;
  return *p == '\0';
}

static bool settings_add(struct settings *s, const char *name, const char *value) {
  for (int k = 0; k < s->count; k++)
    if (strcmp(s->names[k], name) == 0) {
      s->values[k] = value;
      return true;
    }
  if (s->count == SETTINGS_MAX) return false;
  s->names[s->count] = name;
  s->values[s->count++] = value;
  return true;
}

/* "--opt=value" or "--opt value". */
static const char *option_value(const char *arg, const char *option, int argc, char **argv,
                                int *i, bool *ok) {
  size_t len = strlen(option);
  *ok = true;
  if (arg[len] == '=') return arg + len + 1;
  if (*i + 1 < argc) return argv[++*i];
  *ok = false;
  return NULL;
}

bool settings_parse(int argc, char **argv, int *i, struct settings *s,
                    settings_extra_fn *extra, void *ctx) {
  memset(s, 0, sizeof *s);
  for (; *i < argc; ++*i) {
    const char *arg = argv[*i];
    if (strcmp(arg, "--") == 0) {
      ++*i;
      break;
    }
    if (arg[0] != '-') break;
    bool handled = false;
    for (size_t k = 0; k < SETTING_OPTION_COUNT && !handled; k++) {
      const struct setting_option *o = &setting_options[k];
      size_t len = strlen(o->option);
      if (strncmp(arg, o->option, len) != 0 || (arg[len] && arg[len] != '=')) continue;
      handled = true;
      const char *value = o->fixed_value;
      if (o->kind != VALUE_NONE) {
        bool ok;
        value = option_value(arg, o->option, argc, argv, i, &ok);
        if (!ok) {
          fprintf(stderr, "bibop: %s needs a value\n", o->option);
          return false;
        }
        if (!valid_value(value, o->kind)) {
          fprintf(stderr, "bibop: %s %s: expected %s\n", o->option, value,
                  o->kind == VALUE_SIZE ? "a size such as 65536, 512K, 64M or 2G"
                                        : "a non-negative integer");
          return false;
        }
      }
      settings_add(s, o->variable, value);
    }
    if (!handled && strncmp(arg, "--trace", 7) == 0 && (arg[7] == '\0' || arg[7] == '=')) {
      bool ok;
      s->trace_path = option_value(arg, "--trace", argc, argv, i, &ok);
      if (!ok) {
        fprintf(stderr, "bibop: --trace needs a file name\n");
        return false;
      }
      handled = true;
    }
    if (!handled && extra) {
      int used = extra(arg, *i + 1 < argc ? argv[*i + 1] : NULL, ctx);
      if (used < 0) return false;
      if (used > 0) {
        *i += used - 1;
        handled = true;
      }
    }
    if (!handled) {
      fprintf(stderr, "bibop: unknown option %s (see bibop --help)\n", arg);
      return false;
    }
  }
  if (*i >= argc) {
    fprintf(stderr, "bibop: no program given (bibop %s [options] -- PROGRAM ARGS...)\n",
            argv[0]);
    return false;
  }
  return true;
}

static void usage(FILE *out) {
  fprintf(out,
          "usage:\n"
          "  bibop run [settings] [--trace FILE] -- PROGRAM ARGS...\n"
          "      run a libgc program on bibop and print a summary of its collections\n"
          "  bibop compare [-n RUNS] [--trace-dir DIR] [settings] -- PROGRAM ARGS...\n"
          "      run it on the system's libgc and on bibop, alternating, and compare\n"
          "  bibop plot TRACE -o FILE.svg [--width W] [--height H]\n"
          "      draw a trace: heap, live and external memory, and pauses over time\n");
  if (out == stderr) settings_usage();
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return TOOL_EXIT_USAGE;
  }
  const char *command = argv[1];
  if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 ||
      strcmp(command, "help") == 0) {
    usage(stdout);
    printf("settings (run and compare):\n");
    for (size_t k = 0; k < SETTING_OPTION_COUNT; k++)
      printf("  %s %s\n", setting_options[k].option, setting_options[k].help);
    printf("See docs/GUIDE.md.\n");
    return 0;
  }
  if (strcmp(command, "run") == 0) return command_run(argc - 1, argv + 1);
  if (strcmp(command, "compare") == 0) return command_compare(argc - 1, argv + 1);
  if (strcmp(command, "plot") == 0) return command_plot(argc - 1, argv + 1);
  fprintf(stderr, "bibop: unknown command '%s'\n", command);
  usage(stderr);
  return TOOL_EXIT_USAGE;
}
