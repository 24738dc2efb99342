/* targets.h: small objects ("targets") whose death is observed through a
 * disappearing link, and the verdict on a run of them: the ones a field
 * that is scanned points at must all be alive, of the others at least 90%
 * must be dead. The includer defines MAX_TARGETS and allocates `links`
 * (pointer-free, MAX_TARGETS entries) before the first new_target(). */
#ifndef BIBOP_TESTS_COMPAT_TARGETS_H
#define BIBOP_TESTS_COMPAT_TARGETS_H

#include "compat.h"

#include <gc.h>

static void **links;      /* pointer-free: links[t] is target t, or NULL once dead */
static unsigned n_targets;

static NOINLINE void *new_target(void)
{
    CHECK(n_targets < MAX_TARGETS, "too many targets");
    unsigned t = n_targets++;
    uintptr_t *o = GC_MALLOC(2 * sizeof *o);
    CHECK(o != NULL, "GC_MALLOC failed");
    o[0] = t;
    o[1] = ~(uintptr_t)t;
    links[t] = o;
    CHECK(GC_general_register_disappearing_link(&links[t], o) == GC_SUCCESS,
          "registering the link of target %u failed", t);
    return o;
}

static int target_alive(unsigned t)
{
    uintptr_t *o = links[t];
    if (!o) return 0;
    CHECK(o[0] == t && o[1] == ~(uintptr_t)t, "target %u damaged", t);
    return 1;
}

/* Targets [first, first + n): those `retained` says are held by a scanned
   field (named `scanned`) must all be alive; of the others (held only by
   fields named `unscanned`) at least 90% must be dead. */
static void judge_targets(const char *what, unsigned first, unsigned n,
                          int (*retained)(unsigned), const char *scanned, const char *unscanned)
{
    unsigned kept = 0, should_keep = 0, died = 0, should_die = 0;
    for (unsigned t = first; t < first + n; t++) {
        if (retained(t - first)) {
            should_keep++;
            CHECK(target_alive(t), "%s: target %u of %s was reclaimed", what, t - first, scanned);
            kept++;
        } else {
            should_die++;
            died += !target_alive(t);
        }
    }
    printf("%s: %u of %u targets of %s alive, %u of %u targets of %s reclaimed\n", what, kept,
           should_keep, scanned, died, should_die, unscanned);
    CHECK(AT_LEAST_PERCENT(died, should_die, 90), "%s: only %u of %u targets of %s reclaimed",
          what, died, should_die, unscanned);
}

#endif
