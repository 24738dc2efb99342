/*
 * trace.h: the GC trace (BIBOP_TRACE), the record collect.c fills at the end
 * of each collection. The format is the contract in docs/GUIDE.md ("The
 * trace"): JSON Lines, integer numbers, keys in a fixed order, readers ignore
 * keys they do not know, so fields may be added at the end of the struct and
 * of the line.
 */
#ifndef BIBOP_TRACE_H
#define BIBOP_TRACE_H

#include "internal.h"

struct trace_record {
  unsigned long gc;             /* GC_gc_no after this collection */
  uint64_t start_ns, end_ns;    /* CLOCK_MONOTONIC (os_now_ns), absolute */
  const char *reason;           /* as GC_PRINT_STATS prints it */
  size_t heap_bytes;            /* GC_get_heap_size after the collection */
  size_t live_bytes;            /* marked bytes, pointerful and pointer-free */
  size_t external_bytes;        /* external memory reported and live */
  unsigned long marked_objects;
  size_t marked_bytes;
  const struct mark_stats *mark;  /* candidate words and how each was classified */
};

/* Opens BIBOP_TRACE (truncated) and registers the exit record; called once,
   with the allocation lock held, at initialisation. */
BIBOP_INTERNAL void trace_init(void);
/* One "gc" line; called with the allocation lock held. */
BIBOP_INTERNAL void trace_collection(const struct trace_record *r);
/* The collection that just ended, from the collector's state (the hook
   init.c registers at the end of every collection). */
BIBOP_INTERNAL void trace_collection_end(void);

#endif
