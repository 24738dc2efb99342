/* generational_budget.c: generational mode sizes the heap as full
 * collections do (generations.c, "the heap budget after minor
 * collections"). A steady program: a table of records, each replaced after
 * living through several collections (so it dies old), and short-lived
 * garbage between. Minor collections cannot free the old records that
 * died, and a budget sized from what they mark grows for nothing. The
 * program runs itself twice, with BIBOP_GENERATIONAL=0 and =1, and
 * compares the largest heap size each saw (GC_get_heap_size after every
 * collection): generational mode may use at most an eighth more, plus a
 * 2 MiB chunk. bibop only (BIBOP_GENERATIONAL).
 * Usage: api_generational_budget (the parent); api_generational_budget
 * child (one run: prints its largest heap size in bytes). */
#define _GNU_SOURCE
#include <gc.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "check.h"

#define SLOTS 32768              /* 256-byte records: 8 MiB live */
#define RECORD_WORDS 32
#define REPLACED_PER_ROUND 64    /* a record lives ~SLOTS / 64 rounds */
#define GARBAGE_PER_ROUND 64     /* 48-byte objects dead at once */
#define COLLECTIONS 400

static void **table;

static void *new_record(uint64_t id) {
  uint64_t *r = GC_MALLOC(RECORD_WORDS * sizeof(uint64_t));
  CHECK(r != NULL);
  r[1] = id;
  r[2] = id * 0x9e3779b97f4a7c15ULL;
  return r;
}

static int child(void) {
  GC_INIT();
  table = GC_MALLOC(SLOTS * sizeof *table);
  CHECK(table != NULL);
  for (uint64_t i = 0; i < SLOTS; i++) table[i] = new_record(i);
  size_t largest = 0;
  unsigned long first = GC_get_gc_no(), last = first;
  uint64_t next = 0, id = SLOTS;
  void *volatile sink;
  while (GC_get_gc_no() - first < COLLECTIONS) {
    for (int k = 0; k < REPLACED_PER_ROUND; k++) {
      table[next] = new_record(id++);
      next = (next + 7919) % SLOTS;   /* scattered over the table's blocks */
    }
    for (int k = 0; k < GARBAGE_PER_ROUND; k++) sink = GC_MALLOC(48);
    (void)sink;
    if (GC_get_gc_no() != last) {
      last = GC_get_gc_no();
      if (GC_get_heap_size() > largest) largest = GC_get_heap_size();
    }
  }
  for (uint64_t i = 0; i < SLOTS; i++) {
    uint64_t *r = table[i];
    CHECK(r[2] == r[1] * 0x9e3779b97f4a7c15ULL);
  }
  printf("%zu\n", largest);
  return 0;
}

/* One run of this program as a child with BIBOP_GENERATIONAL=mode. */
static size_t run(const char *self, const char *mode) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "BIBOP_GENERATIONAL=%s BIBOP_GENERATIONAL_FALLBACK=0 '%s' child", mode, self);
  FILE *p = popen(cmd, "r");
  CHECK(p != NULL);
  unsigned long long largest = 0;
  CHECKF(fscanf(p, "%llu", &largest) == 1, "no answer from the %s run\n", mode);
  int status = pclose(p);
  CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the %s run failed\n", mode);
  return (size_t)largest;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "child")) return child();
  size_t full = run(argv[0], "0"), generational = run(argv[0], "1");
  printf("largest heap: full collections %zu KiB, generational %zu KiB\n", full >> 10,
         generational >> 10);
  CHECKF(generational <= full + full / 8 + ((size_t)2 << 20),
         "generational mode's heap %zu KiB against %zu KiB with full collections\n",
         generational >> 10, full >> 10);
  return 0;
}
