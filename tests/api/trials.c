/* trials.c: two choices are tried on the machine at hand (trial.c):
 * below the prefetching gate (a 16 MiB heap) whether the marker prefetches
 * (mark.c), below the helpers' threshold (8 MiB) whether helper markers
 * join (markers.c). The two ways alternate over 8 full collections, again
 * after every 256 such collections, and each verdict is a line of the
 * GC_PRINT_STATS log; one trial at a time tries an arm in a collection.
 * BIBOP_PREFETCH_MIN_HEAP fixes the gate, BIBOP_HELPERS_MIN_HEAP the
 * threshold: then that choice is not tried. A child (GC_MARKERS=2) keeps
 * a 2 MiB list (a 4 MiB heap) alive through 300 explicit collections with
 * GC_PRINT_STATS=1, its log on a pipe; the parent counts the verdicts of
 * the choice named: two without its variable (a trial at the start and
 * one about 256 collections later), none with it. The list must come
 * through intact either way.
 * Usage: api_trials prefetching|helpers trial|fixed. */
#define _GNU_SOURCE
#include <gc.h>
#include <stdbool.h>
#include "child_log.h"

#define COLLECTIONS 300
#define CELLS (2 << 20 >> 4)   /* 16-byte cells (32 with bdwgc's extra byte): a 4 MiB heap */

struct cell { struct cell *next; uintptr_t n; };

static void child(void) {
  GC_INIT();
  struct cell *list = NULL;
  for (uintptr_t i = 0; i < CELLS; i++) {
    struct cell *c = GC_MALLOC(sizeof *c);
    CHECK(c != NULL);
    c->next = list;
    c->n = i;
    list = c;
  }
  for (int k = 0; k < COLLECTIONS; k++) GC_gcollect();
  uintptr_t expect = CELLS;
  for (struct cell *c = list; c; c = c->next)
    CHECKF(c->n == --expect, "cell %lu lost", (unsigned long)expect);
  CHECKF(expect == 0, "the list lost %lu cells", (unsigned long)expect);
  exit(0);
}

int main(int argc, char **argv) {
  CHECKF(argc == 3 && (!strcmp(argv[1], "prefetching") || !strcmp(argv[1], "helpers")) &&
             (!strcmp(argv[2], "trial") || !strcmp(argv[2], "fixed")),
         "usage: %s prefetching|helpers trial|fixed", argv[0]);
  bool helpers = !strcmp(argv[1], "helpers");
  bool fixed = !strcmp(argv[2], "fixed");
  const char *variable = helpers ? "BIBOP_HELPERS_MIN_HEAP" : "BIBOP_PREFETCH_MIN_HEAP";
  const char *verdict = helpers ? "bibop: helpers below 8192 KiB: " :
                                  "bibop: prefetching below 16384 KiB: ";
  pid_t pid;
  FILE *log = child_log_fork(&pid);
  if (!log) {
    setenv("GC_PRINT_STATS", "1", 1);
    setenv("GC_MARKERS", "2", 1);
    unsetenv("BIBOP_PREFETCH_MIN_HEAP");
    unsetenv("BIBOP_HELPERS_MIN_HEAP");
    if (fixed) setenv(variable, helpers ? "8M" : "16M", 1);
    child();
  }
  char line[512];
  unsigned verdicts = 0, collections = 0;
  while (fgets(line, sizeof line, log)) {
    if (strstr(line, verdict))
      verdicts++;
    else if (strstr(line, "bibop: GC #"))
      collections++;
    else if (strstr(line, "FAILED"))
      fputs(line, stderr);
  }
  int status;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed (status %d)", status);
  printf("%s %s: %u collections logged, %u verdicts\n", argv[1], argv[2], collections, verdicts);
  CHECKF(collections >= COLLECTIONS, "only %u collections in the log", collections);
  CHECKF(verdicts == (fixed ? 0u : 2u), "%u verdicts on %s with %s %s", verdicts, argv[1],
         variable, fixed ? "set" : "unset");
  printf("ok\n");
  return 0;
}
