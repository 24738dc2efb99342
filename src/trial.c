/* trial.c: choices the machine makes. Some ways of collecting win on one
 * processor and lose on another (prefetching on small heaps, helper
 * markers on small heaps: sessions 1-15 ran on an Intel Xeon, 16-19 on an
 * AMD EPYC with slower memory, and the two disagreed). Where such a choice
 * has a cost that can be measured per collection, a trial makes it: over
 * TRIAL_COLLECTIONS eligible full collections the two arms alternate
 * (arm 0 is "without", arm 1 "with"), each collection's cost is summed per
 * arm with the words it scanned, and the arm with less cost per word is
 * kept; after RETRIAL_COLLECTIONS more eligible collections the choice is
 * tried again (a program's heap and the machine's load change).
 *
 * INVARIANTS
 *  - At most one trial tries an arm in a collection, so one trial's arms
 *    never differ in another trial's choice. A collection that another
 *    trial holds does not count for the others: their arms keep
 *    alternating from where they stood.
 *  - Every trial_arm that returned a trying arm is closed by trial_end in
 *    the same collection (mark_finish); trial_collection_begins drops a
 *    trial that a collection left open, so it cannot block the others.
 */
#include "internal.h"

#define TRIAL_COLLECTIONS 8
#define RETRIAL_COLLECTIONS 256

static struct trial *open_trial;   /* the one trying an arm in this collection */

void trial_collection_begins(void) {
  if (open_trial) open_trial->trying = -1;
  open_trial = NULL;
}

bool trial_next_may_try(const struct trial *t) {
  return t->choice || t->collections % RETRIAL_COLLECTIONS < TRIAL_COLLECTIONS;
}

bool trial_arm(struct trial *t) {
  if (open_trial) return t->choice;
  unsigned n = t->collections % RETRIAL_COLLECTIONS;
  t->collections++;
  if (n >= TRIAL_COLLECTIONS) return t->choice;
  if (n == 0) t->cost[0] = t->cost[1] = t->words[0] = t->words[1] = 0;
  t->trying = (int)(n & 1);
  t->at_start = t->clock();
  open_trial = t;
  return t->trying == 1;
}

/* Per word scanned: 128-bit products, no overflow. */
void trial_end(struct trial *t, uint64_t words) {
  if (t->trying < 0) return;
  t->cost[t->trying] += t->clock() - t->at_start;
  t->words[t->trying] += words;
  t->trying = -1;
  open_trial = NULL;
  if (t->collections % RETRIAL_COLLECTIONS != TRIAL_COLLECTIONS) return;
  if (!t->words[0] || !t->words[1]) return;
  unsigned __int128 without = (unsigned __int128)t->cost[0] * t->words[1];
  unsigned __int128 with = (unsigned __int128)t->cost[1] * t->words[0];
  t->choice = with < without;
  if (gc.print_stats)
    fprintf(gc_log(), "bibop: %s below %zu KiB: %s (%s %.2f ns a word with, %.2f without)\n",
            t->what, t->below_bytes >> 10, t->choice ? "on" : "off", t->measure,
            (double)t->cost[1] / (double)t->words[1], (double)t->cost[0] / (double)t->words[0]);
}
