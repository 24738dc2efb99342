/* finalization_stats.c: GC_PRINT_STATS reports, after each collection, the
 * finalizers and disappearing links the tables hold and the entries they
 * have room for (bibop's own line, "bibop: finalization: ..."). A child
 * with GC_PRINT_STATS=1 and its stderr on a pipe registers 10 finalizers,
 * 100 short links and 5 long links on objects it keeps, collects, then
 * drops 50 of the short-linked objects and collects again; the parent
 * reads the two lines: the counts at the first collection exactly, at the
 * second at least the 50 kept and at most a few of the dropped (a stale
 * word may keep one), and room for at least as many as each table holds.
 */
#define _GNU_SOURCE
#include <gc.h>

#include <stdbool.h>
#include "child_log.h"

#define FINALIZERS 10
#define SHORT_LINKS 100
#define LONG_LINKS 5
#define KEPT 50
#define STALE_SLACK 5

static void **objects;   /* pointerful: keeps the objects */
static void **cells;     /* pointer-free: the links' cells */

static void ignore(void *obj, void *cd) { (void)obj, (void)cd; }

static NOINLINE void register_all(void) {
  for (int i = 0; i < SHORT_LINKS; i++) {
    objects[i] = GC_MALLOC(32);
    CHECK(objects[i] != NULL);
    cells[i] = objects[i];
    CHECK(GC_GENERAL_REGISTER_DISAPPEARING_LINK(&cells[i], objects[i]) == GC_SUCCESS);
  }
  for (int i = 0; i < FINALIZERS; i++) GC_REGISTER_FINALIZER(objects[i], ignore, NULL, NULL, NULL);
  for (int i = 0; i < LONG_LINKS; i++) {
    cells[SHORT_LINKS + i] = objects[i];
    CHECK(GC_register_long_link(&cells[SHORT_LINKS + i], objects[i]) == GC_SUCCESS);
  }
}

static NOINLINE void drop(void) {
  for (int i = KEPT; i < SHORT_LINKS; i++) objects[i] = NULL;
}

static void child(void) {
  GC_INIT();
  objects = GC_MALLOC(SHORT_LINKS * sizeof *objects);
  cells = GC_MALLOC_ATOMIC((SHORT_LINKS + LONG_LINKS) * sizeof *cells);
  CHECK(objects != NULL && cells != NULL);
  register_all();
  GC_gcollect();
  fputs("test: dropped\n", stderr);
  drop();
  clear_stack();
  GC_gcollect();
  exit(0);
}

struct counts { unsigned long fin, fin_room, queued, shorts, short_room, longs, long_room; };

static bool parse(const char *line, struct counts *c) {
  return sscanf(line,
                "bibop: finalization: %lu finalizers (room for %lu), %lu queued; "
                "short links %lu (room for %lu), long links %lu (room for %lu)",
                &c->fin, &c->fin_room, &c->queued, &c->shorts, &c->short_room, &c->longs,
                &c->long_room) == 7;
}

int main(void) {
  pid_t pid;
  FILE *log = child_log_fork(&pid);
  if (!log) {
    setenv("GC_PRINT_STATS", "1", 1);
    unsetenv("GC_LOG_FILE");
    child();
  }
  char line[512];
  struct counts before = { 0 }, after = { 0 }, c;
  bool dropped = false, seen_before = false, seen_after = false;
  while (fgets(line, sizeof line, log)) {
    if (strstr(line, "test: dropped")) dropped = true;
    else if (strstr(line, "FAILED")) fputs(line, stderr);
    else if (!strncmp(line, "bibop: finalization:", 20)) {
      CHECKF(parse(line, &c), "cannot read the line: %s", line);
      if (dropped) after = c, seen_after = true;
      else before = c, seen_before = true;
    }
  }
  int status;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed (status %d)", status);
  CHECKF(seen_before && seen_after, "a finalization line is missing (%d, %d)", seen_before,
         seen_after);
  printf("finalization_stats: before %lu finalizers, %lu short links, %lu long; after %lu short\n",
         before.fin, before.shorts, before.longs, after.shorts);
  CHECKF(before.fin == FINALIZERS && before.queued == 0, "%lu finalizers, %lu queued", before.fin,
         before.queued);
  CHECKF(before.shorts == SHORT_LINKS, "%lu short links", before.shorts);
  CHECKF(before.longs == LONG_LINKS, "%lu long links", before.longs);
  CHECKF(after.shorts >= KEPT && after.shorts <= KEPT + STALE_SLACK, "%lu short links after the drop",
         after.shorts);
  CHECKF(before.fin_room >= before.fin && before.short_room >= before.shorts &&
             before.long_room >= before.longs && after.short_room >= after.shorts,
         "room below the count: %lu/%lu %lu/%lu %lu/%lu", before.fin, before.fin_room,
         before.shorts, before.short_room, before.longs, before.long_room);
  printf("ok\n");
  return 0;
}
