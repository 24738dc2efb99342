/* unit_hugepages.c: the arena's huge-page advice (arena.c,
 * commit_with_huge_pages). A small heap is committed with small pages
 * (MADV_NOHUGEPAGE: VmFlags "nh" in /proc/self/smaps), so it is not
 * resident by whole 2 MiB pages; once the committed heap reaches
 * BIBOP_THP_MIN_HEAP (set to 32 MiB by its CTest entry; 1 GiB by default) every committed chunk, the first
 * ones included, is advised MADV_HUGEPAGE ("hg"), and stays so when the
 * heap shrinks. The advice is what is checked, not the backing, which
 * depends on the kernel's free memory. Argument "from_start"
 * (BIBOP_THP_MIN_HEAP=0): huge pages from the first chunk; "off"
 * (BIBOP_THP=0): never; "probed" (no BIBOP_THP_MIN_HEAP): from 32 MiB if
 * the arena's probe timed a fresh huge page cheaper than 2 MiB of small
 * pages, else not before 1 GiB. */
#include "internal.h"
#include "unit_check.h"

#include <stdio.h>
#include <string.h>

enum advice { ADVICE_NONE, ADVICE_SMALL, ADVICE_HUGE, ADVICE_UNKNOWN };

/* The THP advice of the mapping that holds addr, from its VmFlags. */
static enum advice advice_at(const void *addr) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return ADVICE_UNKNOWN;
  char line[512];
  bool inside = false;
  enum advice found = ADVICE_UNKNOWN;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
      inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
      continue;
    }
    if (inside && strncmp(line, "VmFlags:", 8) == 0) {
      found = strstr(line, " hg") ? ADVICE_HUGE : strstr(line, " nh") ? ADVICE_SMALL : ADVICE_NONE;
      break;
    }
  }
  fclose(f);
  return found;
}

static const char *advice_name(enum advice a) {
  static const char *names[] = { "none", "small pages (nh)", "huge pages (hg)", "unknown" };
  return names[a];
}

#define BIG_OBJECTS 40
#define BIG_BYTES ((size_t)1 << 20)

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "default";
  bool from_start = strcmp(mode, "from_start") == 0, off = strcmp(mode, "off") == 0;
  bool probed = strcmp(mode, "probed") == 0;
  GC_INIT();
  char *small = GC_MALLOC(64);
  REQUIRE(small != NULL, "GC_MALLOC(64) failed");
  enum advice first = advice_at(small);
  REQUIRE(first != ADVICE_UNKNOWN, "no mapping holds %p in /proc/self/smaps", (void *)small);
  enum advice want_small = from_start ? ADVICE_HUGE : ADVICE_SMALL;
  EXPECT(first == want_small, "%s: a 64-byte heap's chunk has %s, expected %s", mode,
         advice_name(first), advice_name(want_small));

  /* 40 MiB live: past the 32 MiB threshold. */
  static void *big[BIG_OBJECTS];   /* a root */
  for (int i = 0; i < BIG_OBJECTS; i++) {
    big[i] = GC_MALLOC_ATOMIC(BIG_BYTES);
    REQUIRE(big[i] != NULL, "GC_MALLOC_ATOMIC(1 MiB) #%d failed", i);
  }
  REQUIRE(arena_committed_bytes() >= ((size_t)32 << 20), "committed only %zu bytes",
          arena_committed_bytes());
  enum advice want_big = off ? ADVICE_SMALL : ADVICE_HUGE;
  uint64_t small_ns, huge_ns;
  bool probe_ran = arena_first_touch_probe(&small_ns, &huge_ns);
  EXPECT(probe_ran == probed, "%s: the huge-page probe %s", mode, probe_ran ? "ran" : "did not run");
  if (probed) {
    printf("first touch of 2 MiB: %.3f ms in small pages, %.3f ms in a huge page (0: none given)\n",
           small_ns / 1e6, huge_ns / 1e6);
    want_big = huge_ns && huge_ns < small_ns ? ADVICE_HUGE : ADVICE_SMALL;
  }
  enum advice early = advice_at(small), late = advice_at(big[BIG_OBJECTS - 1]);
  EXPECT(early == want_big, "%s: the first chunk has %s with %zu bytes committed, expected %s",
         mode, advice_name(early), arena_committed_bytes(), advice_name(want_big));
  EXPECT(late == want_big, "%s: a chunk committed past the threshold has %s, expected %s", mode,
         advice_name(late), advice_name(want_big));

  /* The heap shrinks again: the advice stays. */
  for (int i = 0; i < BIG_OBJECTS; i++) big[i] = NULL;
  GC_gcollect();
  EXPECT(advice_at(small) == want_big, "%s: the first chunk went back to %s after the heap shrank",
         mode, advice_name(advice_at(small)));
  EXPECT(small[0] == 0, "the small object changed");
  return unit_finish("unit_hugepages");
}
