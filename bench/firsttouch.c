/* firsttouch.c: what fresh memory costs at its first touch on this host,
 * the figure behind the arena's choice of huge pages (src/arena.c,
 * huge_pages_cheaper). Per 2 MiB of fresh anonymous memory, over a range
 * of MiB bytes mapped anew each round:
 *   - small: small pages (MADV_NOHUGEPAGE), one store per page;
 *   - populated: the same after MADV_POPULATE_WRITE of each 2 MiB (the
 *     call and the stores; Linux >= 5.14);
 *   - huge: MADV_HUGEPAGE, one store per page (2 MiB aligned), with the
 *     range's AnonHugePages afterwards, to show the kernel gave huge pages;
 *   - probe: os_first_touch_ns(false) and (true), the arena's one-time
 *     estimate on scratch memory (64 small pages scaled; one huge page).
 * Prints a Markdown table: median, min and max of the rounds, in ms per
 * 2 MiB. usage: firsttouch [-m MiB (64)] [-r rounds (5)]. Links libbibop
 * statically for os_first_touch_ns. */
#define _GNU_SOURCE
#include "internal.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23   /* Linux 5.14 UAPI */
#endif

#define CHUNK ((size_t)2 << 20)
#define MAX_ROUNDS 51

enum memory { SMALL, POPULATED, HUGE, PROBE_SMALL, PROBE_HUGE, KINDS };
static const char *names[KINDS] = { "small pages", "small pages, populated first",
                                    "huge pages", "probe: small pages", "probe: a huge page" };

/* The AnonHugePages (KiB) of the mapping that starts at p. */
static long anon_huge_kib(const void *p) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  bool inside = false;
  long kib = -1;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
      inside = lo == (uintptr_t)p;
      continue;
    }
    if (inside && sscanf(line, "AnonHugePages: %ld kB", &kib) == 1) break;
  }
  fclose(f);
  return kib;
}

/* ns per 2 MiB of touching a fresh bytes-long range of the given kind. */
static double touch_range(enum memory k, size_t bytes, long *huge_kib) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  char *raw = mmap(NULL, bytes + CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) { perror("mmap"); exit(1); }
  char *p = (char *)(((uintptr_t)raw + CHUNK - 1) & ~(uintptr_t)(CHUNK - 1));
  (void)madvise(p, bytes, k == HUGE ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  uint64_t t0 = os_now_ns();
  if (k == POPULATED)
    for (size_t o = 0; o < bytes; o += CHUNK)
      if (madvise(p + o, CHUNK, MADV_POPULATE_WRITE) != 0) { perror("MADV_POPULATE_WRITE"); exit(1); }
  for (size_t o = 0; o < bytes; o += page) ((volatile char *)p)[o] = 1;
  double ns = (double)(os_now_ns() - t0) * (double)CHUNK / (double)bytes;
  if (huge_kib) *huge_kib = anon_huge_kib(p);
  munmap(raw, bytes + CHUNK);
  return ns;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  size_t mib = 64;
  int rounds = 5, c;
  while ((c = getopt(argc, argv, "m:r:")) != -1) {
    if (c == 'm') mib = strtoul(optarg, NULL, 10);
    else if (c == 'r') rounds = atoi(optarg);
    else { fprintf(stderr, "usage: firsttouch [-m MiB] [-r rounds]\n"); return 2; }
  }
  if (mib < 2 || rounds < 1 || rounds > MAX_ROUNDS) { fprintf(stderr, "firsttouch: bad -m or -r\n"); return 2; }
  size_t bytes = mib << 20 & ~(CHUNK - 1);
  static double ms[KINDS][MAX_ROUNDS];
  long huge_kib = 0;
  for (int r = 0; r < rounds; r++) {
    ms[SMALL][r] = touch_range(SMALL, bytes, NULL) / 1e6;
    ms[POPULATED][r] = touch_range(POPULATED, bytes, NULL) / 1e6;
    ms[HUGE][r] = touch_range(HUGE, bytes, &huge_kib) / 1e6;
    ms[PROBE_SMALL][r] = (double)os_first_touch_ns(false) / 1e6;
    ms[PROBE_HUGE][r] = (double)os_first_touch_ns(true) / 1e6;
  }
  printf("First touch of fresh memory, ms per 2 MiB (%zu MiB ranges, %d rounds; "
         "AnonHugePages of the last huge range: %ld of %zu KiB; probe 0: no huge page given)\n\n",
         bytes >> 20, rounds, huge_kib, bytes >> 10);
  printf("| memory | median | min | max |\n|---|--:|--:|--:|\n");
  for (int k = 0; k < KINDS; k++) {
    qsort(ms[k], (size_t)rounds, sizeof ms[k][0], by_value);
    printf("| %s | %.3f | %.3f | %.3f |\n", names[k], ms[k][rounds / 2], ms[k][0], ms[k][rounds - 1]);
  }
  return 0;
}
