/*
 * bibop.h: bibop's own extensions, beyond the bdwgc interface of <gc.h>.
 *
 * Address classification through the one-level BiBoP page table, and
 * registration of address ranges the collector must treat specially.
 * Everything here is safe to call before GC_init (it initialises bibop).
 */
#ifndef BIBOP_H
#define BIBOP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
# define BIBOP_API __attribute__((visibility("default")))
#else
# define BIBOP_API
#endif

/* What an address is, as far as the collector knows. */
typedef enum bibop_addr_class {
  BIBOP_ADDR_UNKNOWN = 0,   /* not ours, not registered: skipped when marking */
  BIBOP_ADDR_HEAP_OBJECT,   /* inside an object slot of the collected heap that
                               is allocated, or claimed by an allocation cache
                               (slots are claimed up to 64 at a time and read
                               as objects until handed out or collected) */
  BIBOP_ADDR_HEAP_FREE,     /* inside the heap's reservation but in no object */
  BIBOP_ADDR_STATIC,        /* a range registered with bibop_register_static */
  BIBOP_ADDR_FOREIGN        /* a range registered with bibop_register_foreign */
} bibop_addr_class;

/* Classify any word, valid pointer or not. Never faults, never blocks on
   marking, O(1) for heap addresses (two dependent loads). */
BIBOP_API bibop_addr_class bibop_classify(const void *addr);

/* Register [start, start+len) as static data: never traced, never reclaimed,
   and excluded from root scanning if it lies inside a scanned data segment.
   Pointers into it cost nothing while marking. Returns 0, or -1 (errno
   EINVAL) if the range is empty, overlaps the heap or another registered
   range. */
BIBOP_API int bibop_register_static(const void *start, size_t len);

/* Register [start, start+len) as foreign memory: explicitly not ours. Only
   a label for bibop_classify: root scanning is unchanged (a foreign range
   inside a scanned data segment is still scanned). Same return convention
   as bibop_register_static. */
BIBOP_API int bibop_register_foreign(const void *start, size_t len);

/* Forget a range registered by either call above, given its start.
   Returns 0, or -1 (errno ENOENT) if no range starts there. */
BIBOP_API int bibop_unregister_range(const void *start);

/* Precise mode for the calling (registered) thread: when on, collections
   do not scan this thread's stack and registers conservatively, so a runtime
   that keeps every reference in boxroots (boxroot.h) and allocates typed
   objects gets no false retention from stale stack words. Returns the
   previous setting, or -1 if the thread is not registered. */
BIBOP_API int bibop_set_precise_stack(int on);

/* ---- external memory: bytes objects own outside the heap ---- */

/* Report (or retract) foreign bytes; any thread. A report may trigger a
   collection right away, when heap and external allocation together since
   the last collection exceed (live heap + live external) / divisor.
   Retractions never take the live count below zero. */
BIBOP_API void bibop_alloc_external(size_t bytes);
BIBOP_API void bibop_free_external(size_t bytes);

/* A GC_malloc'd object of lb bytes owning external_bytes of foreign memory,
   with release(obj, cd) as its (unordered) finalizer: when the object is
   unreachable, release runs and the collector retracts the object's
   external bytes after it. NULL if out of memory or release is NULL. */
BIBOP_API void *bibop_malloc_external(size_t lb, size_t external_bytes,
                                      void (*release)(void *obj, void *cd), void *cd);

/* The foreign part of such an object grew or shrank (a GMP integer got
   bigger): its recorded external bytes become external_bytes. Returns 0, or
   -1 if obj was not made by bibop_malloc_external (or is already finalized). */
BIBOP_API int bibop_resize_external(void *obj, size_t external_bytes);

struct bibop_external_stats {
  size_t live_bytes;                  /* reported and not retracted */
  size_t since_gc_bytes;              /* reported since the last collection */
  size_t last_trigger_heap_bytes;     /* allocated in the heap during the last cycle */
  size_t last_trigger_external_bytes; /* reported during the last cycle */
};
BIBOP_API void bibop_get_external_stats(struct bibop_external_stats *out);

/* ---- structure types, structures and structure vectors ---- */

/* A structure type: name, field count (1 .. 2^20) and which fields hold
   pointers (bit i of pointer_bitmap, word i/64; NULL: no pointer field).
   Types live as long as the process. NULL if nfields is 0 or too large, or
   out of memory. Fields are machine words (GC_word-sized). */
typedef struct bibop_struct_type bibop_struct_type;
BIBOP_API bibop_struct_type *bibop_struct_type_new(const char *name, size_t nfields,
                                                   const unsigned long *pointer_bitmap);
BIBOP_API const char *bibop_struct_type_name(const bibop_struct_type *t);
BIBOP_API size_t bibop_struct_type_fields(const bibop_struct_type *t);

/* An individually allocated structure (header + fields, zeroed); the
   reference points at field 0. NULL if t is NULL or out of memory. */
BIBOP_API void *bibop_struct_new(const bibop_struct_type *t);

/* A structure vector: n structures of type t under one header (no
   per-element header), zeroed. The reference points at element 0's field 0.
   NULL if t is NULL, n x size overflows, or out of memory. */
BIBOP_API void *bibop_svector_new(const bibop_struct_type *t, size_t n);
/* Element i as a structure reference (an interior pointer that keeps the
   whole vector alive); NULL if v is not a vector or i >= length. */
BIBOP_API void *bibop_svector_ref(void *v, size_t i);
/* Copy the type's field count of words into element i: 0, or -1 like ref. */
BIBOP_API int bibop_svector_set(void *v, size_t i, const unsigned long *values);
/* Number of elements; 0 if v is not a vector. */
BIBOP_API size_t bibop_svector_length(const void *v);
BIBOP_API int bibop_is_svector(const void *v);

/* For both kinds of structure reference: the type (NULL if ref is not a
   structure reference), instance test, and field k. Field access on
   something that is not a structure reference, or k out of range, aborts
   with a message naming the call. */
BIBOP_API const bibop_struct_type *bibop_type_of(const void *ref);
BIBOP_API int bibop_is_instance(const void *ref, const bibop_struct_type *t);
BIBOP_API unsigned long bibop_field_get(const void *ref, size_t k);
BIBOP_API void bibop_field_set(void *ref, size_t k, unsigned long value);

/* Statistics of the last completed collection. */
struct bibop_gc_stats {
  unsigned long gc_no;          /* collections so far */
  unsigned long pause_ns;       /* duration of the last collection */
  unsigned long total_pause_ns; /* sum over all collections */
  unsigned long max_pause_ns;   /* longest collection */
  size_t heap_bytes;            /* heap size after the collection */
  size_t live_bytes;            /* bytes in marked objects */
  size_t committed_bytes;       /* memory committed from the OS for the heap */
  unsigned long marked_objects; /* objects marked by the last collection */
};
BIBOP_API void bibop_get_gc_stats(struct bibop_gc_stats *out);

/* Generational mode (GC_enable_incremental, BIBOP_GENERATIONAL=1): minor
   collections trace only from the roots and from old objects on pages
   written since the last collection (docs/GUIDE.md). */
struct bibop_generation_stats {
  int enabled;                      /* minor collections may run */
  const char *dirty_backend;        /* how written pages are found:
                                       "uffd-wp-async" or "none" (all written) */
  unsigned long minor_collections, major_collections;  /* since it was enabled */
  size_t last_dirty_blocks;         /* 4 KiB blocks the last minor collection
                                       found written */
  unsigned long long minor_pause_ns, major_pause_ns;   /* summed */
  unsigned long long max_minor_pause_ns;
};
BIBOP_API void bibop_get_generation_stats(struct bibop_generation_stats *out);

/* What the marker did in the last completed collection (all parallel
   markers summed). Each candidate word the marker examined (roots and the
   words of scanned objects; a word is counted again if overflow recovery
   rescans its object) is classified as exactly one of
     not_ours: in no region of the heap and in no registered static range,
     free:     in the heap's reservation but in no object (free block,
               unused tail of a block, interior offset not recognised),
     static:   in a range registered with bibop_register_static (4 KiB
               pages: words sharing a page with the range count too); the
               word is skipped without reading what it points to,
     object:   inside an object (newly marked, or already marked),
   so candidates == not_ours + free + static + object. */
struct bibop_mark_stats {
  unsigned long gc_no;              /* collections so far (0: none yet) */
  unsigned long long marked_objects, marked_bytes;
  unsigned long long candidates;
  unsigned long long cand_not_ours, cand_free, cand_static, cand_object;
  unsigned long long mark_ns;       /* marking: from the roots to the last object */
  double ns_per_object;             /* mark_ns / marked_objects (0 if none) */
  size_t heap_bytes;                /* committed heap memory now */
  size_t huge_page_bytes;           /* of it, backed by transparent huge pages now
                                       (AnonHugePages in /proc/self/smaps, read by
                                       this call: it costs a read of that file) */
};
BIBOP_API void bibop_get_mark_stats(struct bibop_mark_stats *out);

/* Who marked in the last completed collection, besides the collecting
   thread: helper threads (GC_MARKERS), and volunteers, registered threads
   that the stop-the-world signal found running and that marked inside
   their suspend handler (BIBOP_VOLUNTEERS=0 turns them off). */
struct bibop_marker_counts {
  unsigned long gc_no;              /* collections so far (0: none yet) */
  unsigned helpers;                 /* helper threads that joined its marking */
  unsigned volunteers;              /* stopped threads that joined it */
  unsigned long long total_helpers, total_volunteers;   /* over all collections */
};
BIBOP_API void bibop_get_marker_counts(struct bibop_marker_counts *out);

/* The last collection's marking: the objects marked, and how many of them
   the markers other than the collecting thread's (helpers, volunteers)
   marked. */
struct bibop_marked_share {
  unsigned long gc_no;              /* collections so far (0: none yet) */
  unsigned long long objects;       /* marked in the last collection */
  unsigned long long by_others;     /* of which by the other markers */
};
BIBOP_API void bibop_get_marked_share(struct bibop_marked_share *out);

#ifdef __cplusplus
}
#endif
#endif /* BIBOP_H */
