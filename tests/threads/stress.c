/* stress.c: many threads allocating at once, stopped and restarted by
 * hundreds of collections, must never lose or corrupt a reachable object.
 * 8 mutator threads each keep a long-lived binary tree and list plus a
 * rotating set of trees and lists (GC_MALLOC nodes, GC_MALLOC_ATOMIC
 * payloads, every word checksummed, held only on the thread's stack) and
 * verify everything they hold after each step; a creator thread keeps
 * creating short-lived threads that allocate a little and end in four ways
 * (joined, detached, pthread_exit from a nested function, cancelled at a
 * cancellation point: pthread_testcancel, or nanosleep with argument 2
 * "cancel-in-syscall", see cancel_in_syscall.c); GC_gcollect() comes from
 * the main thread, the creator and half of the mutators. It runs until
 * GC_get_gc_no() has advanced by at least 200 (argument 1 overrides) and
 * every thread did a minimum of work; a time cap fails the test if that is
 * not reached. At the end the long-lived structures, handed to the main
 * thread through static roots, are verified once more after a final
 * collection. */
#define _GNU_SOURCE
#include <gc.h>

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <time.h>

#include "tcommon.h"

#define N_MUTATORS 8
#define N_HELD 6
#define LONG_TREE_DEPTH 10
#define LONG_LIST_LEN 4000
#define MIN_MUTATOR_STEPS 3000
#define MIN_CHILDREN_PER_MODE 300
#define MAX_LIVE_DETACHED 8
#define TIME_CAP_SECONDS 100

/* ---- checksummed binary trees ------------------------------------------- */

typedef struct tnode {
    struct tnode *left, *right;
    uint64_t key, check;
    uint64_t *payload;   /* GC_MALLOC_ATOMIC, payload_len(key) words, or NULL */
} tnode_t;

static uint64_t node_key(uint64_t seed, uint64_t index) { return mix64(seed ^ (index * 0x9e3779b97f4a7c15ULL)); }
static size_t payload_len(uint64_t key) { return (key & 3) == 0 ? 1 + (size_t)(key >> 8) % 40 : 0; }

/* Preorder: a node takes its index before its children. */
static tnode_t *tree_build(unsigned depth, uint64_t seed, uint64_t *index)
{
    if (depth == 0) return NULL;
    tnode_t *n = GC_MALLOC(sizeof *n);
    if (!n) tfail("GC_MALLOC returned NULL building a tree");
    n->key = node_key(seed, (*index)++);
    n->check = ~n->key;
    size_t len = payload_len(n->key);
    if (len) {
        uint64_t *p = GC_MALLOC_ATOMIC(len * sizeof *p);
        if (!p) tfail("GC_MALLOC_ATOMIC returned NULL");
        for (size_t j = 0; j < len; j++) p[j] = mix64(n->key + j);
        n->payload = p;
    }
    n->left = tree_build(depth - 1, seed, index);
    n->right = tree_build(depth - 1, seed, index);
    return n;
}

/* Checks a subtree against its seed in preorder; fails on the first bad word. */
static void tree_verify_rec(const tnode_t *n, unsigned depth, uint64_t seed, uint64_t *index,
                            const char *who)
{
    if (depth == 0) {
        if (n) tfail("%s: tree (seed %llu) has a node below its depth", who, (unsigned long long)seed);
        return;
    }
    if (!n) tfail("%s: tree (seed %llu) lost node %llu", who, (unsigned long long)seed,
                  (unsigned long long)*index);
    uint64_t key = node_key(seed, *index);
    if (n->key != key || n->check != ~key)
        tfail("%s: tree (seed %llu) node %llu corrupted: key %016llx check %016llx, expected %016llx",
              who, (unsigned long long)seed, (unsigned long long)*index, (unsigned long long)n->key,
              (unsigned long long)n->check, (unsigned long long)key);
    size_t len = payload_len(key);
    if ((len == 0) != (n->payload == NULL))
        tfail("%s: tree (seed %llu) node %llu payload pointer wrong", who, (unsigned long long)seed,
              (unsigned long long)*index);
    for (size_t j = 0; j < len; j++)
        if (n->payload[j] != mix64(key + j))
            tfail("%s: tree (seed %llu) node %llu payload word %zu corrupted", who,
                  (unsigned long long)seed, (unsigned long long)*index, j);
    (*index)++;
    tree_verify_rec(n->left, depth - 1, seed, index, who);
    tree_verify_rec(n->right, depth - 1, seed, index, who);
}

static void tree_verify(const tnode_t *n, unsigned depth, uint64_t seed, const char *who)
{
    uint64_t index = 0;
    tree_verify_rec(n, depth, seed, &index, who);
}

/* ---- shared state --------------------------------------------------------- */

static atomic_int g_stop;
static atomic_long g_steps[N_MUTATORS];
static atomic_long g_children[4];          /* completed, per way of ending */
static atomic_long g_cleanups;             /* cancellation cleanup handlers run */
static atomic_int g_live_detached;
static atomic_long g_explicit_gcs;
static int g_cancel_in_syscall;            /* option: cancel inside nanosleep */

/* Handed over at the end; static data is a root. */
static tnode_t *g_final_tree[N_MUTATORS];
static tcell_t *g_final_list[N_MUTATORS];

static void explicit_gc(void)
{
    GC_gcollect();
    atomic_fetch_add(&g_explicit_gcs, 1);
}

/* ---- mutators --------------------------------------------------------------- */

struct held {
    void *ptr;          /* tnode_t * or tcell_t * */
    uint64_t seed;
    unsigned size;      /* tree depth or list length */
    int is_tree;
};

static void verify_held(const struct held *h, const char *who)
{
    if (h->is_tree) tree_verify(h->ptr, h->size, h->seed, who);
    else tlist_verify(h->ptr, h->size, h->seed, who);
}

static void *mutator(void *arg)
{
    int id = (int)(intptr_t)arg;
    char who[32];
    snprintf(who, sizeof who, "mutator %d", id);
    trng_t rng = { 0x5eed0000u + (uint64_t)id * 7919 };

    uint64_t long_seed = 1000 + (uint64_t)id;
    uint64_t idx = 0;
    tnode_t *long_tree = tree_build(LONG_TREE_DEPTH, long_seed, &idx);
    tcell_t *long_list;
    TLIST_BUILD(long_list, LONG_LIST_LEN, long_seed);

    struct held held[N_HELD];
    memset(held, 0, sizeof held);
    uint64_t next_seed = ((uint64_t)id + 1) << 40;

    for (long step = 0; !atomic_load(&g_stop); step++) {
        struct held *h = &held[trng_below(&rng, N_HELD)];
        h->ptr = NULL;                          /* drop it: garbage from now on */
        h->seed = next_seed++;
        h->is_tree = (int)trng_below(&rng, 2);
        if (h->is_tree) {
            h->size = 3 + trng_below(&rng, 7);  /* 7 to 511 nodes */
            uint64_t i = 0;
            h->ptr = tree_build(h->size, h->seed, &i);
        } else {
            h->size = 1 + trng_below(&rng, 2000);
            tcell_t *l;
            TLIST_BUILD(l, h->size, h->seed);
            h->ptr = l;
        }
        /* Some garbage of assorted sizes, including large objects. */
        unsigned junk = trng_below(&rng, 8);
        for (unsigned j = 0; j < junk; j++) {
            size_t bytes = j == 0 && trng_below(&rng, 8) == 0 ? 5000 + trng_below(&rng, 60000)
                                                               : 8 + trng_below(&rng, 300);
            char *p = GC_MALLOC_ATOMIC(bytes);
            if (!p) tfail("%s: GC_MALLOC_ATOMIC(%zu) returned NULL", who, bytes);
            memset(p, 0x5A, bytes);
        }
        tree_verify(long_tree, LONG_TREE_DEPTH, long_seed, who);
        tlist_verify(long_list, LONG_LIST_LEN, long_seed, who);
        for (int k = 0; k < N_HELD; k++)
            if (held[k].ptr) verify_held(&held[k], who);
        if (id % 2 == 0 && step % 64 == 63) explicit_gc();
        atomic_fetch_add(&g_steps[id], 1);
    }
    for (int k = 0; k < N_HELD; k++)
        if (held[k].ptr) verify_held(&held[k], who);
    tree_verify(long_tree, LONG_TREE_DEPTH, long_seed, who);
    tlist_verify(long_list, LONG_LIST_LEN, long_seed, who);
    g_final_tree[id] = long_tree;
    g_final_list[id] = long_list;
    return NULL;
}

/* ---- short-lived children ----------------------------------------------------- */

enum { JOINED, DETACHED, EXITED, CANCELLED };

struct child_arg {            /* GC_MALLOC'd by the creator */
    uint64_t seed;
    sem_t *ready;             /* CANCELLED: posted once the child holds its data */
};

/* Allocates a small list and a tree, verifies them, returns a digest. */
static uint64_t child_work(uint64_t seed, tcell_t **keep_list, tnode_t **keep_tree)
{
    tcell_t *l;
    size_t n = 20 + seed % 100;
    TLIST_BUILD(l, n, seed);
    uint64_t i = 0;
    tnode_t *t = tree_build(4, seed, &i);
    tlist_verify(l, n, seed, "child");
    tree_verify(t, 4, seed, "child");
    *keep_list = l;
    *keep_tree = t;
    return mix64(seed) ^ n;
}

static void *child_joined(void *p)
{
    struct child_arg *a = p;
    tcell_t *l;
    tnode_t *t;
    uint64_t d = child_work(a->seed, &l, &t);
    return (void *)(uintptr_t)(d | 1);
}

static void *child_detached(void *p)
{
    struct child_arg *a = p;
    tcell_t *l;
    tnode_t *t;
    child_work(a->seed, &l, &t);
    atomic_fetch_sub(&g_live_detached, 1);
    atomic_fetch_add(&g_children[DETACHED], 1);
    return NULL;
}

/* pthread_exit from `depth` frames down, each frame holding a list. */
static void exit_from_depth(int depth, uint64_t seed, tcell_t *outer, size_t outer_n)
{
    tcell_t *mine;
    TLIST_BUILD(mine, 10 + (size_t)depth, seed + 77 + (uint64_t)depth);
    if (depth > 0) exit_from_depth(depth - 1, seed, outer, outer_n);
    tlist_verify(mine, 10 + (size_t)depth, seed + 77 + (uint64_t)depth, "exiting child");
    tlist_verify(outer, outer_n, seed, "exiting child");
    if (depth == 0) pthread_exit((void *)(uintptr_t)(mix64(seed) | 1));
}

static void *child_exiting(void *p)
{
    struct child_arg *a = p;
    tcell_t *l;
    tnode_t *t;
    child_work(a->seed, &l, &t);
    exit_from_depth(3, a->seed, l, 20 + a->seed % 100);
    return NULL;   /* the joiner reports this */
}

static void cancel_cleanup(void *p)
{
    (void)p;
    atomic_fetch_add(&g_cleanups, 1);
}

static void *child_cancelled(void *p)
{
    struct child_arg *a = p;
    tcell_t *l;
    tnode_t *t;
    pthread_cleanup_push(cancel_cleanup, NULL);
    child_work(a->seed, &l, &t);
    sem_post(a->ready);
    for (unsigned round = 0;; round++) {
        tlist_verify(l, 20 + a->seed % 100, a->seed, "cancelled child");
        tcell_t *junk;
        TLIST_BUILD(junk, 8, round);
        (void)junk;
        if (g_cancel_in_syscall) {
            struct timespec ts = { 0, 200 * 1000 };
            nanosleep(&ts, NULL);   /* a cancellation point inside a system call */
        } else {
            pthread_testcancel();   /* a cancellation point */
        }
    }
    pthread_cleanup_pop(0);
    return NULL;
}

static void *creator(void *unused)
{
    (void)unused;
    sem_t ready;
    if (sem_init(&ready, 0, 0) != 0) tfail("sem_init");
    for (uint64_t n = 0; !atomic_load(&g_stop); n++) {
        int mode = (int)(n % 4);
        struct child_arg *a = GC_MALLOC(sizeof *a);
        if (!a) tfail("GC_MALLOC returned NULL in the creator");
        a->seed = 0xC0FFEE000000ULL + n;
        a->ready = &ready;
        pthread_t t;
        void *ret = NULL;
        int r;
        switch (mode) {
        case JOINED:
            r = pthread_create(&t, NULL, child_joined, a);
            TCHECK(r == 0, "pthread_create: %d", r);
            a = NULL;
            r = pthread_join(t, &ret);
            TCHECK(r == 0, "pthread_join: %d", r);
            TCHECK((uintptr_t)ret != 0, "joined child returned 0");
            atomic_fetch_add(&g_children[JOINED], 1);
            break;
        case DETACHED:
            while (atomic_load(&g_live_detached) >= MAX_LIVE_DETACHED && !atomic_load(&g_stop)) {
                struct timespec ts = { 0, 1000 * 1000 };
                nanosleep(&ts, NULL);
            }
            atomic_fetch_add(&g_live_detached, 1);
            if (n % 8 == 1) {
                pthread_attr_t attr;
                pthread_attr_init(&attr);
                pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
                r = pthread_create(&t, &attr, child_detached, a);
                pthread_attr_destroy(&attr);
                TCHECK(r == 0, "pthread_create (detached attr): %d", r);
            } else {
                r = pthread_create(&t, NULL, child_detached, a);
                TCHECK(r == 0, "pthread_create: %d", r);
                r = pthread_detach(t);
                TCHECK(r == 0, "pthread_detach: %d", r);
            }
            a = NULL;
            break;
        case EXITED:
            r = pthread_create(&t, NULL, child_exiting, a);
            TCHECK(r == 0, "pthread_create: %d", r);
            a = NULL;
            r = pthread_join(t, &ret);
            TCHECK(r == 0, "pthread_join: %d", r);
            TCHECK(ret == (void *)(uintptr_t)(mix64(0xC0FFEE000000ULL + n) | 1),
                   "pthread_exit value not returned by join: %p", ret);
            atomic_fetch_add(&g_children[EXITED], 1);
            break;
        case CANCELLED: {
            long before = atomic_load(&g_cleanups);
            r = pthread_create(&t, NULL, child_cancelled, a);
            TCHECK(r == 0, "pthread_create: %d", r);
            a = NULL;
            while (sem_wait(&ready) != 0) TCHECK(errno == EINTR, "sem_wait: %d", errno);
            r = pthread_cancel(t);
            TCHECK(r == 0, "pthread_cancel: %d", r);
            r = pthread_join(t, &ret);
            TCHECK(r == 0, "pthread_join: %d", r);
            TCHECK(ret == PTHREAD_CANCELED, "cancelled child returned %p", ret);
            TCHECK(atomic_load(&g_cleanups) == before + 1, "cancellation cleanup handler did not run");
            atomic_fetch_add(&g_children[CANCELLED], 1);
            break;
        }
        }
        if (n % 16 == 15) explicit_gc();
    }
    while (atomic_load(&g_live_detached) > 0) {
        struct timespec ts = { 0, 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    sem_destroy(&ready);
    return NULL;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int enough_work(void)
{
    for (int i = 0; i < N_MUTATORS; i++)
        if (atomic_load(&g_steps[i]) < MIN_MUTATOR_STEPS) return 0;
    for (int m = 0; m < 4; m++)
        if (atomic_load(&g_children[m]) < MIN_CHILDREN_PER_MODE) return 0;
    return 1;
}

int main(int argc, char **argv)
{
    GC_INIT();
    unsigned long target = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
    g_cancel_in_syscall = argc > 2 && strcmp(argv[2], "cancel-in-syscall") == 0;
    t_watchdog(TIME_CAP_SECONDS + 60);
    unsigned long gc0 = (unsigned long)GC_get_gc_no();

    pthread_t muts[N_MUTATORS], cre;
    for (int i = 0; i < N_MUTATORS; i++) {
        int r = pthread_create(&muts[i], NULL, mutator, (void *)(intptr_t)i);
        TCHECK(r == 0, "pthread_create(mutator %d): %d", i, r);
    }
    int r = pthread_create(&cre, NULL, creator, NULL);
    TCHECK(r == 0, "pthread_create(creator): %d", r);

    t_stage = "running";
    double start = now_seconds();
    for (;;) {
        unsigned long done = (unsigned long)GC_get_gc_no() - gc0;
        if (done >= target && enough_work()) break;
        if (now_seconds() - start > TIME_CAP_SECONDS) {
            fprintf(stderr, "time cap reached: %lu collections of %lu; steps:", done, target);
            for (int i = 0; i < N_MUTATORS; i++) fprintf(stderr, " %ld", atomic_load(&g_steps[i]));
            fprintf(stderr, "; children %ld %ld %ld %ld\n", atomic_load(&g_children[0]),
                    atomic_load(&g_children[1]), atomic_load(&g_children[2]), atomic_load(&g_children[3]));
            tfail("stress: not enough progress before the time cap");
        }
        explicit_gc();
        struct timespec ts = { 0, 20 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    t_stage = "stopping";
    atomic_store(&g_stop, 1);
    for (int i = 0; i < N_MUTATORS; i++) {
        r = pthread_join(muts[i], NULL);
        TCHECK(r == 0, "pthread_join(mutator %d): %d", i, r);
    }
    r = pthread_join(cre, NULL);
    TCHECK(r == 0, "pthread_join(creator): %d", r);

    t_stage = "final verification";
    GC_gcollect();
    TCHURN(20000, sizeof(tcell_t));
    GC_gcollect();
    TFILL(50000, sizeof(tcell_t));
    for (int i = 0; i < N_MUTATORS; i++) {
        char who[32];
        snprintf(who, sizeof who, "final, mutator %d", i);
        tree_verify(g_final_tree[i], LONG_TREE_DEPTH, 1000 + (uint64_t)i, who);
        tlist_verify(g_final_list[i], LONG_LIST_LEN, 1000 + (uint64_t)i, who);
    }
    long steps = 0;
    for (int i = 0; i < N_MUTATORS; i++) steps += atomic_load(&g_steps[i]);
    printf("stress: %lu collections (%ld explicit), %ld mutator steps, children joined %ld, "
           "detached %ld, pthread_exit %ld, cancelled %ld\n",
           (unsigned long)GC_get_gc_no() - gc0, atomic_load(&g_explicit_gcs), steps,
           atomic_load(&g_children[JOINED]), atomic_load(&g_children[DETACHED]),
           atomic_load(&g_children[EXITED]), atomic_load(&g_children[CANCELLED]));
    return 0;
}
