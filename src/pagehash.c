/*
 * pagehash.c: the "legacy" page table, kept only to measure what bibop's
 * one-level table saves (paper 000's comparison). OCaml 4 classified heap
 * pointers through a hash table of 4 KiB pages with linear probing; this is
 * the same structure mapping a page to its block descriptor. It exists only
 * when BIBOP_PAGEHASH=1 at init: pagetable.c then enters every page of every
 * region (and of every static range) here, and the marker looks candidates
 * up here instead of in pt_table (mark.c chooses per drain, not per word).
 * Invariants: at most half full (grows by rehashing, under the allocation
 * lock, never while marking); an entry is never removed (a page whose
 * descriptor was cleared reads as UNUSED); [lo, hi) covers every entry.
 */
#include "internal.h"

#include <string.h>

#define PAGEHASH_INITIAL_SLOTS ((size_t)1 << 16)

struct pagehash pagehash;
bool pagehash_enabled;

static void put(struct pagehash_slot *slots, uintptr_t page, struct block *desc) {
  size_t h = pagehash_slot_of(page);
  while (slots[h].page != 0 && slots[h].page != page) h = (h + 1) & pagehash.mask;
  if (slots[h].page == 0) pagehash.count++;
  slots[h].page = page;
  slots[h].desc = desc;
}

static bool grow(void) {
  size_t old_n = pagehash.slots ? pagehash.mask + 1 : 0;
  size_t n = old_n ? 2 * old_n : PAGEHASH_INITIAL_SLOTS;
  struct pagehash_slot *slots = meta_alloc(n * sizeof *slots);
  if (!slots) return false;
  struct pagehash_slot *old = pagehash.slots;
  pagehash.slots = slots;
  pagehash.mask = n - 1;
  pagehash.shift = 64 - (unsigned)__builtin_ctzll(n);
  pagehash.count = 0;
  for (size_t i = 0; i < old_n; i++)
    if (old[i].page) put(slots, old[i].page, old[i].desc);
  if (old) meta_free(old, old_n * sizeof *old);
  return true;
}

void pagehash_insert(uintptr_t page_addr, struct block *desc) {
  if (!pagehash.slots || 2 * (pagehash.count + 1) > pagehash.mask + 1) {
    if (!grow()) gc_abort("bibop: cannot grow the hash page table (BIBOP_PAGEHASH)");
  }
  put(pagehash.slots, page_addr >> BLOCK_SHIFT, desc);
  if (!pagehash.lo || page_addr < pagehash.lo) pagehash.lo = page_addr;
  if (page_addr + BLOCK_BYTES > pagehash.hi) pagehash.hi = page_addr + BLOCK_BYTES;
}
