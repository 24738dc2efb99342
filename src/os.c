/*
 * os.c: everything bibop asks of the operating system — address-space
 * reservation, commit/decommit, Transparent Huge Pages, clocks, the main
 * thread's stack base, the environment, how many CPUs the process may use,
 * and zeroing a thread's dead stack. No other file calls mmap or getenv.
 * Knows nothing of heaps or objects.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

/* Map bytes PROT_NONE at an address aligned to align (a power of two, at
   least a page). Tries the hint first so that regions stay contiguous. */
static void *map_aligned(size_t bytes, size_t align, void *hint, int prot, int extra_flags) {
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | extra_flags;
  if (hint) {
    void *p = mmap(hint, bytes, prot, flags | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == hint) return p;
    if (p != MAP_FAILED) munmap(p, bytes);
  }
  size_t over = bytes + align;
  if (over < bytes) return NULL;
  char *raw = mmap(NULL, over, prot, flags, -1, 0);
  if (raw == MAP_FAILED) return NULL;
  uintptr_t start = ((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1);
  size_t head = start - (uintptr_t)raw;
  size_t tail = over - head - bytes;
  if (head) munmap(raw, head);
  if (tail) munmap((char *)start + bytes, tail);
  return (void *)start;
}

void *os_reserve(size_t bytes, size_t align, void *hint) {
  return map_aligned(bytes, align, hint, PROT_NONE, 0);
}

/* Read-write memory whose pages cost nothing until touched. */
void *os_map_noreserve(size_t bytes, size_t align) {
  return map_aligned(bytes, align, NULL, PROT_READ | PROT_WRITE, 0);
}

/* huge: ask for Transparent Huge Pages; otherwise refuse them explicitly,
   since a system in THP "always" mode would use them anyway (advice only:
   either may be ignored). */
bool os_commit(void *p, size_t bytes, bool huge) {
  if (mprotect(p, bytes, PROT_READ | PROT_WRITE) != 0) return false;
  (void)madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  return true;
}

/* Ask for huge pages on committed memory (khugepaged may then collapse
   what is already there); advice only. */
void os_advise_huge(void *p, size_t bytes) {
  (void)madvise(p, bytes, MADV_HUGEPAGE);
}

/* What the first touch of 2 MiB of fresh anonymous memory costs here, in
   ns: backed by small pages (FIRST_TOUCH_SMALL_PAGES touched, scaled to
   2 MiB) or by one huge page (one store; a second store 1 MiB further tells
   whether the page was huge: if it faults too, the kernel gave small pages
   and the result is 0). Scratch memory, unmapped before returning; 0 if the
   probe cannot run. The two differ by host: a KVM guest pays ~1 us a small
   page, a host with shadow page tables ~11 us, and a fresh huge page costs
   from 0.1 ms (backed on the host) to 10 ms (faulted in on the host). */
enum { FIRST_TOUCH_SMALL_PAGES = 64 };

uint64_t os_first_touch_ns(bool huge) {
  const size_t chunk = (size_t)2 << 20, page = (size_t)sysconf(_SC_PAGESIZE);
  size_t bytes = huge ? chunk : FIRST_TOUCH_SMALL_PAGES * page;
  volatile char *p = map_aligned(bytes, huge ? chunk : page, NULL, PROT_READ | PROT_WRITE, 0);
  if (!p) return 0;
  (void)madvise((void *)p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  uint64_t t0 = os_now_ns(), ns;
  if (huge) {
    p[0] = 1;
    uint64_t t1 = os_now_ns();
    p[chunk / 2] = 1;   /* no fault if the page is huge */
    uint64_t t2 = os_now_ns();
    ns = t2 - t1 < (t1 - t0) / 64 ? t1 - t0 : 0;
  } else {
    for (size_t i = 0; i < bytes; i += page) p[i] = 1;
    ns = (os_now_ns() - t0) * (chunk / bytes);
  }
  munmap((void *)p, bytes);
  return ns;
}

/* The start of file path's text, NUL-terminated, in text[size]. */
static bool read_text(const char *path, char *text, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = read(fd, text, size - 1);
  close(fd);
  if (n <= 0) return false;
  text[n] = '\0';
  return true;
}

/* The largest single commit the system could back. bibop reserves its
   address space MAP_NORESERVE, so the kernel's overcommit heuristic never
   sees its requests; stock bdwgc maps its heap without that flag, and under
   the default policy (/proc/sys/vm/overcommit_memory = 0) the kernel refuses
   one mapping larger than RAM + swap. This applies the same rule. Policy 1
   (always overcommit) refuses nothing; under policy 2 (strict) the kernel
   charges the commit itself (MAP_NORESERVE is ignored there), so mprotect
   fails where stock's mmap would. */
size_t os_commit_limit(void) {
  char mode[8];
  if (read_text("/proc/sys/vm/overcommit_memory", mode, sizeof mode) && mode[0] != '0')
    return SIZE_MAX;
  struct sysinfo si;
  if (sysinfo(&si) != 0) return SIZE_MAX;
  unsigned long long unit = si.mem_unit ? si.mem_unit : 1;
  unsigned long long pages = (unsigned long long)si.totalram + si.totalswap;
  if (pages > SIZE_MAX / unit) return SIZE_MAX;
  return (size_t)(pages * unit);
}

/* Give the pages back and make the range inaccessible again. */
void os_decommit(void *p, size_t bytes) {
  (void)madvise(p, bytes, MADV_DONTNEED);
  (void)mprotect(p, bytes, PROT_NONE);
}

void os_discard(void *p, size_t bytes) {
  (void)madvise(p, bytes, MADV_DONTNEED);
}

/* MADV_POPULATE_WRITE (Linux 5.14; bookworm's headers have it, spelled
   here for older ones): the pages of the range are faulted in writable by
   one call. Off for good after a kernel refuses it. */
#define ADVICE_POPULATE_WRITE 23
static bool populate_refused;

void os_populate(void *p, size_t bytes) {
  if (populate_refused) return;
  if (madvise(p, bytes, ADVICE_POPULATE_WRITE) != 0 && errno == EINVAL) populate_refused = true;
}

void os_unmap(void *p, size_t bytes) {
  munmap(p, bytes);
}

#define CGROUP_PATH_MAX 4096

/* The decimal number at *s (after blanks), *s moved past it; false if there
   is none. strtol, not sscanf: scanf's code is 64 KiB of libc's text that
   most programs never run, mapped for this one call at start-up. */
static bool next_long(const char **s, long *v) {
  char *end;
  long x = strtol(*s, &end, 10);
  if (end == *s) return false;
  *v = x;
  *s = end;
  return true;
}

/* The CPU quota, in whole CPUs rounded up, of cgroup directory dir and its
   ancestors up to the hierarchy's root (dir's first root_len characters);
   0 if none has one. cgroup v2 writes "quota period" (or "max period") in
   cpu.max, v1 the two in cpu.cfs_quota_us (-1: none) and
   cpu.cfs_period_us. */
static long cgroup_cpu_quota(char *dir, size_t root_len, bool v2) {
  long best = 0;
  for (;;) {
    char path[CGROUP_PATH_MAX + 32], text[64];
    long quota = 0, period = 0;
    const char *at = text;
    if (v2) {
      snprintf(path, sizeof path, "%s/cpu.max", dir);
      if (!read_text(path, text, sizeof text) || !next_long(&at, &quota) || !next_long(&at, &period))
        quota = 0;
    } else {
      snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
      if (read_text(path, text, sizeof text) && next_long(&at, &quota) && quota > 0) {
        snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
        at = text;
        if (!read_text(path, text, sizeof text) || !next_long(&at, &period)) quota = 0;
      }
    }
    if (quota > 0 && period > 0) {
      long cpus = (quota + period - 1) / period;
      if (!best || cpus < best) best = cpus;
    }
    char *slash = strrchr(dir, '/');
    if (!slash || (size_t)(slash - dir) < root_len) return best;
    *slash = '\0';
  }
}

/* Whether a v1 line's comma-separated controllers include cpu. */
static bool names_cpu_controller(const char *controllers) {
  for (const char *p = controllers; *p;) {
    size_t len = strcspn(p, ",");
    if (len == 3 && !strncmp(p, "cpu", 3)) return true;
    p += len + (p[len] == ',');
  }
  return false;
}

/* The CPU quota of this process's cgroup (v2, or v1's cpu controller),
   from /proc/self/cgroup: lines "id:controllers:path". 0 if none. */
static long process_cpu_quota(void) {
  char text[4096];
  if (!read_text("/proc/self/cgroup", text, sizeof text)) return 0;
  bool v2_only = access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0;
  long best = 0;
  for (char *line = text, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    char *controllers = strchr(line, ':');
    char *path = controllers ? strchr(controllers + 1, ':') : NULL;
    if (!path) continue;
    *path++ = '\0';
    controllers++;
    const char *root;
    if (!*controllers && v2_only) root = "/sys/fs/cgroup";
    else if (!v2_only && names_cpu_controller(controllers)) root = "/sys/fs/cgroup/cpu";
    else continue;
    char dir[CGROUP_PATH_MAX];
    snprintf(dir, sizeof dir, "%s%s", root, strcmp(path, "/") ? path : "");
    long quota = cgroup_cpu_quota(dir, strlen(root), *controllers == '\0');
    if (quota > 0 && (!best || quota < best)) best = quota;
  }
  return best;
}

/* How many CPUs this process may run on: the CPUs of its affinity mask
   (taskset, a cpuset), at most its cgroup CPU quota (a container's
   --cpus). The CPUs online overstate both: pinned to one CPU of this
   2-CPU machine, bibop started a second marker that only took turns with
   the first. */
unsigned os_cpus_usable(void) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) cpus = CPU_COUNT(&set);
  long quota = process_cpu_quota();
  if (quota > 0 && quota < cpus) cpus = quota;
  return cpus > 0 ? (unsigned)cpus : 1;
}

uint64_t os_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time of the whole process (every thread), not a vDSO clock: a
   system call, ~0.5 us. */
uint64_t os_process_cpu_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* glibc's record of where the main thread's stack starts (its highest
   address, as stacks grow down here). */
extern void *__libc_stack_end;

void *os_main_stack_base(void) {
  uintptr_t base = (uintptr_t)__libc_stack_end;
  /* The words above __libc_stack_end (argc, argv, environment) may also
     hold pointers the program stored; scan up to the end of that page. */
  long page = sysconf(_SC_PAGESIZE);
  if (page <= 0) page = 4096;
  base = (base + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
  return (void *)base;
}

bool os_env_set(const char *name) {
  return getenv(name) != NULL;
}

bool os_env_long(const char *name, long *out) {
  const char *s = getenv(name);
  if (!s || !*s) return false;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s) return false;
  *out = v;
  return true;
}

/* A byte count with an optional K, M or G suffix, as bdwgc accepts. */
bool os_env_size(const char *name, size_t *out) {
  const char *s = getenv(name);
  if (!s || !*s) return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s) return false;
  unsigned shift = 0;
  switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
  }
  if (*end != '\0') return false;
  if (shift && v > (~0ull >> shift)) return false;
  *out = (size_t)(v << shift);
  return true;
}

/* Zero OS_DEAD_STACK_BYTES of the calling thread's stack just below the
   caller's frame: the frames of whatever ran there last (returned, dead)
   hold stale words, and the frames laid there next leave some slots
   unwritten (padding, unused spills), which a conservative scan of the
   stack would read. The array lies in this very frame, right below the
   caller's: no frame between them stays unzeroed, even unoptimised (a
   wrapper frame between, in the UBSan build, left api.stale_stack's
   stale copies in place). */
__attribute__((noinline)) void os_zero_stack_below(void) {
  volatile char dead[OS_DEAD_STACK_BYTES];
  memset((char *)dead, 0, sizeof dead);
  __asm__ volatile("" : : "r"(dead) : "memory");   /* the stores must happen */
}
