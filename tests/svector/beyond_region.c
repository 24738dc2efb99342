/*
 * beyond_region.c: a structure vector larger than one 256 MiB region (the
 * issue's 4 GiB case, scaled to what CI affords): 18 million two-field
 * structures (288 MiB of fields), kept alive only by an element reference
 * near its end; after collections every sampled element still has its type
 * and contents, and its pointer fields still hold their (live) targets.
 */
#include <gc.h>
#include <bibop.h>
#include <stdio.h>
#include <stdlib.h>

#define N 18000000UL

static void fail(const char *what, unsigned long i) {
  fprintf(stderr, "svector.beyond_region: %s at element %lu\n", what, i);
  exit(1);
}

int main(void) {
  GC_INIT();
  unsigned long bitmap = 1;                /* field 0 is a pointer */
  bibop_struct_type *t = bibop_struct_type_new("pair", 2, &bitmap);
  if (!t) fail("type creation failed", 0);
  void *v = bibop_svector_new(t, N);
  if (!v) fail("vector allocation returned NULL", 0);
  for (unsigned long i = 0; i < N; i += 4099) {
    long *payload = GC_MALLOC(2 * sizeof(long));
    if (!payload) fail("payload allocation failed", i);
    payload[0] = (long)i;
    payload[1] = ~(long)i;
    void *e = bibop_svector_ref(v, i);
    bibop_field_set(e, 0, (unsigned long)payload);
    bibop_field_set(e, 1, i * 7);
  }
  void *volatile last = bibop_svector_ref(v, N - 1);
  v = NULL;
  for (int r = 0; r < 3; r++) {
    for (int k = 0; k < 20000; k++) (void)GC_MALLOC(64);   /* churn over freed memory */
    GC_gcollect();
  }
  char *first = (char *)last - (N - 1) * 2 * sizeof(long);
  if (bibop_svector_length(first) != N) fail("length changed", 0);
  for (unsigned long i = 0; i < N; i += 4099) {
    void *e = bibop_svector_ref(first, i);
    if (!e || bibop_type_of(e) != t) fail("type lookup", i);
    if (bibop_field_get(e, 1) != i * 7) fail("non-pointer field changed", i);
    long *payload = (long *)bibop_field_get(e, 0);
    if (!payload || payload[0] != (long)i || payload[1] != ~(long)i) fail("pointer field target lost", i);
  }
  printf("svector.beyond_region: %lu elements (%lu MiB) intact\n", N, (N * 16) >> 20);
  return 0;
}
