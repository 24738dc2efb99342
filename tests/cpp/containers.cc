/* containers.cc: standard containers on gc_allocator and
 * gc_allocator_ignore_off_page (vector, map, list, string).  Collected
 * Nodes referenced only from container memory survive many collections and
 * heavy reuse of freed memory with their contents intact; element buffers
 * are in the collected heap, scanned for pointer elements and pointer-free
 * for the arithmetic types gc_allocator.h declares so; a container object
 * that is itself dropped without being destroyed is reclaimed with its
 * buffer. */
#include "cpptest.h"

#include <gc/gc_allocator.h>

#include <list>
#include <map>
#include <string>
#include <vector>

typedef std::basic_string<char, std::char_traits<char>, gc_allocator<char> > gc_string;
typedef std::vector<Node *, gc_allocator<Node *> > node_vector;

static const int ROUNDS = 8;   /* collections while the containers are live */

static void churn_and_collect(int i)
{
    churn(20000);
    collect_rounds(1);
    (void)i;
}

static gc_string value_text(int i)
{
    char buf[96];
    /* Longer than any small-string buffer: the text lives in the heap. */
    snprintf(buf, sizeof buf, "value %d of the map, long enough to leave the string object", i);
    return gc_string(buf);
}

static NOINLINE void test_vector(void)
{
    const int N = 20000;
    node_vector v;
    for (int i = 0; i < N; i++) {
        v.push_back(new Node((uint64_t)i));
        if (i % 2500 == 0) churn_and_collect(i);
    }
    CHECK_EQ(kind_of(&v[0]), GC_I_NORMAL);
    for (int r = 0; r < ROUNDS; r++) churn_and_collect(r);
    for (int i = 0; i < N; i++)
        CHECKF(v[i]->intact((uint64_t)i), "vector element %d reclaimed or overwritten", i);

    /* Pointer-free elements: never scanned. */
    std::vector<int, gc_allocator<int> > ints(1000, 7);
    std::vector<double, gc_allocator<double> > doubles(1000, 0.5);
    CHECK_EQ(kind_of(&ints[0]), GC_I_PTRFREE);
    CHECK_EQ(kind_of(&doubles[0]), GC_I_PTRFREE);
    for (int i = 0; i < 1000; i++) CHECK(ints[i] == 7 && doubles[i] == 0.5);
    printf("ok: vector<Node *> of %d survives %d collections; arithmetic elements pointer-free\n",
           N, ROUNDS);
}

static NOINLINE void test_ignore_off_page(void)
{
    const int N = 100000;   /* several hundred KiB: a large object */
    std::vector<Node *, gc_allocator_ignore_off_page<Node *> > v;
    v.reserve(N);
    for (int i = 0; i < N; i++) v.push_back(new Node((uint64_t)i));
    std::vector<unsigned long, gc_allocator_ignore_off_page<unsigned long> > words(N, 42ul);
    CHECK_EQ(kind_of(&v[0]), GC_I_NORMAL);
    CHECK_EQ(kind_of(&words[0]), GC_I_PTRFREE);
    for (int r = 0; r < ROUNDS / 2; r++) churn_and_collect(r);
    for (int i = 0; i < N; i++) {
        CHECKF(v[i]->intact((uint64_t)i), "ignore_off_page element %d reclaimed", i);
        CHECK_EQ(words[i], 42);
    }
    printf("ok: gc_allocator_ignore_off_page vector of %d\n", N);
}

static NOINLINE void test_map_and_string(void)
{
    const int N = 5000;
    typedef std::map<int, gc_string, std::less<int>,
                     gc_allocator<std::pair<const int, gc_string> > > text_map;
    typedef std::map<int, Node *, std::less<int>,
                     gc_allocator<std::pair<const int, Node *> > > node_map;
    text_map texts;
    node_map nodes;
    for (int i = 0; i < N; i++) {
        texts[i] = value_text(i);
        nodes[i] = new Node((uint64_t)i);
        if (i % 1000 == 0) churn_and_collect(i);
    }
    CHECK_EQ(kind_of(texts[3].data()), GC_I_PTRFREE);
    for (int r = 0; r < ROUNDS; r++) churn_and_collect(r);
    for (int i = 0; i < N; i += 2) {
        texts.erase(i);
        nodes.erase(i);
    }
    churn_and_collect(0);
    CHECK_EQ(texts.size(), N / 2);
    CHECK_EQ(nodes.size(), N / 2);
    for (int i = 1; i < N; i += 2) {
        CHECKF(texts[i] == value_text(i), "map text %d is \"%s\"", i, texts[i].c_str());
        CHECKF(nodes[i]->intact((uint64_t)i), "map node %d reclaimed", i);
    }

    gc_string big;
    for (int i = 0; i < 20000; i++) {
        big += (char)('a' + i % 26);
        if (i % 5000 == 0) churn_and_collect(i);
    }
    for (int r = 0; r < ROUNDS / 2; r++) churn_and_collect(r);
    CHECK_EQ(big.size(), 20000);
    for (int i = 0; i < 20000; i++) CHECK(big[i] == (char)('a' + i % 26));
    CHECK_EQ(kind_of(big.data()), GC_I_PTRFREE);
    printf("ok: map<int, gc_string>, map<int, Node *> and a 20000-char gc_string\n");
}

static NOINLINE void test_list(void)
{
    const int N = 10000;
    std::list<Node *, gc_allocator<Node *> > l;
    for (int i = 0; i < N; i++) {
        l.push_back(new Node((uint64_t)i));
        if (i % 2500 == 0) churn_and_collect(i);
    }
    for (int r = 0; r < ROUNDS; r++) churn_and_collect(r);
    int i = 0;
    for (std::list<Node *, gc_allocator<Node *> >::iterator it = l.begin(); it != l.end(); ++it, ++i)
        CHECKF((*it)->intact((uint64_t)i), "list element %d reclaimed", i);
    CHECK_EQ(i, N);
    printf("ok: list<Node *> of %d\n", N);
}

/* Containers that are themselves collected objects, dropped without being
 * destroyed: both the container and its buffer are garbage. */
static NOINLINE void make_dropped_vectors(weak_set &buffers, weak_set &vectors, int n)
{
    for (int i = 0; i < n; i++) {
        node_vector *v = new (UseGC) node_vector(64, (Node *)NULL);
        vectors.watch(v);
        buffers.watch(&(*v)[0]);
    }
}

static NOINLINE void test_dropped_containers(void)
{
    const int N = 200;
    weak_set buffers(N), vectors(N);
    make_dropped_vectors(buffers, vectors, N);
    collect_rounds(4);
    size_t b = buffers.alive(), v = vectors.alive();
    CHECKF(b * 10 <= (size_t)N, "%zu of %d dropped vector buffers still alive", b, N);
    CHECKF(v * 10 <= (size_t)N, "%zu of %d dropped vector objects still alive", v, N);

    /* A live container object in the collected heap keeps its buffer. */
    node_vector *kept = new (UseGC) node_vector();
    for (int i = 0; i < 1000; i++) kept->push_back(new Node((uint64_t)i));
    for (int r = 0; r < 4; r++) churn_and_collect(r);
    for (int i = 0; i < 1000; i++) CHECK((*kept)[i]->intact((uint64_t)i));
    printf("ok: dropped containers reclaimed (%zu/%d buffers, %zu/%d objects left)\n", b, N, v, N);
}

int main(void)
{
    GC_INIT();
    test_vector();
    test_ignore_off_page();
    test_map_and_string();
    test_list();
    test_dropped_containers();
    printf("PASS containers\n");
    return 0;
}
