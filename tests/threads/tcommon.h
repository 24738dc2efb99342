/* tcommon.h: helpers shared by the thread tests: failure reporting that is
 * safe from any thread, a seeded hash for checksummed contents, checksummed
 * linked lists of GC objects, a progress tracker and a hang watchdog.
 * The watchdog only turns a hang into a diagnosable failure (it reports the
 * stage the program was in); no test asserts on time. */
#ifndef BIBOP_THREADS_TCOMMON_H
#define BIBOP_THREADS_TCOMMON_H

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Print the message and end the whole process with status 1 (from any
   thread: _exit runs no atexit handlers that could race the other
   threads). */
#include "../common/fail.h"
#define tfail test_fail

#define TCHECK(cond, ...)                                                       \
    do {                                                                        \
        if (!(cond)) tfail(__FILE__ ":" TSTR(__LINE__) ": " __VA_ARGS__);       \
    } while (0)
#define TSTR2(x) #x
#define TSTR(x) TSTR2(x)

static inline uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

typedef struct { uint64_t s; } trng_t;
static inline uint64_t trng_next(trng_t *r) { return mix64(r->s++); }
static inline unsigned trng_below(trng_t *r, unsigned n) { return (unsigned)(trng_next(r) % n); }

/* ---- the hang watchdog -------------------------------------------------- */

/* Run fn((void *)0) .. fn((void *)(n - 1)) in n threads and join them all
   (a macro: with gc.h and GC_THREADS included first, these are
   GC_pthread_create and GC_pthread_join). */
#define T_RUN_THREADS(fn, n)                                                    \
    do {                                                                        \
        pthread_t t_th_[(n)];                                                   \
        for (uintptr_t t_i_ = 0; t_i_ < (n); t_i_++)                            \
            TCHECK(pthread_create(&t_th_[t_i_], NULL, (fn), (void *)t_i_) == 0, \
                   "pthread_create failed");                                    \
        for (uintptr_t t_i_ = 0; t_i_ < (n); t_i_++)                            \
            TCHECK(pthread_join(t_th_[t_i_], NULL) == 0, "pthread_join failed"); \
    } while (0)

static const char *volatile t_stage = "start";

static void t_on_alarm(int sig)
{
    (void)sig;
    const char *s = t_stage;
    static const char msg[] = "FAIL: watchdog: no progress (hang?) in stage: ";
    if (write(2, msg, sizeof msg - 1) < 0 || write(2, s, strlen(s)) < 0 || write(2, "\n", 1) < 0) {
    }
    _exit(1);
}

/* Fails the test if it is still running after `seconds` (a hang). */
static void t_watchdog(unsigned seconds)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = t_on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    alarm(seconds);
}

/* ---- checksummed lists of GC objects ------------------------------------ */

/* A cell of a checksummed list: value derives from (seed, index), check from
   value and index, so a cell that was freed and reused, or overwritten, or
   a list whose links were corrupted, is detected. */
typedef struct tcell {
    struct tcell *next;
    uint64_t value;
    uint64_t check;
} tcell_t;

static inline uint64_t tcell_value(uint64_t seed, size_t i) { return mix64(seed * 1000003u + i); }
static inline uint64_t tcell_check(uint64_t v, size_t i) { return ~v ^ (i * 0x100000001b3ULL); }

/* Builds a list of n cells with GC_MALLOC (the caller includes gc.h). */
#define TLIST_BUILD(head, n, seed)                                              \
    do {                                                                        \
        tcell_t *tl_h_ = NULL;                                                  \
        for (size_t tl_i_ = (n); tl_i_-- > 0;) {                                \
            tcell_t *tl_c_ = (tcell_t *)GC_MALLOC(sizeof(tcell_t));             \
            if (!tl_c_) tfail("GC_MALLOC returned NULL building a list");       \
            tl_c_->next = tl_h_;                                                \
            tl_c_->value = tcell_value((seed), tl_i_);                          \
            tl_c_->check = tcell_check(tl_c_->value, tl_i_);                    \
            tl_h_ = tl_c_;                                                      \
        }                                                                       \
        (head) = tl_h_;                                                         \
    } while (0)

/* 0 if the list holds exactly n intact cells for seed, else the index + 1 of
   the first bad cell. */
static inline size_t tlist_bad(const tcell_t *h, size_t n, uint64_t seed)
{
    size_t i = 0;
    for (; h && i < n; h = h->next, i++) {
        uint64_t v = tcell_value(seed, i);
        if (h->value != v || h->check != tcell_check(v, i)) return i + 1;
    }
    if (h || i != n) return i + 1;
    return 0;
}

static inline void tlist_verify(const tcell_t *h, size_t n, uint64_t seed, const char *what)
{
    size_t bad = tlist_bad(h, n, seed);
    if (bad) tfail("%s: list of %zu cells (seed %llu) corrupted at cell %zu", what, n,
                   (unsigned long long)seed, bad - 1);
}

/* Churn: allocate `count` objects of `bytes` filled with a pattern and drop
   them, so that any wrongly freed memory gets reused and overwritten. */
#define TCHURN(count, bytes)                                                    \
    do {                                                                        \
        for (size_t tc_i_ = 0; tc_i_ < (size_t)(count); tc_i_++) {              \
            unsigned char *tc_p_ = (unsigned char *)GC_MALLOC(bytes);           \
            if (!tc_p_) tfail("GC_MALLOC returned NULL while churning");        \
            memset(tc_p_, 0xA5, (bytes));                                       \
        }                                                                       \
    } while (0)

/* Fill: allocate `count` objects of `bytes`, all live at once (held in a
   GC_MALLOC'd array), filled with a pattern, then drop them: free slots of
   that size class, and free blocks, get handed out and overwritten. */
#define TFILL(count, bytes)                                                     \
    do {                                                                        \
        void **tf_a_ = (void **)GC_MALLOC((size_t)(count) * sizeof(void *));    \
        if (!tf_a_) tfail("GC_MALLOC returned NULL while filling");             \
        for (size_t tf_i_ = 0; tf_i_ < (size_t)(count); tf_i_++) {              \
            tf_a_[tf_i_] = GC_MALLOC(bytes);                                    \
            if (!tf_a_[tf_i_]) tfail("GC_MALLOC returned NULL while filling");  \
            memset(tf_a_[tf_i_], 0xA5, (bytes));                                \
        }                                                                       \
    } while (0)

#endif
