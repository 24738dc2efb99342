/*
 * dirty.c: virtual dirty bits for heap ranges — which pages were written
 * since the last time they were protected — for generational collection
 * (issue #17). Owns the backend chosen once at start-up and the process's
 * one userfaultfd. Backends:
 *   "uffd-wp-async": ranges registered with userfaultfd write-protect mode,
 *     asynchronous (Linux >= 6.7: the kernel resolves each write fault
 *     itself, no signal, no thread, writes by system calls included);
 *     PAGEMAP_SCAN on /proc/self/pagemap reports the written pages of a
 *     range and write-protects them again in the same walk, or only
 *     reports them (dirty_written: they stay unprotected);
 *   "none": nothing is tracked and every page is reported written.
 * Invariant: a page written after dirty_protect (or after the collection
 * that reported it) is reported by the next dirty_collect over it, and so
 * is a populated page left unprotected (dirty_unprotect); any
 * failure reports the whole range written (never clean by mistake); a
 * child of fork tracks nothing ("none") and never touches its parent's
 * tracking. What
 * this file does not know: heaps, chunks, objects. It maps no heap memory
 * (a scratch page at start-up and a scratch range for the fault-cost
 * probe, through os.c) and calls nothing above
 * the base layer. The kernel's constants and
 * structures are spelled here (bookworm's 6.1 headers predate them).
 * Callers serialise calls (the allocation lock); writes by the program
 * may run concurrently with any call.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- the kernel's interface (include/uapi/linux/userfaultfd.h, fs.h) ---- */

enum {
  UFFD_API_VERSION = 0xAA,
  UFFD_FLAG_USER_MODE_ONLY = 1,                    /* works without privilege */
  UFFD_FEATURE_WP_UNPOPULATED_BIT = 1u << 13,      /* markers on empty entries (6.4) */
  UFFD_FEATURE_WP_ASYNC_BIT = 1u << 15,            /* kernel resolves WP faults (6.7) */
  UFFD_REGISTER_MODE_WP_BIT = 1u << 1,
  UFFD_WRITEPROTECT_MODE_WP_BIT = 1u << 0,
};

struct uffd_range_arg { uint64_t start, len; };
struct uffd_api_arg { uint64_t api, features, ioctls; };
struct uffd_register_arg { struct uffd_range_arg range; uint64_t mode, ioctls; };
struct uffd_writeprotect_arg { struct uffd_range_arg range; uint64_t mode; };

#define UFFD_IOCTL_TYPE 0xAA
#define UFFD_IOCTL_REGISTER _IOWR(UFFD_IOCTL_TYPE, 0x00, struct uffd_register_arg)
#define UFFD_IOCTL_UNREGISTER _IOR(UFFD_IOCTL_TYPE, 0x01, struct uffd_range_arg)
#define UFFD_IOCTL_WRITEPROTECT _IOWR(UFFD_IOCTL_TYPE, 0x06, struct uffd_writeprotect_arg)
#define UFFD_IOCTL_API _IOWR(UFFD_IOCTL_TYPE, 0x3F, struct uffd_api_arg)

enum {
  PAGE_CATEGORY_WRITTEN = 1u << 1,
  PAGE_CATEGORY_PRESENT = 1u << 3,
  PAGE_CATEGORY_SWAPPED = 1u << 4,
  PM_SCAN_FLAG_WP_MATCHING = 1u << 0,   /* write-protect what is reported */
  PM_SCAN_FLAG_CHECK_WPASYNC = 1u << 1, /* fail (EPERM) on a range not registered async */
};

struct pm_page_region { uint64_t start, end, categories; };
struct pm_scan_arg {
  uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
  uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PAGEMAP_SCAN_IOCTL _IOWR('f', 16, struct pm_scan_arg)

/* ---- state ------------------------------------------------------------------ */

static const char *const backend_names[] = {
  [DIRTY_BACKEND_NONE] = "none",
  [DIRTY_BACKEND_UFFD_ASYNC] = "uffd-wp-async",
};

static enum dirty_backend backend = DIRTY_BACKEND_NONE;
static bool detected;
static int uffd = -1;
static int pagemap_fd = -1;
/* The process that opened both descriptors. Both name that process's
   memory for good (a userfaultfd its mm, /proc/self/pagemap the mm of the
   process that opened it), so a child of fork that used them would scan
   and write-protect its parent's pages, taking the parent's dirty pages
   for its own. The child has no registration either (fork events are not
   asked for), so it drops both and tracks nothing. Checked at every call
   rather than in an atfork handler: a child made by a raw clone or
   syscall(SYS_fork) runs no handlers. */
static pid_t owner;

/* Regions one PAGEMAP_SCAN call may return; a call that fills them stops
   and the walk resumes where it ended. Each region is a run of written
   pages, so a sparse range needs several calls, a dense one few. */
enum { SCAN_REGIONS = 256 };

static size_t page_bytes(void) {
  long p = sysconf(_SC_PAGESIZE);
  return p > 0 ? (size_t)p : 4096;
}

static bool uffd_writeprotect(uintptr_t start, size_t bytes, bool protect) {
  struct uffd_writeprotect_arg wp = {
    .range = { start, bytes }, .mode = protect ? UFFD_WRITEPROTECT_MODE_WP_BIT : 0 };
  int r;
  do r = ioctl(uffd, UFFD_IOCTL_WRITEPROTECT, &wp); while (r != 0 && errno == EINTR);
  return r == 0;
}

static bool uffd_register(uintptr_t start, size_t bytes) {
  struct uffd_register_arg reg = { .range = { start, bytes }, .mode = UFFD_REGISTER_MODE_WP_BIT };
  return ioctl(uffd, UFFD_IOCTL_REGISTER, &reg) == 0;
}

/* One PAGEMAP_SCAN call over [start, end): written pages into regions,
   write-protected again if protect. Returns the number of regions, -1 on error;
   *walk_end is where the kernel stopped. Only pages that hold something
   (present or swapped) are asked for: asked for "written" alone, the
   kernel takes its fast path, which reports every unprotected empty entry
   of a populated page table as written and protects it with a marker, and
   a later first write to such a page costs two faults (the page, then the
   write-protect fault) against one. An empty page holds zeros, nothing to
   rescan; once written it is present and unprotected, hence reported.
   Measured on a 64 MiB range with one page per 2 MiB populated, scanned,
   then every page written: 32,736 faults with the fast path, 16,352
   without. */
static long scan_written(uintptr_t start, uintptr_t end, bool protect,
                         struct pm_page_region *regions, size_t nregions, uintptr_t *walk_end) {
  struct pm_scan_arg arg = {
    .size = sizeof arg,
    .flags = (protect ? PM_SCAN_FLAG_WP_MATCHING : 0) | PM_SCAN_FLAG_CHECK_WPASYNC,
    .start = start, .end = end,
    .vec = (uintptr_t)regions, .vec_len = nregions,
    .category_mask = PAGE_CATEGORY_WRITTEN,
    .category_anyof_mask = PAGE_CATEGORY_PRESENT | PAGE_CATEGORY_SWAPPED,
    .return_mask = PAGE_CATEGORY_WRITTEN,
  };
  long n;
  do n = ioctl(pagemap_fd, PAGEMAP_SCAN_IOCTL, &arg); while (n < 0 && errno == EINTR);
  *walk_end = (uintptr_t)arg.walk_end;
  return n;
}

/* Open the userfaultfd with the two features, or -1. User-mode-only first:
   it needs no privilege (vm.unprivileged_userfaultfd=0 is the default),
   and asynchronous write faults are resolved in the kernel whichever mode
   wrote, so the flag loses nothing here (the tests write with read(2)). */
static int open_async_uffd(void) {
  static const int flags[] = { O_CLOEXEC | O_NONBLOCK | UFFD_FLAG_USER_MODE_ONLY,
                               O_CLOEXEC | O_NONBLOCK };
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
    int fd = (int)syscall(SYS_userfaultfd, flags[i]);
    if (fd < 0) continue;
    struct uffd_api_arg api = {
      .api = UFFD_API_VERSION,
      .features = UFFD_FEATURE_WP_ASYNC_BIT | UFFD_FEATURE_WP_UNPOPULATED_BIT };
    if (ioctl(fd, UFFD_IOCTL_API, &api) == 0) return fd;
    close(fd);   /* an older kernel: the features are refused (EINVAL) */
    return -1;
  }
  return -1;
}

/* Register a scratch page, write it, scan it: the whole path works or the
   backend is not used (a kernel may know the features and still refuse
   PAGEMAP_SCAN, a seccomp filter may refuse either ioctl). */
static bool async_backend_works(void) {
  size_t page = page_bytes();
  void *p = os_map_noreserve(page, page);
  if (!p) return false;
  uintptr_t a = (uintptr_t)p;
  bool ok = false;
  if (uffd_register(a, page) && uffd_writeprotect(a, page, true)) {
    struct pm_page_region r[1];
    uintptr_t walk_end;
    long before = scan_written(a, a + page, true, r, 1, &walk_end);
    *(volatile char *)p = 1;
    long after = scan_written(a, a + page, true, r, 1, &walk_end);
    ok = before == 0 && after == 1 && r[0].start == a;
  }
  os_unmap(p, page);   /* unregisters it */
  return ok;
}

static void detect(void) {
  detected = true;
  long forced;
  if (os_env_long("BIBOP_DIRTY", &forced) && forced == 0) return;
  uffd = open_async_uffd();
  if (uffd < 0) return;
  pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pagemap_fd >= 0 && async_backend_works()) {
    backend = DIRTY_BACKEND_UFFD_ASYNC;
    owner = getpid();
    return;
  }
  if (pagemap_fd >= 0) close(pagemap_fd);
  close(uffd);
  uffd = pagemap_fd = -1;
}

/* ---- interface -------------------------------------------------------------- */

enum dirty_backend dirty_init(void) {
  if (!detected) detect();
  if (backend != DIRTY_BACKEND_NONE && getpid() != owner) {
    close(uffd);
    close(pagemap_fd);
    uffd = pagemap_fd = -1;
    backend = DIRTY_BACKEND_NONE;
  }
  return backend;
}

const char *dirty_backend_name(void) {
  return backend_names[dirty_init()];
}

bool dirty_register(void *start, size_t bytes) {
  if (dirty_init() == DIRTY_BACKEND_NONE) return true;
  return uffd_register((uintptr_t)start, bytes);
}

void dirty_unregister(void *start, size_t bytes) {
  if (dirty_init() == DIRTY_BACKEND_NONE) return;
  struct uffd_range_arg range = { (uintptr_t)start, bytes };
  (void)ioctl(uffd, UFFD_IOCTL_UNREGISTER, &range);
}

bool dirty_protect(void *start, size_t bytes) {
  if (dirty_init() == DIRTY_BACKEND_NONE) return true;
  return uffd_writeprotect((uintptr_t)start, bytes, true);
}

bool dirty_unprotect(void *start, size_t bytes) {
  if (dirty_init() == DIRTY_BACKEND_NONE) return true;
  return uffd_writeprotect((uintptr_t)start, bytes, false);
}

/* Set bits [first, last] of bitmap; returns how many were clear. */
static size_t set_bits(uint64_t *bitmap, size_t first, size_t last) {
  size_t newly = 0;
  for (size_t i = first; i <= last; i++) {
    uint64_t bit = (uint64_t)1 << (i & 63);
    newly += !(bitmap[i >> 6] & bit);
    bitmap[i >> 6] |= bit;
  }
  return newly;
}

/* The written pages of units [first, first + count) of the range at base
   (units of 2^unit_shift bytes) into bitmap (bit i: unit i from base; the
   others untouched), protected again if protect. Returns how many. */
static size_t scan_units(void *base, size_t first, size_t count, unsigned unit_shift,
                         uint64_t *bitmap, bool protect) {
  if (count == 0) return 0;
  if (dirty_init() == DIRTY_BACKEND_NONE) return set_bits(bitmap, first, first + count - 1);
  uintptr_t a = (uintptr_t)base + (first << unit_shift), end = a + (count << unit_shift);
  struct pm_page_region regions[SCAN_REGIONS];
  size_t dirty = 0;
  while (a < end) {
    uintptr_t walk_end;
    long n = scan_written(a, end, protect, regions, SCAN_REGIONS, &walk_end);
    /* A range that is not (or no longer: a child after fork) registered:
       nothing can be known of it, so all of it counts as written. */
    if (n < 0) return set_bits(bitmap, first, first + count - 1);
    for (long i = 0; i < n; i++)
      dirty += set_bits(bitmap, (regions[i].start - (uintptr_t)base) >> unit_shift,
                        (regions[i].end - 1 - (uintptr_t)base) >> unit_shift);
    if ((size_t)n < SCAN_REGIONS || walk_end <= a) break;
    a = walk_end;
  }
  return dirty;
}

static size_t scan_range(void *start, size_t bytes, unsigned unit_shift, uint64_t *bitmap,
                         bool protect) {
  size_t units = (bytes + ((size_t)1 << unit_shift) - 1) >> unit_shift;
  memset(bitmap, 0, ((units + 63) / 64) * sizeof *bitmap);
  return scan_units(start, 0, units, unit_shift, bitmap, protect);
}

size_t dirty_collect(void *start, size_t bytes, unsigned unit_shift, uint64_t *bitmap) {
  return scan_range(start, bytes, unit_shift, bitmap, true);
}

size_t dirty_written(void *start, size_t bytes, unsigned unit_shift, uint64_t *bitmap) {
  return scan_range(start, bytes, unit_shift, bitmap, false);
}

size_t dirty_collect_units(void *base, size_t first, size_t count, unsigned unit_shift,
                           uint64_t *bitmap, bool protect) {
  return scan_units(base, first, count, unit_shift, bitmap, protect);
}

/* ---- what a write fault costs here ----
   The first store to a protected page traps into the kernel, which
   resolves it; on bare metal or a KVM guest ~1-2 us, on a host with shadow
   page tables ~16 us (session 25: bench/run-dirty.sh). Measured once, on a
   scratch range of FAULT_PROBE_PAGES pages, FAULT_PROBE_ROUNDS times
   (protect, then store to each page): the median store. */
enum { FAULT_PROBE_PAGES = 8, FAULT_PROBE_ROUNDS = 5 };
#define FAULT_NS_FLOOR 200   /* below it, a store that did not trap */
#define FAULT_NS_UNMEASURED 1500   /* the probe could not run: session 12's price */

static uint64_t median_of(uint64_t *v, size_t n) {
  for (size_t i = 1; i < n; i++)   /* insertion sort: 40 samples */
    for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
      uint64_t t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return v[n / 2];
}

static uint64_t probe_fault_ns(void) {
  size_t page = page_bytes(), bytes = FAULT_PROBE_PAGES * page;
  char *p = os_map_noreserve(bytes, page);
  if (!p) return 0;
  uint64_t samples[FAULT_PROBE_PAGES * FAULT_PROBE_ROUNDS];
  size_t n = 0;
  uintptr_t a = (uintptr_t)p;
  if (uffd_register(a, bytes)) {
    for (size_t i = 0; i < bytes; i += page) p[i] = 1;   /* populated, as a heap page is */
    struct pm_page_region r[FAULT_PROBE_PAGES];
    uintptr_t walk_end;
    for (int round = 0; round < FAULT_PROBE_ROUNDS; round++) {
      if (scan_written(a, a + bytes, true, r, FAULT_PROBE_PAGES, &walk_end) < 0) break;
      for (size_t i = 0; i < bytes; i += page) {
        uint64_t t0 = os_now_ns();
        ((volatile char *)p)[i] = (char)round;
        samples[n++] = os_now_ns() - t0;
      }
    }
  }
  os_unmap(p, bytes);   /* unregisters it */
  return n ? median_of(samples, n) : 0;
}

uint64_t dirty_write_fault_ns(void) {
  static uint64_t measured;   /* 0: not yet */
  if (dirty_init() == DIRTY_BACKEND_NONE) return 0;
  if (!measured) {
    uint64_t ns = probe_fault_ns();
    measured = !ns ? FAULT_NS_UNMEASURED : ns > FAULT_NS_FLOOR ? ns : FAULT_NS_FLOOR;
  }
  return measured;
}

/* Only the pages that read as written are touched: a page that is
   protected stays so, and an empty one stays without a marker (its first
   write costs one fault, not two: scan_written). */
bool dirty_protect_written(void *start, size_t bytes) {
  if (dirty_init() == DIRTY_BACKEND_NONE) return true;
  uintptr_t a = (uintptr_t)start, end = a + bytes;
  struct pm_page_region regions[SCAN_REGIONS];
  while (a < end) {
    uintptr_t walk_end;
    long n = scan_written(a, end, true, regions, SCAN_REGIONS, &walk_end);
    if (n < 0) return false;
    if ((size_t)n < SCAN_REGIONS || walk_end <= a) break;
    a = walk_end;
  }
  return true;
}
