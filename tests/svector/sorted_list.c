/* svector.sorted_list: individually allocated structures and elements of
 * structure vectors are the same kind of value. 29,982 nodes of one type
 * {key, next (pointer), payload} -- a third of them structures, the rest
 * elements of vectors of 1, 7, 256, 4096 and 196,608 elements (the last one
 * > 2 MiB; only every 16th of its elements is used) -- are linked into one
 * list sorted by key through the next field. The list head is the only root.
 * After collections with churn the list is traversed: keys strictly
 * increasing, every node of the type, payload matching its key, the count
 * of structures and of each vector's elements as built. Then every third
 * node is unlinked and 1,000 new nodes (new structures and elements of a
 * new vector) are inserted in order, and the list is checked again.
 *
 * selfcheck-swap swaps two adjacent keys before a traversal: it must FAIL
 * with "not strictly increasing". */
#include <gc.h>
#include <bibop.h>

#include "svcommon.h"

#define F_KEY 0
#define F_NEXT 1
#define F_PAYLOAD 2

#define NSTRUCTS 13334
#define BIG_N ((size_t)196608)
#define BIG_STRIDE 16
#define NINSERT 1000

static const bibop_struct_type *NODE;
static const size_t vec_sizes[] = { 1, 7, 256, 4096, BIG_N };
#define NVEC (sizeof vec_sizes / sizeof vec_sizes[0])

static void *volatile head;            /* the list: the only root of the nodes */
static sv_links vec_links;

static unsigned long payload_of(unsigned long key) { return (unsigned long)sv_mix(key ^ 0xabcdef); }

static unsigned long key_of(void *node) { return bibop_field_get(node, F_KEY); }
static void *next_of(void *node) { return (void *)bibop_field_get(node, F_NEXT); }

static int by_key(const void *a, const void *b)
{
    unsigned long ka = key_of(*(void *const *)a), kb = key_of(*(void *const *)b);
    return ka < kb ? -1 : ka > kb;
}

/* Which allocation a node belongs to: 0 for a structure, 1 + v for an
   element of vector v (NVEC + 1 for the vector of inserted nodes). */
static size_t origin_of(void *node)
{
    unsigned long *base = GC_base(node);
    if (base + 1 == (unsigned long *)node) return 0;
    for (size_t v = 0; v <= NVEC; v++)
        if (vec_links.cells[v] == base) return 1 + v;
    return (size_t)-1;
}

static void init_node(void *node, unsigned long key)
{
    bibop_field_set(node, F_KEY, key);
    bibop_field_set(node, F_PAYLOAD, payload_of(key));
}

static size_t expected[NVEC + 2];   /* nodes per origin in the list */
static unsigned long next_key_seed = 1;
static unsigned long fresh_key(void) { return (unsigned long)sv_mix(next_key_seed++); }

static SV_NOINLINE void build(void)
{
    size_t total = NSTRUCTS;
    for (size_t v = 0; v < NVEC; v++)
        total += vec_sizes[v] == BIG_N ? BIG_N / BIG_STRIDE : vec_sizes[v];
    void **all = GC_MALLOC(total * sizeof(void *));   /* scanned; dropped after linking */
    SV_CHECK(all != NULL, "array");
    size_t k = 0;
    vec_links = sv_links_new(NVEC + 1);
    /* Interleave structures and vector elements in allocation order. */
    for (size_t s = 0; s < NSTRUCTS; s++) {
        void *node = bibop_struct_new(NODE);
        SV_CHECK(node != NULL, "struct_new");
        init_node(node, fresh_key());
        all[k++] = node;
        expected[0]++;
        if (s < NVEC) {
            unsigned long *vec = bibop_svector_new(NODE, vec_sizes[s]);
            SV_CHECK(vec != NULL, "svector_new(%zu)", vec_sizes[s]);
            sv_links_watch(&vec_links, s, vec);
            size_t stride = vec_sizes[s] == BIG_N ? BIG_STRIDE : 1;
            for (size_t i = 0; i < vec_sizes[s]; i += stride) {
                void *e = bibop_svector_ref(vec, i);
                init_node(e, fresh_key());
                all[k++] = e;
                expected[1 + s]++;
            }
        }
    }
    SV_CHECK(k == total, "built %zu nodes, want %zu", k, total);
    qsort(all, total, sizeof(void *), by_key);
    for (size_t i = 0; i + 1 < total; i++) bibop_field_set(all[i], F_NEXT, (unsigned long)all[i + 1]);
    head = all[0];
    memset(all, 0, total * sizeof(void *));
}

static SV_NOINLINE void traverse(const char *when, int swap)
{
    size_t count[NVEC + 2] = { 0 }, n = 0;
    unsigned long prev = 0;
    if (swap) {   /* selfcheck: break the order of two adjacent nodes */
        void *a = head, *b = next_of(a);
        unsigned long ka = key_of(a);
        init_node(a, key_of(b));
        init_node(b, ka);
    }
    for (void *node = head; node; node = next_of(node), n++) {
        SV_CHECK(bibop_is_instance(node, NODE), "%s: node %zu (%p) has type %p, want %p", when, n,
                 node, (void *)bibop_type_of(node), (void *)NODE);
        unsigned long key = key_of(node);
        SV_CHECK(n == 0 || key > prev, "%s: keys not strictly increasing at node %zu: %#lx after "
                 "%#lx", when, n, key, prev);
        SV_CHECK(bibop_field_get(node, F_PAYLOAD) == payload_of(key),
                 "%s: node %zu: payload %#lx, want %#lx", when, n,
                 bibop_field_get(node, F_PAYLOAD), payload_of(key));
        size_t o = origin_of(node);
        SV_CHECK(o <= NVEC + 1, "%s: node %zu (%p) is neither a structure nor an element of a "
                 "known vector (object %p)", when, n, node, GC_base(node));
        count[o]++;
        prev = key;
    }
    for (size_t o = 0; o <= NVEC + 1; o++)
        SV_CHECK(count[o] == expected[o], "%s: %zu nodes from origin %zu, want %zu", when,
                 count[o], o, expected[o]);
    printf("%s: %zu nodes in order\n", when, n);
}

/* Unlink every third node. */
static SV_NOINLINE void unlink_thirds(void)
{
    size_t i = 0;
    void *prev = NULL;
    for (void *node = head; node; i++) {
        void *next = next_of(node);
        if (i % 3 == 2) {
            bibop_field_set(prev, F_NEXT, (unsigned long)next);
            expected[origin_of(node)]--;
        } else {
            prev = node;
        }
        node = next;
    }
}

static void insert_sorted(void *node)
{
    unsigned long key = key_of(node);
    if (!head || key < key_of(head)) {
        bibop_field_set(node, F_NEXT, (unsigned long)head);
        head = node;
        return;
    }
    void *p = head;
    while (next_of(p) && key_of(next_of(p)) < key) p = next_of(p);
    bibop_field_set(node, F_NEXT, (unsigned long)next_of(p));
    bibop_field_set(p, F_NEXT, (unsigned long)node);
}

static SV_NOINLINE void insert_new(void)
{
    unsigned long *vec = bibop_svector_new(NODE, NINSERT / 2);
    SV_CHECK(vec != NULL, "svector_new");
    sv_links_watch(&vec_links, NVEC, vec);
    for (size_t i = 0; i < NINSERT; i++) {
        void *node = i % 2 ? bibop_struct_new(NODE) : bibop_svector_ref(vec, i / 2);
        SV_CHECK(node != NULL, "new node %zu", i);
        init_node(node, fresh_key());
        insert_sorted(node);
        expected[i % 2 ? 0 : 1 + NVEC]++;
        if (i % 500 == 499) GC_gcollect();
    }
}

int main(int argc, char **argv)
{
    int swap = argc > 1 && strcmp(argv[1], "selfcheck-swap") == 0;
    if (argc > 1 && !swap) {
        fprintf(stderr, "usage: %s [selfcheck-swap]\n", argv[0]);
        return 2;
    }
    GC_INIT();
    unsigned long bits[1] = { 1UL << F_NEXT };
    NODE = bibop_struct_type_new("node", 3, bits);
    SV_CHECK(NODE != NULL, "type");
    build();
    sv_collect_and_churn(3, NODE);
    traverse("after building and collections", swap);
    unlink_thirds();
    sv_collect_and_churn(2, NODE);
    traverse("after unlinking every third node", 0);
    insert_new();
    sv_collect_and_churn(2, NODE);
    traverse("after inserting new nodes", 0);
    printf("svector.sorted_list: ok\n");
    return 0;
}
