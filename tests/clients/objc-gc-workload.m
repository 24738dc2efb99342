/* A workload for the GNU Objective-C runtime's garbage-collected variant
 * (libobjc_gc.so.4), run by tests/clients/objc.sh on stock libgc1 and on
 * bibop; everything it prints is deterministic.
 *
 * libobjc_gc allocates every instance with GC_malloc_explicitly_typed and
 * the descriptor GC_make_descriptor built from the class's instance
 * variables (pointer ivars are scanned, the others are not, and neither
 * are ivars made invisible with class_ivar_set_gcinvisible), and its own
 * tables and the runtime's objc_malloc / objc_atomic_malloc / objc_realloc
 * memory with GC_malloc, GC_malloc_atomic and GC_realloc.  The program:
 *   1. binary trees of Node objects (a bitmap descriptor: pointer ivars
 *      between scalar ones), one long-lived, many short-lived;
 *   2. a list of Pair objects (a length descriptor: pointers first) holding
 *      Str objects whose characters are objc_atomic_malloc'd and grown with
 *      objc_realloc, in a growable Vec (objc_malloc / objc_realloc);
 *   3. chains of Big objects, 77 words with pointers at words 71 and 76 (a
 *      descriptor too long for a bitmap: libgc's extended, typed one);
 *   4. Blob objects with indexed ivars (class_createInstance's extra bytes,
 *      not scanned) holding numbers, and object_copy of a tree;
 *   5. a class built at run time (objc_allocateClassPair, class_addIvar,
 *      objc_registerClassPair) with a gc-invisible ivar;
 *   6. weak (gc-invisible) ivars, and addresses stored in a Big's scalar
 *      words, watched by disappearing links registered with libgc: links to
 *      objects that are also strongly referenced must never be cleared,
 *      and most of those to objects referenced only through invisible or
 *      scalar ivars must be (a collector that scanned them conservatively
 *      would clear none); the exact number depends on the stack, so only
 *      whether it is at least 90% is printed.
 * Explicit GC_gcollect calls separate the phases; every structure kept
 * across them is checked again after the collection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <objc/runtime.h>
#include <objc/NXConstStr.h>
#include <gc.h>

#define NOINLINE __attribute__((noinline))

/* ---- root class ---------------------------------------------------- */

__attribute__ ((objc_root_class))
@interface Root
{
    Class isa;
}
+ (id) alloc;
+ (id) new;
+ (Class) class;
- (id) init;
- (Class) class;
- (const char *) name;
@end

@implementation Root
+ (id) alloc { return class_createInstance (self, 0); }
+ (id) new { return [[self alloc] init]; }
+ (Class) class { return self; }
- (id) init { return self; }
- (Class) class { return object_getClass (self); }
- (const char *) name { return class_getName (object_getClass (self)); }
@end

/* ---- 1. trees ------------------------------------------------------- */

@interface Node : Root
{
@public
    long key;
    Node *left;
    double weight;
    Node *right;
    unsigned char depth;
}
+ (Node *) treeOfDepth: (int) d key: (long) k;
- (long) check;
- (long) count;
@end

@implementation Node
+ (Node *) treeOfDepth: (int) d key: (long) k
{
    Node *n = [Node new];
    n->key = k;
    n->weight = k * 0.25;
    n->depth = (unsigned char) d;
    if (d > 0) {
        n->left = [Node treeOfDepth: d - 1 key: 2 * k];
        n->right = [Node treeOfDepth: d - 1 key: 2 * k + 1];
    }
    return n;
}
- (long) check
{
    long c = key + (long) (weight * 4) + depth;
    if (left)
        c += [left check] - [right check] / 2;
    return c;
}
- (long) count
{
    return 1 + (left ? [left count] : 0) + (right ? [right count] : 0);
}
@end

/* ---- 2. strings, pairs, vectors --------------------------------------- */

@interface Str : Root
{
@public
    char *chars;               /* objc_atomic_malloc'd */
    long length;
    unsigned long hash;
}
+ (Str *) withNumber: (long) n;
- (void) append: (const char *) s;
- (unsigned long) rehash;
@end

@implementation Str
+ (Str *) withNumber: (long) n
{
    Str *s = [Str new];
    char tmp[64];
    s->length = snprintf (tmp, sizeof tmp, "item-%ld-%ld", n, (n * n) % 9973);
    s->chars = objc_atomic_malloc (s->length + 1);
    memcpy (s->chars, tmp, s->length + 1);
    s->hash = [s rehash];
    return s;
}
- (void) append: (const char *) s
{
    long n = strlen (s);
    chars = objc_realloc (chars, length + n + 1);
    memcpy (chars + length, s, n + 1);
    length += n;
    hash = [self rehash];
}
- (unsigned long) rehash
{
    unsigned long h = 14695981039346656037UL;
    long i;
    for (i = 0; i < length; i++)
        h = (h ^ (unsigned char) chars[i]) * 1099511628211UL;
    return h;
}
@end

@interface Pair : Root
{
@public
    id car;
    Pair *cdr;
    long index;
}
@end
@implementation Pair
@end

@interface Vec : Root
{
@public
    id *items;                 /* objc_malloc'd, grown with objc_realloc */
    long count;
    long capacity;
}
- (void) push: (id) x;
- (id) at: (long) i;
@end

@implementation Vec
- (id) init
{
    capacity = 4;
    items = objc_malloc (capacity * sizeof (id));
    return self;
}
- (void) push: (id) x
{
    if (count == capacity) {
        capacity *= 2;
        items = objc_realloc (items, capacity * sizeof (id));
    }
    items[count++] = x;
}
- (id) at: (long) i { return items[i]; }
@end

/* ---- 3. big objects --------------------------------------------------- */

@interface Big : Root
{
@public
    long data[70];
    Big *link;
    long more[4];
    Str *label;
}
@end
@implementation Big
@end

/* ---- 4. indexed ivars --------------------------------------------------- */

@interface Blob : Root
{
@public
    long n;
}
+ (Blob *) withCount: (long) count seed: (long) seed;
- (long *) values;
- (long) sum;
@end

@implementation Blob
+ (Blob *) withCount: (long) count seed: (long) seed
{
    Blob *b = class_createInstance (self, count * sizeof (long));
    long i, *v;
    b->n = count;
    v = object_getIndexedIvars (b);
    for (i = 0; i < count; i++)
        v[i] = seed * 31 + i * i;
    return b;
}
- (long *) values { return object_getIndexedIvars (self); }
- (long) sum
{
    long s = 0, i, *v = [self values];
    for (i = 0; i < n; i++)
        s += v[i] ^ i;
    return s;
}
@end

/* ---- 6. weak cells ------------------------------------------------------ */

@interface WeakCell : Root
{
@public
    id strong;
    long tag;
    id weak;                   /* made gc-invisible in main */
}
@end
@implementation WeakCell
@end

/* ---- phases ------------------------------------------------------------- */

static long checked = 0;       /* consistency checks passed */
static long failures = 0;

static void expect (int ok, const char *what, long i)
{
    if (ok)
        checked++;
    else if (failures++ < 10)
        printf ("MISMATCH: %s (%ld)\n", what, i);
}

static Node *long_lived;

NOINLINE static void phase_trees (void)
{
    long total = 0, nodes = 0;
    int round;
    long_lived = [Node treeOfDepth: 16 key: 1];
    for (round = 0; round < 60; round++) {
        Node *t = [Node treeOfDepth: 10 + round % 5 key: round + 3];
        total += [t check];
        nodes += [t count];
    }
    printf ("trees: 60 short-lived, %ld nodes, check %ld\n", nodes, total);
    printf ("long-lived tree: %ld nodes, check %ld\n", [long_lived count], [long_lived check]);
}

static Vec *pairs_vec;
static unsigned long pairs_hash;

NOINLINE static void phase_pairs (void)
{
    Pair *list = nil;
    long i;
    unsigned long h = 0;
    pairs_vec = [Vec new];
    for (i = 0; i < 120000; i++) {
        Pair *p = [Pair new];
        Str *s = [Str withNumber: i];
        if (i % 7 == 0)
            [s append: "-seven"];
        if (i % 11 == 0)
            [s append: "-and-eleven-and-a-longer-suffix-to-grow-the-buffer"];
        p->car = s;
        p->cdr = list;
        p->index = i;
        list = p;
        if (i % 3 == 0)
            [pairs_vec push: p];
        h = h * 31 + s->hash;
        if (i % 2 == 1)      /* garbage: strings dropped at once */
            (void) [Str withNumber: -i];
    }
    pairs_hash = h;
    /* keep the list only through the vector's first element's chain */
    [pairs_vec push: list];
    printf ("pairs: 120000, %ld in the vector (capacity %ld), hash %016lx\n", pairs_vec->count,
            pairs_vec->capacity, h);
}

NOINLINE static void check_pairs (void)
{
    Pair *p = [pairs_vec at: pairs_vec->count - 1];
    long i = 119999, n = 0, bad = 0;
    unsigned long h = 0;
    Vec *order = [Vec new];
    /* walk the list (newest first), then hash oldest first */
    for (; p; p = p->cdr, i--) {
        Str *s = p->car;
        if (p->index != i || [s rehash] != s->hash)
            bad++;
        [order push: s];
        n++;
    }
    for (i = order->count - 1; i >= 0; i--)
        h = h * 31 + ((Str *) [order at: i])->hash;
    for (i = 0; i + 1 < pairs_vec->count; i++) {
        Pair *q = [pairs_vec at: i];
        if (q->index != 3 * i)
            bad++;
    }
    expect (bad == 0 && n == 120000 && h == pairs_hash, "pairs after collection", bad);
    printf ("pairs after collection: %ld, hash %016lx, %ld bad\n", n, h, bad);
    {
        Str *s = ((Pair *) [pairs_vec at: 0])->car;
        printf ("first string: %s (%ld bytes)\n", s->chars, s->length);
        s = ((Pair *) [pairs_vec at: 4])->car;
        printf ("fifth kept string: %s\n", s->chars);
    }
}

static Big *big_chain;

NOINLINE static void phase_big (void)
{
    long i, j, sum = 0;
    Big *prev = nil;
    for (i = 0; i < 6000; i++) {
        Big *b = [Big new];
        for (j = 0; j < 70; j++)
            b->data[j] = i * 70 + j;
        for (j = 0; j < 4; j++)
            b->more[j] = -i - j;
        b->label = [Str withNumber: i * 1000];
        b->link = prev;
        prev = b;
        if (i % 2 == 0) {    /* garbage of the same kind */
            Big *g = [Big new];
            g->link = b;
            g->data[0] = i;
        }
    }
    big_chain = prev;
    for (; prev; prev = prev->link)
        sum += prev->data[69] + prev->more[3];
    printf ("big: 6000 chained, sum %ld\n", sum);
}

NOINLINE static void check_big (void)
{
    long i = 5999, bad = 0, n = 0;
    Big *b;
    for (b = big_chain; b; b = b->link, i--, n++) {
        long j;
        for (j = 0; j < 70; j++)
            if (b->data[j] != i * 70 + j)
                bad++;
        for (j = 0; j < 4; j++)
            if (b->more[j] != -i - j)
                bad++;
        if ([b->label rehash] != b->label->hash || b->label->length < 6)
            bad++;
    }
    expect (bad == 0 && n == 6000, "big after collection", bad);
    printf ("big after collection: %ld, %ld bad, last label %s\n", n, bad, big_chain->label->chars);
}

static Vec *blobs;
static Node *copied;

NOINLINE static void phase_blobs_and_copies (void)
{
    long i, s = 0;
    blobs = [Vec new];
    for (i = 0; i < 20000; i++) {
        Blob *b = [Blob withCount: 1 + i % 61 seed: i];
        if (i % 4 == 0)
            [blobs push: b];
        s += [b sum];
    }
    printf ("blobs: 20000, %ld kept, sum %ld, instance size %ld\n", blobs->count, s,
            (long) class_getInstanceSize ([Blob class]));
    /* object_copy: a shallow copy of each node of a small tree, relinked */
    {
        Node *orig = [Node treeOfDepth: 8 key: 5];
        Vec *stack = [Vec new];
        Node *c = object_copy (orig, 0);
        [stack push: c];
        while (stack->count > 0) {
            Node *n = stack->items[--stack->count];
            n->key += 1000000;
            if (n->left) {
                n->left = object_copy (n->left, 0);
                n->right = object_copy (n->right, 0);
                [stack push: n->left];
                [stack push: n->right];
            }
        }
        copied = c;
        printf ("copies: %ld nodes, check %ld, original check %ld\n", [c count], [c check], [orig check]);
    }
}

NOINLINE static void check_blobs (void)
{
    long i, bad = 0;
    for (i = 0; i < blobs->count; i++) {
        Blob *b = [blobs at: i];
        long k = 4 * i, j, *v = [b values];
        if (b->n != 1 + k % 61)
            bad++;
        for (j = 0; j < b->n; j++)
            if (v[j] != k * 31 + j * j)
                bad++;
    }
    expect (bad == 0, "blobs after collection", bad);
    printf ("blobs after collection: %ld, %ld bad; copies check %ld\n", blobs->count, bad, [copied check]);
}

/* ---- 5. a class made at run time ------------------------------------- */

static Class Dyn;
static Ivar dyn_next, dyn_value, dyn_shadow;
static id dyn_head;

static long dyn_get_value (id o) { return *(long *) ((char *) o + ivar_getOffset (dyn_value)); }

NOINLINE static void phase_dynamic (void)
{
    unsigned int n, i;
    Ivar *list;
    long k;
    id prev = nil, all[64];
    Dyn = objc_allocateClassPair (objc_getClass ("Root"), "DynLink", 0);
    if (!Dyn
        || !class_addIvar (Dyn, "next", sizeof (id), 3, @encode (id))
        || !class_addIvar (Dyn, "value", sizeof (long), 3, @encode (long))
        || !class_addIvar (Dyn, "shadow", sizeof (id), 3, @encode (id))) {
        printf ("cannot build class DynLink\n");
        exit (3);
    }
    objc_registerClassPair (Dyn);
    class_ivar_set_gcinvisible (Dyn, "shadow", YES);
    dyn_next = class_getInstanceVariable (Dyn, "next");
    dyn_value = class_getInstanceVariable (Dyn, "value");
    dyn_shadow = class_getInstanceVariable (Dyn, "shadow");
    list = class_copyIvarList (Dyn, &n);
    printf ("class %s: instance size %ld, ivars:", class_getName (Dyn), (long) class_getInstanceSize (Dyn));
    for (i = 0; i < n; i++)
        printf (" %s '%s' at %ld", ivar_getName (list[i]), ivar_getTypeEncoding (list[i]),
                (long) ivar_getOffset (list[i]));
    printf ("\n");
    for (k = 0; k < 50000; k++) {
        id o = [(id) Dyn new];
        object_setIvar (o, dyn_next, prev);
        *(long *) ((char *) o + ivar_getOffset (dyn_value)) = k * 3 + 1;
        /* a hidden pointer to an object the chain keeps alive */
        if (k >= 64)
            object_setIvar (o, dyn_shadow, all[(k * 7) % 64]);
        all[k % 64] = o;
        prev = o;
    }
    dyn_head = prev;
    printf ("dynamic: 50000 %s objects, head value %ld\n", [dyn_head name], dyn_get_value (dyn_head));
}

NOINLINE static void check_dynamic (void)
{
    id o;
    long k = 49999, bad = 0, shadows = 0, sum = 0;
    for (o = dyn_head; o; o = object_getIvar (o, dyn_next), k--) {
        id s = object_getIvar (o, dyn_shadow);
        if (dyn_get_value (o) != k * 3 + 1)
            bad++;
        if (s) {
            shadows++;
            if (object_getClass (s) != Dyn || (dyn_get_value (s) - 1) % 3 != 0)
                bad++;
            else
                sum += dyn_get_value (s);
        }
    }
    expect (bad == 0 && k == -1, "dynamic objects after collection", bad);
    printf ("dynamic after collection: %ld bad, %ld shadows, shadow sum %ld\n", bad, shadows, sum);
}

/* ---- 6. weak references --------------------------------------------- */

#define NWEAK 4000

static Vec *cells_live, *cells_hidden, *keep_targets;
static Big *hider;
static Vec *scratch;

/* Cells whose weak ivar points to an object that keep_targets holds too. */
NOINLINE static void make_live_cells (void)
{
    long i;
    cells_live = [Vec new];
    keep_targets = [Vec new];
    for (i = 0; i < NWEAK; i++) {
        WeakCell *c = [WeakCell new];
        Str *t = [Str withNumber: 7 * i];
        c->tag = i;
        c->weak = t;
        [keep_targets push: t];
        GC_general_register_disappearing_link ((void **) &c->weak, t);
        [cells_live push: c];
    }
}

/* Cells whose weak ivar is the only reference to its object, and a Big
 * whose scalar words hold the only references to 70 more. */
NOINLINE static void make_hidden_cells (void)
{
    long i;
    cells_hidden = [Vec new];
    for (i = 0; i < NWEAK; i++) {
        WeakCell *c = [WeakCell new];
        Str *t = [Str withNumber: 11 * i];
        c->tag = -i;
        c->strong = [Str withNumber: i];      /* visible: must survive */
        c->weak = t;
        GC_general_register_disappearing_link ((void **) &c->weak, t);
        [cells_hidden push: c];
    }
    hider = [Big new];
    for (i = 0; i < 70; i++) {
        Str *t = [Str withNumber: 13 * i];
        hider->data[i] = (long) t;
        GC_general_register_disappearing_link ((void **) &hider->data[i], t);
    }
    /* overwrite the registers and stack slots that held the last ones */
    scratch = [Vec new];
    for (i = 0; i < 64; i++)
        [scratch push: [Str withNumber: i]];
}

NOINLINE static void clobber_stack (void)
{
    volatile char pad[16384];
    memset ((char *) pad, 0, sizeof pad);
}

NOINLINE static void check_weak (void)
{
    long i, cleared_live = 0, cleared_hidden = 0, cleared_big = 0, bad = 0;
    for (i = 0; i < NWEAK; i++) {
        WeakCell *c = [cells_live at: i];
        Str *t = c->weak;
        if (!t)
            cleared_live++;
        else if (t != [keep_targets at: i] || [t rehash] != t->hash)
            bad++;
    }
    for (i = 0; i < NWEAK; i++) {
        WeakCell *c = [cells_hidden at: i];
        Str *t = c->weak;
        Str *s = c->strong;
        if (c->tag != -i || !s || [s rehash] != s->hash)
            bad++;
        if (!t)
            cleared_hidden++;
        else if ([t rehash] != t->hash)      /* kept: must be intact */
            bad++;
    }
    for (i = 0; i < 70; i++) {
        Str *t = (Str *) hider->data[i];
        if (!t)
            cleared_big++;
        else if ([t rehash] != t->hash)
            bad++;
    }
    expect (cleared_live == 0 && bad == 0, "weak cells", bad);
    printf ("weak ivars to live objects: %d cells, %ld cleared, %ld bad\n", NWEAK, cleared_live, bad);
    printf ("weak ivars as the only reference: %d cells, at least 90%% cleared: %s\n", NWEAK,
            cleared_hidden * 10 >= NWEAK * 9 ? "yes" : "no");
    printf ("addresses in scalar ivars as the only reference: 70, at least 90%% cleared: %s\n",
            cleared_big * 10 >= 70 * 9 ? "yes" : "no");
    if (getenv ("OBJC_GC_WORKLOAD_VERBOSE"))
        fprintf (stderr, "cleared: live %ld, hidden %ld, big %ld\n", cleared_live, cleared_hidden, cleared_big);
}

int main (void)
{
    NXConstantString *title = @"GNU Objective-C runtime on libgc";
    class_ivar_set_gcinvisible (objc_getClass ("WeakCell"), "weak", YES);

    printf ("%s (%u characters)\n", [title cString], [title length]);
    printf ("instance sizes: Node %ld, Str %ld, Pair %ld, Big %ld, WeakCell %ld\n",
            (long) class_getInstanceSize ([Node class]), (long) class_getInstanceSize ([Str class]),
            (long) class_getInstanceSize ([Pair class]), (long) class_getInstanceSize ([Big class]),
            (long) class_getInstanceSize ([WeakCell class]));

    phase_trees ();
    GC_gcollect ();
    printf ("long-lived tree after collection: %ld nodes, check %ld\n", [long_lived count], [long_lived check]);

    phase_pairs ();
    GC_gcollect ();
    check_pairs ();

    phase_big ();
    GC_gcollect ();
    check_big ();

    phase_blobs_and_copies ();
    GC_gcollect ();
    check_blobs ();

    phase_dynamic ();
    GC_gcollect ();
    check_dynamic ();

    make_live_cells ();
    make_hidden_cells ();
    clobber_stack ();
    GC_gcollect ();
    check_weak ();

    /* everything kept must still be there */
    GC_gcollect ();
    check_pairs ();
    check_big ();
    check_blobs ();
    check_dynamic ();
    printf ("checks passed: %ld, failed: %ld\n", checked, failures);
    return failures ? 1 : 0;
}
