/*
 * plain.c: the reference programs in plain C, no collector: every mpz_t is
 * initialised once, reused, and cleared by hand.
 *   listing 2 = the paper's listing 6 (one mpz_t squared in place), with the
 *               outer loop of listing 2 around it;
 *   listing 3 = listing 6 plus the factorials of listing 3, each computed in
 *               one reused mpz_t (r = r * i for i = 1..n, mpz_mul_ui);
 *   listing 1 = the same computation as listing 1, with reused mpz_t's.
 * Same checksum, parameters and output line as listings.c (variant=plain).
 *
 * usage: gmp_plain LISTING [-s] [-p name=value]...
 */
#include "common.h"

/* ---- listing 1 ------------------------------------------------------------ */

static void fact_into(mpz_t r, long n) {
  mpz_set_ui(r, 1);
  for (long i = 2; i <= n; i++) mpz_mul_ui(r, r, (unsigned long)i);
}

static void ffact(mpz_t r, long n, const mpz_t nn, uint64_t *rng) {
  mpz_t d;
  mpz_init(d);
  mpz_set_ui(r, 1);
  for (; n > 0; n--) {
    mpz_mul_ui(r, r, (unsigned long)n);
    mpz_mul_ui(d, nn, ck_random(rng));
    mpz_fdiv_r(r, r, d);
  }
  mpz_clear(d);
}

static uint64_t listing1(const struct params *p) {
  uint64_t h = CK_INIT, rng = CK_SEED;
  mpz_t nn, f, nn2, r;
  mpz_inits(nn, f, nn2, r, NULL);
  fact_into(f, p->fact_n);
  mpz_mul(nn, f, f);
  h = ck_mix(h, nn);
  ffact(nn2, p->ffact_a, nn, &rng);
  ffact(r, p->ffact_b, nn, &rng);
  h = ck_mix(h, nn2);
  h = ck_mix(h, r);
  mpz_clears(nn, f, nn2, r, NULL);
  return h;
}

/* ---- listing 2: listing 6, repeated ------------------------------------------ */

static uint64_t listing2(const struct params *p) {
  uint64_t h = CK_INIT;
  mpz_t a;
  mpz_init(a);
  for (long k = 0; k < p->outer; k++) {
    mpz_set_ui(a, 999);
    for (long i = 1; i <= p->squarings; i++) mpz_mul(a, a, a);
    h = ck_mix(h, a);
  }
  mpz_clear(a);
  return h;
}

/* ---- listing 3 ------------------------------------------------------------------ */

static uint64_t listing3(const struct params *p) {
  uint64_t h = CK_INIT;
  mpz_t a, f;
  mpz_init(a);
  mpz_init(f);
  for (long k = 0; k < p->outer; k++) {
    mpz_set_ui(a, 999);
    for (long i = 1; i <= p->squarings; i++) {
      mpz_mul(a, a, a);
      fact_into(f, p->fact_inner);
      h = ck_mix(h, f);
    }
    h = ck_mix(h, a);
    fact_into(f, p->fact_outer);
    h = ck_mix(h, f);
  }
  mpz_clear(a);
  mpz_clear(f);
  return h;
}

int main(int argc, char **argv) {
  struct params p;
  long listing = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
  if (listing < 1 || listing > 3 || params_parse(&p, argc, argv, 2) != 0) {
    fprintf(stderr, "usage: %s LISTING [-s] [-p name=value]...\n  LISTING: 1 | 2 | 3\n", argv[0]);
    return 2;
  }
  double t0 = now_s();
  uint64_t h = listing == 1 ? listing1(&p) : listing == 2 ? listing2(&p) : listing3(&p);
  double t = now_s() - t0;
  printf("listing=%ld variant=plain mode=plain checksum=%016llx time_s=%.3f cpu_s=%.3f maxrss_kib=%ld gcs=0\n",
         listing, (unsigned long long)h, t, cpu_s(), peak_rss_kib());
  return 0;
}
