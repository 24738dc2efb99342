/*
 * rootpages.c: static root pages that were not written since the last
 * collection are not read again; the words of theirs that led into the
 * heap are marked from a record (issue #16).
 *
 * Every collection reads every word of the static roots: the writable
 * segments of the executable and of its libraries, and the ranges added
 * with GC_add_roots (Guile registers the data of the compiled modules it
 * loads: 850 KiB in all, 1/4 to 1/3 of a small collection's marking).
 * Between two collections a program writes few of those pages (Guile: 5
 * to 7 of ~230), and most words of a page do not lead into the heap. So a
 * root range of at least a page is tracked (dirty.c: registered for write
 * tracking, its written pages reported and protected again at each
 * collection); each page keeps a bitmap of its words that led into the
 * heap when it was last read (the page table had a region there); a page
 * not written since then is read only at those words.
 *
 * Invariants:
 *  1. A page's record is used only if the report that protected the page
 *     came before the read that made the record, in a collection (world
 *     stopped), and no report since found the page written: its words are
 *     those the record was made from. dirty.c reports a page written after
 *     any write (a thread's, a system call's) and whenever it cannot vouch
 *     for it (not registered, a child after fork: every page).
 *  2. A word the record leaves out did not lead into the heap when it was
 *     read, and is still the same word: a value stored before the heap
 *     reached its address refers to nothing allocated there since.
 *  3. What is read of a range is what the roots scan would read (the
 *     pieces left after exclusions and static ranges, roots.c); a change of
 *     exclusions or static ranges drops every record (rootpages_forget).
 *  4. Only private memory outside the heap's page-table slots is tracked:
 *     another process writing into shared memory takes no fault here. No
 *     two tracked (or resting) ranges share a page: each report protects
 *     the pages it reports, so a second report would find them clean.
 *  5. A range most of whose pages were written in a cycle is not tracked
 *     for RESTING_COLLECTIONS collections (every first write to a
 *     protected page costs a fault of about a microsecond); its pages are
 *     then read whole, and they report written until protected again.
 * BIBOP_ROOT_PAGES=0 turns tracking off: every root word is read at every
 * collection, as before.
 */
#include "internal.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define PAGE_SHIFT_ROOTS 12
#define PAGE_BYTES_ROOTS ((uintptr_t)1 << PAGE_SHIFT_ROOTS)
#define WORDS_PER_PAGE (PAGE_BYTES_ROOTS / sizeof(uintptr_t))
#define RECORD_WORDS (WORDS_PER_PAGE / 64)
#define MAX_TRACKED_PAGES ((size_t)4096)      /* 16 MiB: larger ranges are read whole */
#define RESTING_COLLECTIONS 64

enum range_state { RANGE_TRACKED, RANGE_RESTING, RANGE_UNTRACKABLE };

struct tracked_range {
  uintptr_t lo, hi;                  /* as the roots scan gives it */
  uintptr_t first_page;
  size_t pages;
  enum range_state state;
  unsigned long resting_until;       /* GC_gc_no */
  unsigned long epoch;               /* records valid if equal to records_epoch */
  bool just_registered;              /* its first report reads every page as written */
  uint64_t *written;                 /* per page: reported written (scratch) */
  uint64_t *recorded;                /* per page: record valid */
  uint64_t (*words)[RECORD_WORDS];   /* per page: words that led into the heap */
};

static struct meta_vec ranges = { .item_size = sizeof(struct tracked_range) };
static size_t next_guess;            /* ranges come in the same order at each collection */
static unsigned long records_epoch = 1;
static int enabled = -1;             /* -1: not decided yet */
static uint64_t *recording;          /* the page record being made, NULL: none */
static uintptr_t recording_page;
static size_t replayed_bytes;        /* of this collection: root bytes not read */

static bool tracking_enabled(void) {
  if (enabled < 0) {
    long v;
    enabled = !(os_env_long("BIBOP_ROOT_PAGES", &v) && v == 0) &&
              dirty_init() != DIRTY_BACKEND_NONE;
  }
  return enabled && dirty_init() != DIRTY_BACKEND_NONE;
}

void rootpages_forget(void) { records_epoch++; }

size_t rootpages_replayed_bytes(void) { return replayed_bytes; }
void rootpages_begin_collection(void) { replayed_bytes = 0; }

static bool leads_into_heap(uintptr_t w) {
  return (w >> ADDRESS_BITS) == 0 && pt_table[w >> REGION_SHIFT] != NULL;
}

/* roots.c reads [lo, hi) of the page being recorded: note its words. */
void rootpages_note_read(uintptr_t lo, uintptr_t hi) {
  if (!recording) return;
  uintptr_t first = (lo + sizeof(uintptr_t) - 1) & ~(uintptr_t)(sizeof(uintptr_t) - 1);
  for (uintptr_t a = first; a + sizeof(uintptr_t) <= hi; a += sizeof(uintptr_t)) {
    if (!leads_into_heap(*(const uintptr_t *)a)) continue;
    size_t i = (a - recording_page) / sizeof(uintptr_t);
    recording[i / 64] |= (uint64_t)1 << (i % 64);
  }
}

/* One line of /proc/self/maps: "lo-hi perms ..."; false if unparsable. */
static bool parse_maps_line(const char *s, uintptr_t *lo, uintptr_t *hi, char *perms) {
  uintptr_t v[2] = { 0, 0 };
  for (int k = 0; k < 2; k++) {
    int digits = 0;
    for (;; s++, digits++) {
      char c = *s;
      unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                 : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 16;
      if (d == 16) break;
      v[k] = v[k] << 4 | d;
    }
    if (!digits || *s != (k == 0 ? '-' : ' ')) return false;
    s++;
  }
  for (int k = 0; k < 4; k++) perms[k] = s[k];
  *lo = v[0];
  *hi = v[1];
  return true;
}

/* Invariant 4: every mapping over [lo, hi) is private, and none is a
   stack (written all the time). Read with a fixed buffer: no malloc in
   a collection. */
static bool private_mappings_only(uintptr_t lo, uintptr_t hi) {
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096];
  size_t have = 0;
  uintptr_t covered = lo;
  bool ok = true, done = false;
  while (!done) {
    ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
    if (n <= 0) break;
    have += (size_t)n;
    buf[have] = '\0';
    char *line = buf, *nl;
    while ((nl = strchr(line, '\n')) != NULL) {
      *nl = '\0';
      uintptr_t mlo = 0, mhi = 0;
      char perms[4];
      bool parsed = parse_maps_line(line, &mlo, &mhi, perms);
      if (parsed && mhi > lo && mlo < hi) {
        if (mlo > covered || perms[3] != 'p' || strstr(line, "[stack") != NULL) ok = false;
        if (mhi > covered) covered = mhi;
      }
      if ((parsed && mlo >= hi) || !ok) { done = true; break; }
      line = nl + 1;
    }
    have = (size_t)(buf + have - line);
    memmove(buf, line, have);
    if (have == sizeof buf - 1) have = 0;   /* a line longer than the buffer: skip it */
  }
  close(fd);
  return ok && covered >= hi;
}

static bool outside_heap_slots(uintptr_t lo, uintptr_t hi) {
  for (uintptr_t s = lo >> REGION_SHIFT; s <= (hi - 1) >> REGION_SHIFT; s++)
    if (pt_table[s]) return false;
  return true;
}

static void free_records(struct tracked_range *r) {
  size_t map_bytes = (r->pages + 63) / 64 * sizeof(uint64_t);
  if (r->written) meta_free(r->written, map_bytes);
  if (r->recorded) meta_free(r->recorded, map_bytes);
  if (r->words) meta_free(r->words, r->pages * sizeof r->words[0]);
  r->written = r->recorded = NULL;
  r->words = NULL;
}

/* Two ranges that share a page cannot both be tracked: the first report of
   a collection protects the page again, and the second would find it
   clean. The first one seen is tracked (or rests), the others are read
   whole. */
static bool shares_a_page(uintptr_t first_page, uintptr_t end) {
  struct tracked_range *v = ranges.items;
  for (size_t i = 0; i < ranges.count; i++) {
    if (v[i].state == RANGE_UNTRACKABLE) continue;
    uintptr_t other_end = v[i].first_page + (v[i].pages << PAGE_SHIFT_ROOTS);
    if (v[i].first_page < end && first_page < other_end) return true;
  }
  return false;
}

static void start_tracking(struct tracked_range *r) {
  r->state = RANGE_UNTRACKABLE;
  uintptr_t end = r->first_page + (r->pages << PAGE_SHIFT_ROOTS);
  if (r->pages > MAX_TRACKED_PAGES || !outside_heap_slots(r->first_page, end) ||
      shares_a_page(r->first_page, end))
    return;
  if (!private_mappings_only(r->first_page, end)) return;
  size_t map_bytes = (r->pages + 63) / 64 * sizeof(uint64_t);
  r->written = meta_alloc(map_bytes);
  r->recorded = meta_alloc(map_bytes);
  r->words = meta_alloc(r->pages * sizeof r->words[0]);
  if (!r->written || !r->recorded || !r->words || !dirty_register((void *)r->first_page, end - r->first_page)) {
    free_records(r);
    return;
  }
  r->state = RANGE_TRACKED;
  r->just_registered = true;
}

static struct tracked_range *find_range(uintptr_t lo, uintptr_t hi) {
  struct tracked_range *v = ranges.items;
  if (next_guess < ranges.count && v[next_guess].lo == lo && v[next_guess].hi == hi)
    return &v[next_guess++];
  for (size_t i = 0; i < ranges.count; i++)
    if (v[i].lo == lo && v[i].hi == hi) {
      next_guess = i + 1;
      return &v[i];
    }
  uintptr_t first = lo & ~(PAGE_BYTES_ROOTS - 1);
  struct tracked_range r = {
    .lo = lo, .hi = hi, .first_page = first,
    .pages = (size_t)(((hi + PAGE_BYTES_ROOTS - 1) & ~(PAGE_BYTES_ROOTS - 1)) - first) >> PAGE_SHIFT_ROOTS,
  };
  start_tracking(&r);
  if (!meta_vec_push(&ranges, &r)) {
    free_records(&r);
    return NULL;
  }
  next_guess = ranges.count;
  return &META_VEC_AT(&ranges, struct tracked_range, ranges.count - 1);
}

static bool bit(const uint64_t *map, size_t i) { return (map[i / 64] >> (i % 64)) & 1; }

/* Mark from the recorded words of a page not written since its record. */
static void replay(const uint64_t record[RECORD_WORDS], uintptr_t page) {
  for (size_t k = 0; k < RECORD_WORDS; k++)
    for (uint64_t b = record[k]; b; b &= b - 1)
      mark_word(((const uintptr_t *)page)[k * 64 + (size_t)__builtin_ctzll(b)]);
}

void rootpages_scan(uintptr_t lo, uintptr_t hi, void (*read_words)(uintptr_t lo, uintptr_t hi)) {
  struct tracked_range *r = hi - lo >= PAGE_BYTES_ROOTS && tracking_enabled() ? find_range(lo, hi) : NULL;
  if (r && r->state == RANGE_RESTING && GC_gc_no >= r->resting_until) {
    /* Written while unregistered: no record of it can be vouched for. */
    memset(r->recorded, 0, (r->pages + 63) / 64 * sizeof(uint64_t));
    r->state = dirty_register((void *)r->first_page, r->pages << PAGE_SHIFT_ROOTS) ? RANGE_TRACKED
                                                                                 : RANGE_UNTRACKABLE;
    if (r->state == RANGE_UNTRACKABLE) free_records(r);
    r->just_registered = true;
  }
  if (!r || r->state != RANGE_TRACKED) {
    read_words(lo, hi);
    return;
  }
  if (r->epoch != records_epoch) {
    memset(r->recorded, 0, (r->pages + 63) / 64 * sizeof(uint64_t));
    r->epoch = records_epoch;
  }
  size_t written = dirty_collect((void *)r->first_page, r->pages << PAGE_SHIFT_ROOTS,
                                 PAGE_SHIFT_ROOTS, r->written);
  for (size_t i = 0; i < r->pages; i++) {
    uintptr_t page = r->first_page + (i << PAGE_SHIFT_ROOTS);
    uintptr_t from = page > lo ? page : lo, to = page + PAGE_BYTES_ROOTS < hi ? page + PAGE_BYTES_ROOTS : hi;
    if (!bit(r->written, i) && bit(r->recorded, i)) {
      replay(r->words[i], page);
      replayed_bytes += to - from;
      continue;
    }
    memset(r->words[i], 0, sizeof r->words[i]);
    recording = r->words[i];
    recording_page = page;
    read_words(from, to);
    recording = NULL;
    r->recorded[i / 64] |= (uint64_t)1 << (i % 64);
  }
  /* Invariant 5: pages written in most cycles cost a fault each for
     nothing. Unprotected, they report written until protected again. */
  bool first_report = r->just_registered;
  r->just_registered = false;
  if (!first_report && written * 2 > r->pages && r->pages > 1) {
    dirty_unregister((void *)r->first_page, r->pages << PAGE_SHIFT_ROOTS);
    r->state = RANGE_RESTING;
    r->resting_until = GC_gc_no + RESTING_COLLECTIONS;
  }
}
