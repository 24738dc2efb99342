/* HOMFLY polynomials of braid closures, computed by libhomfly (which
 * allocates all of its intermediate links and polynomials with GC_malloc
 * and GC_realloc).  Run by tests/clients/homfly.sh on stock libgc1 and on
 * bibop; everything printed is deterministic.
 *
 * A braid on n strands is a word of generators +-i (1 <= i < n): +i makes
 * the strand at position i pass over the one at position i+1 as they swap
 * (a right-handed crossing, hand 1), -i under (hand -1).  Its closure is
 * written in libhomfly's input format: the number of components; for each
 * component, the number of crossings it passes, then each crossing passed
 * (its number, 1 over, -1 under), in order; then each crossing's number and
 * hand.
 *
 * The program computes
 *   1. a table of named knots and links (unknot to torus knots);
 *   2. pseudo-random braids (a fixed linear congruential generator), each
 *      also conjugated (the word rotated) and stabilized (one more strand
 *      and one more crossing, the Markov moves): the three closures are the
 *      same link, so the three polynomials must be equal;
 * keeping every result string in a GC_malloc'd array that only the
 * collector's heap references, and at the end re-hashes them all after an
 * explicit collection: they must have survived unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gc.h>
#include <homfly.h>

#define MAX_WORD 64
#define MAX_STRANDS 12

struct braid {
    int strands;
    int len;
    int gen[MAX_WORD];
};

/* Appends to a growing text buffer (malloc'd: the input we build is ours). */
struct text {
    char *s;
    size_t len, cap;
};

static void put(struct text *t, const char *fmt, int a, int b)
{
    char tmp[64];
    int n = snprintf(tmp, sizeof tmp, fmt, a, b);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->cap + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        if (!t->s) { perror("realloc"); exit(2); }
    }
    memcpy(t->s + t->len, tmp, (size_t)n + 1);
    t->len += (size_t)n;
}

/* The closure of b in libhomfly's format, in a fresh malloc'd string;
 * *ncomp gets the number of components.  Every position must be touched
 * by some generator (no crossing-free component). */
static char *closure(const struct braid *b, int *ncomp)
{
    int done[MAX_WORD][2];              /* crossing k, side 0 (over) / 1 (under) visited */
    int comps = 0, k, p;
    struct text body = { 0, 0, 0 }, out = { 0, 0, 0 };
    int start;

    memset(done, 0, sizeof done);
    for (start = 1; start <= b->strands; start++) {
        /* A component starts at the top of position `start` unless an
         * earlier component already went through there: check by
         * walking from it until it comes back to the top. */
        int seen_here = 0, visited[MAX_WORD * 2][2], nv = 0;
        p = start;
        do {
            for (k = 0; k < b->len; k++) {
                int g = b->gen[k], i = g > 0 ? g : -g;
                if (p == i || p == i + 1) {
                    int over = (p == i) == (g > 0);
                    if (done[k][over ? 0 : 1]) { seen_here = 1; break; }
                    visited[nv][0] = k;
                    visited[nv][1] = over;
                    nv++;
                    p = (p == i) ? i + 1 : i;
                }
            }
        } while (!seen_here && p != start);
        if (seen_here)
            continue;
        if (nv == 0) {
            fprintf(stderr, "braid has a crossing-free strand at %d\n", start);
            exit(2);
        }
        comps++;
        put(&body, " %d", nv, 0);
        for (k = 0; k < nv; k++) {
            done[visited[k][0]][visited[k][1] ? 0 : 1] = 1;
            put(&body, "  %d %d", visited[k][0], visited[k][1] ? 1 : -1);
        }
        put(&body, "\n", 0, 0);
    }
    for (k = 0; k < b->len; k++)
        if (!done[k][0] || !done[k][1]) {
            fprintf(stderr, "crossing %d not passed twice\n", k);
            exit(2);
        }
    /* out = the number of components, the components, the hands */
    put(&out, "%d\n", comps, 0);
    out.cap = out.len + body.len + 1;
    out.s = realloc(out.s, out.cap);
    if (!out.s) { perror("realloc"); exit(2); }
    memcpy(out.s + out.len, body.s, body.len + 1);
    out.len += body.len;
    for (k = 0; k < b->len; k++)
        put(&out, " %d %d", k, b->gen[k] > 0 ? 1 : -1);
    put(&out, "\n", 0, 0);
    free(body.s);
    *ncomp = comps;
    return out.s;
}

/* libhomfly's polynomial of the closure, as its own string (GC heap). */
static char *poly_of(const struct braid *b, int *ncomp)
{
    char *in = closure(b, ncomp);
    char *r = homfly_str(in);
    free(in);
    if (!r) {
        fprintf(stderr, "homfly_str returned NULL\n");
        exit(2);
    }
    return r;
}

/* The same polynomial through homfly(): its terms, summed into a checksum
 * (coefficients weighted by their exponents). */
static long poly_terms(const struct braid *b, int *nterms)
{
    int ncomp, i;
    char *in = closure(b, &ncomp);
    Poly *p = homfly(in);
    long sum = 0;
    free(in);
    if (!p) {
        fprintf(stderr, "homfly returned NULL\n");
        exit(2);
    }
    for (i = 0; i < p->len; i++)
        sum += (long)p->term[i].coef * (1000 + 31 * p->term[i].m + 7 * p->term[i].l);
    *nterms = p->len;
    return sum;
}

static unsigned long hash_str(unsigned long h, const char *s)
{
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211UL;
    return h;
}

static int parse(struct braid *b, int strands, const char *word)
{
    char *end;
    b->strands = strands;
    b->len = 0;
    while (*word) {
        long g = strtol(word, &end, 10);
        if (end == word) break;
        b->gen[b->len++] = (int)g;
        word = end;
    }
    return b->len;
}

static unsigned long lcg_state = 20240117UL;
static int rnd(int n)
{
    lcg_state = lcg_state * 6364136223846793005UL + 1442695040888963407UL;
    return (int)((lcg_state >> 33) % (unsigned long)n);
}

/* A random braid on `strands` strands of length `len` in which every
 * generator occurs. */
static void random_braid(struct braid *b, int strands, int len)
{
    int i, ok;
    do {
        int used[MAX_STRANDS] = { 0 };
        b->strands = strands;
        b->len = len;
        for (i = 0; i < len; i++) {
            int g = 1 + rnd(strands - 1);
            used[g] = 1;
            b->gen[i] = rnd(3) ? g : -g;    /* 2 in 3 positive */
        }
        ok = 1;
        for (i = 1; i < strands; i++)
            ok &= used[i];
    } while (!ok);
}

int main(void)
{
    static const struct { const char *name; int strands; const char *word; } table[] = {
        { "unknot (one crossing)", 2, "1" },
        { "unknot (3 strands)", 3, "1 -2" },
        { "Hopf link", 2, "1 1" },
        { "trefoil 3_1", 2, "1 1 1" },
        { "mirror trefoil", 2, "-1 -1 -1" },
        { "figure eight 4_1", 3, "1 -2 1 -2" },
        { "3-component chain", 3, "1 1 -2 1 1 -2" },
        { "cinquefoil 5_1", 2, "1 1 1 1 1" },
        { "three-twist 5_2", 3, "1 1 1 2 -1 2" },
        { "stevedore 6_1", 4, "1 1 2 -1 -3 2 -3" },
        { "6_2", 3, "1 1 1 -2 1 -2" },
        { "6_3", 3, "1 1 -2 1 -2 -2" },
        { "Borromean rings", 3, "1 -2 1 -2 1 -2" },
        { "torus T(2,7)", 2, "1 1 1 1 1 1 1" },
        { "torus T(3,4)", 3, "1 2 1 2 1 2 1 2" },
        { "torus T(3,5)", 3, "1 2 1 2 1 2 1 2 1 2" },
        { "torus T(3,7)", 3, "1 2 1 2 1 2 1 2 1 2 1 2 1 2" },
        { "torus T(4,5)", 4, "1 2 3 1 2 3 1 2 3 1 2 3 1 2 3" },
        { "torus link T(4,4)", 4, "1 2 3 1 2 3 1 2 3 1 2 3" },
        { "torus T(5,6)", 5, "1 2 3 4 1 2 3 4 1 2 3 4 1 2 3 4 1 2 3 4 1 2 3 4" },
        { "torus T(4,7)", 4, "1 2 3 1 2 3 1 2 3 1 2 3 1 2 3 1 2 3 1 2 3" },
        { "4-component alternating", 4, "1 -2 3 -2 1 -2 3 -2 1 -2 3 -2" },
        { "5-strand mixed", 5, "1 -2 3 -4 1 -2 3 -4 -1 2 -3 4 1 2 3 4" },
    };
    const int ntable = (int)(sizeof table / sizeof table[0]);
    const int nrandom = 240;
    const int nres = ntable + nrandom;
    /* Every result string, referenced only from this GC_malloc'd array. */
    char **kept = GC_MALLOC((size_t)nres * sizeof *kept);
    unsigned long h = 14695981039346656037UL, h2;
    int i, nkept = 0, agree = 0, comps_total = 0, terms_total = 0;
    long termsum = 0;

    GC_INIT();
    if (!kept) { fprintf(stderr, "out of memory\n"); return 2; }

    printf("-- table\n");
    for (i = 0; i < ntable; i++) {
        struct braid b;
        int nc, nt;
        long ts;
        parse(&b, table[i].strands, table[i].word);
        kept[nkept] = poly_of(&b, &nc);
        ts = poly_terms(&b, &nt);
        printf("%s: %d crossings, %d component%s, %d terms (%ld):%s\n", table[i].name, b.len,
               nc, nc == 1 ? "" : "s", nt, ts, kept[nkept]);
        h = hash_str(h, kept[nkept]);
        nkept++;
    }

    printf("-- random braids (each also conjugated and stabilized)\n");
    for (i = 0; i < nrandom; i++) {
        struct braid b, conj, stab;
        int strands = 3 + rnd(4), len = 8 + rnd(strands <= 4 ? 17 : 12), nc, nc2, nc3, nt, k;
        char *p, *pc, *ps;
        random_braid(&b, strands, len);
        /* conjugate: rotate the word by a few letters */
        conj = b;
        for (k = 0; k < b.len; k++)
            conj.gen[k] = b.gen[(k + 1 + i % 5) % b.len];
        /* stabilize: add a strand and a crossing with it */
        stab = b;
        stab.strands = b.strands + 1;
        stab.gen[stab.len++] = (i & 1) ? b.strands : -b.strands;
        p = poly_of(&b, &nc);
        pc = poly_of(&conj, &nc2);
        ps = poly_of(&stab, &nc3);
        if (nc == nc2 && nc == nc3 && strcmp(p, pc) == 0 && strcmp(p, ps) == 0)
            agree++;
        else
            printf("braid %d: Markov moves changed the polynomial:%s |%s |%s\n", i, p, pc, ps);
        termsum += poly_terms(&b, &nt);
        terms_total += nt;
        comps_total += nc;
        kept[nkept] = p;
        h = hash_str(h, p);
        nkept++;
        printf("b%03d (%d strands:", i, strands);
        for (k = 0; k < b.len; k++)
            printf(" %d", b.gen[k]);
        printf("), %d component%s:%s\n", nc, nc == 1 ? "" : "s", p);
        if (i % 60 == 59)
            GC_gcollect();
    }

    GC_gcollect();
    h2 = 14695981039346656037UL;
    for (i = 0; i < nkept; i++)
        h2 = hash_str(h2, kept[i]);
    printf("-- summary\n");
    printf("random braids: %d, Markov moves agree: %d, components: %d, terms: %d, term checksum: %ld\n",
           nrandom, agree, comps_total, terms_total, termsum);
    printf("results kept: %d, hash %016lx, after collection %016lx: %s\n", nkept, h, h2,
           h == h2 ? "unchanged" : "CHANGED");
    return agree == nrandom && h == h2 ? 0 : 1;
}
