/*
 * listings.c: the OCaml programs of the paper (Philippe Wang, "Étude de
 * Caml-Gmp au niveau des problèmes de la gestion mémoire", 2006), listings
 * 1, 2 and 3, rewritten in C on the garbage-collected binding of zgc.h:
 * every intermediate integer is a fresh GC object, nothing is freed by
 * hand. Built as gmp_bibop (bibop) and gmp_stock (stock libgc1).
 *
 * usage: gmp_bibop MODE LISTING [-s] [-p name=value]...
 *   MODE     none | account | hooks | heap   (gmp_stock: none | heap);
 *            also heap-unguarded (see zgc.h: crashes, on purpose)
 *   LISTING  1 | 2 | 3
 *   -s       small parameters (for the tests); -p overrides one parameter
 *            (fact_n ffact_a ffact_b squarings outer fact_inner fact_outer)
 * Prints one line:
 *   listing=L variant=V mode=M checksum=HEX time_s=T cpu_s=C maxrss_kib=R gcs=G
 * (time_s: wall, from before the collector is initialised to the end;
 * cpu_s: user + system CPU of the whole process; maxrss_kib: ru_maxrss).
 * The checksum mixes every result in the same order as gmp_plain (plain.c),
 * which must print the same value for the same listing and parameters.
 */
#include "common.h"
#include "zgc.h"

#include <gc.h>

#ifdef ZGC_STOCK
# define VARIANT "stock"
#else
# define VARIANT "bibop"
#endif

static Z z_from_long(long v) { return z_from_ui((unsigned long)v); }

/* ---- listing 1: many small numbers ------------------------------------- */

/* let rec fact n = if Z.equal n Z.zero then Z.one else Z.mul n (fact (Z.pred n)) */
static Z fact1(Z n) {
  if (z_equal(n, z_zero())) return z_one();
  return z_mul(n, fact1(z_pred(n)));
}

static Z nn;   /* the first nn of the listing: static data, a root */

/* ffact n r = if n = 0 then r else ffact (pred n) ((r * n) mod (random * nn)) */
static Z ffact(Z n, uint64_t *rng) {
  Z r = z_one();
  while (!z_equal(n, z_zero())) {
    Z m = z_mul(r, n);
    Z d = z_mul(z_from_ui(ck_random(rng)), nn);
    r = z_mod(m, d);
    n = z_pred(n);
  }
  return r;
}

static uint64_t listing1(const struct params *p) {
  uint64_t h = CK_INIT, rng = CK_SEED;
  nn = z_mul(fact1(z_from_long(p->fact_n)), fact1(z_from_long(p->fact_n)));
  h = z_mix(h, nn);
  Z nn2 = ffact(z_from_long(p->ffact_a), &rng);   /* let nn = ffact 999 */
  Z r = ffact(z_from_long(p->ffact_b), &rng);     /* print ffact 99991 */
  h = z_mix(h, nn2);
  h = z_mix(h, r);
  return h;
}

/* ---- listing 2: one big number squared, again and again ------------------ */

static uint64_t calc2(const struct params *p, uint64_t h) {
  Z x = z_from_ui(999);
  for (long i = 1; i <= p->squarings; i++) x = z_mul(x, x);
  return z_mix(h, x);
}

static uint64_t listing2(const struct params *p) {
  uint64_t h = CK_INIT;
  for (long i = 0; i < p->outer; i++) h = calc2(p, h);
  return h;
}

/* ---- listing 3: listing 2 interleaved with factorials --------------------- */

/* let rec fact n = if Z.equal n Z.zero then Z.one else Z.mul (fact (Z.pred n)) n */
static Z fact3(Z n) {
  if (z_equal(n, z_zero())) return z_one();
  return z_mul(fact3(z_pred(n)), n);
}

static uint64_t calc3(const struct params *p, uint64_t h) {
  Z x = z_from_ui(999);
  for (long i = 1; i <= p->squarings; i++) {
    x = z_mul(x, x);
    h = z_mix(h, fact3(z_from_long(p->fact_inner)));   /* ignore (fact 2600) */
  }
  return z_mix(h, x);
}

static uint64_t listing3(const struct params *p) {
  uint64_t h = CK_INIT;
  for (long i = 0; i < p->outer; i++) {
    h = calc3(p, h);
    h = z_mix(h, fact3(z_from_long(p->fact_outer)));   /* ignore (fact 26000) */
  }
  return h;
}

/* ---- main ------------------------------------------------------------------ */

int main(int argc, char **argv) {
  struct params p;
  int m = argc > 2 ? z_mode_parse(argv[1]) : -1;
  long listing = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
  if (m < 0 || listing < 1 || listing > 3 || params_parse(&p, argc, argv, 3) != 0) {
    fprintf(stderr,
            "usage: %s MODE LISTING [-s] [-p name=value]...\n"
            "  MODE: none | account | hooks | heap (stock build: none | heap), heap-unguarded\n"
            "  LISTING: 1 | 2 | 3\n", argv[0]);
    return 2;
  }
  double t0 = now_s();
  if (z_setup((enum zmode)m) != 0) {
    fprintf(stderr, "%s: mode %s is not available in this build\n", argv[0], argv[1]);
    return 2;
  }
  uint64_t h = listing == 1 ? listing1(&p) : listing == 2 ? listing2(&p) : listing3(&p);
  double t = now_s() - t0;
  printf("listing=%ld variant=" VARIANT " mode=%s checksum=%016llx time_s=%.3f cpu_s=%.3f maxrss_kib=%ld gcs=%lu\n",
         listing, z_mode_name(), (unsigned long long)h, t, cpu_s(), peak_rss_kib(),
         (unsigned long)GC_get_gc_no());
  return 0;
}
