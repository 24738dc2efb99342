/* traceable.cc: traceable_allocator memory is uncollectable and scanned.
 * Containers whose own object lives in malloc'd memory (which the
 * collector neither scans nor frees) keep the collected Nodes they hold
 * alive and intact through many collections; their buffers are never
 * reclaimed although no scanned memory points at them; once the container
 * lets go of the Nodes (known otherwise only to an unscanned malloc'd
 * array) the collector reclaims them. */
#include "cpptest.h"

#include <gc/gc_allocator.h>

#include <map>
#include <new>
#include <vector>

typedef std::vector<Node *, traceable_allocator<Node *> > traced_vector;
typedef std::map<int, Node *, std::less<int>,
                 traceable_allocator<std::pair<const int, Node *> > > traced_map;

static const int N = 20000;

/* Fills the containers; the Nodes are also recorded in `untraced` (malloc'd,
 * invisible to the collector) and in the weak set. */
static NOINLINE void fill(traced_vector *v, traced_map *m, Node **untraced, weak_set &nodes)
{
    for (int i = 0; i < N; i++) {
        Node *n = new Node((uint64_t)i);
        untraced[i] = n;
        nodes.watch(n);
        if (i % 2) v->push_back(n);
        else (*m)[i] = n;
        if (i % 5000 == 0) {
            churn(10000);
            collect_rounds(1);
        }
    }
}

static NOINLINE void check_intact(Node **untraced)
{
    for (int i = 0; i < N; i++)
        CHECKF(untraced[i]->intact((uint64_t)i), "node %d reclaimed or overwritten", i);
}

static NOINLINE void release(traced_vector *v, traced_map *m)
{
    traced_vector().swap(*v);
    m->clear();
}

int main(void)
{
    GC_INIT();
    /* The container objects themselves: in memory the collector ignores. */
    void *vmem = malloc(sizeof(traced_vector)), *mmem = malloc(sizeof(traced_map));
    Node **untraced = static_cast<Node **>(malloc(N * sizeof(Node *)));
    CHECK(vmem && mmem && untraced);
    traced_vector *v = new (vmem) traced_vector();
    traced_map *m = new (mmem) traced_map();
    weak_set nodes(N);

    fill(v, m, untraced, nodes);
    CHECK(GC_base(&(*v)[0]) != NULL);           /* in the collector's heap */
    CHECK(kind_of(&(*v)[0]) != GC_I_PTRFREE);
    for (int r = 0; r < 8; r++) {
        churn(20000);
        collect_rounds(1);
    }
    CHECK_EQ(nodes.alive(), N);
    check_intact(untraced);
    CHECK_EQ(v->size(), N / 2);
    CHECK_EQ(m->size(), N / 2);
    for (int i = 0; i < N; i += 2) CHECK((*m)[i] == untraced[i]);
    printf("ok: %d nodes held only by traceable containers survive 8 collections\n", N);

    /* Let go: now only the unscanned array knows the nodes. */
    release(v, m);
    collect_rounds(4);
    size_t alive = nodes.alive();
    CHECKF(alive * 10 <= (size_t)N, "%zu of %d nodes still alive after the containers let go",
           alive, N);
    printf("ok: released nodes reclaimed (%zu of %d left)\n", alive, N);

    v->~traced_vector();
    m->~traced_map();
    free(vmem);
    free(mmem);
    free(untraced);
    printf("PASS traceable\n");
    return 0;
}
