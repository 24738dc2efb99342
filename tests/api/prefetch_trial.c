/* prefetch_trial.c: below the prefetching gate (a 16 MiB heap), whether
 * the marker prefetches is tried on the machine at hand (mark.c): the two
 * ways alternate over 8 full collections, again after every 256, and each
 * verdict is a line of the GC_PRINT_STATS log. BIBOP_PREFETCH_MIN_HEAP
 * fixes the gate: then nothing is tried. A child keeps a 4 MiB list alive
 * through 300 explicit collections with GC_PRINT_STATS=1, its log on a
 * pipe; the parent counts the verdicts: two without the variable (the
 * trials at the first and the 257th collection below the gate), none with
 * it. The list must come through intact either way.
 * Usage: api_prefetch_trial trial|fixed. */
#define _GNU_SOURCE
#include <gc.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "check.h"

#define COLLECTIONS 300
#define CELLS (4 << 20 >> 4)   /* 16-byte cells: 4 MiB */

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
  CHECKF(argc == 2 && (!strcmp(argv[1], "trial") || !strcmp(argv[1], "fixed")),
         "usage: %s trial|fixed", argv[0]);
  bool fixed = !strcmp(argv[1], "fixed");
  int fds[2];
  CHECK(pipe(fds) == 0);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    CHECK(dup2(fds[1], 2) == 2);
    setenv("GC_PRINT_STATS", "1", 1);
    if (fixed) setenv("BIBOP_PREFETCH_MIN_HEAP", "16M", 1);
    else unsetenv("BIBOP_PREFETCH_MIN_HEAP");
    child();
  }
  close(fds[1]);
  FILE *log = fdopen(fds[0], "r");
  CHECK(log != NULL);
  char line[512];
  unsigned verdicts = 0, collections = 0;
  while (fgets(line, sizeof line, log)) {
    if (strstr(line, "bibop: prefetching below 16384 KiB: "))
      verdicts++;
    else if (strstr(line, "bibop: GC #"))
      collections++;
    else if (strstr(line, "FAILED"))
      fputs(line, stderr);
  }
  int status;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed (status %d)", status);
  printf("%s: %u collections logged, %u verdicts\n", argv[1], collections, verdicts);
  CHECKF(collections >= COLLECTIONS, "only %u collections in the log", collections);
  CHECKF(verdicts == (fixed ? 0u : 2u), "%u verdicts on prefetching with the gate %s", verdicts,
         fixed ? "fixed" : "tried");
  printf("ok\n");
  return 0;
}
