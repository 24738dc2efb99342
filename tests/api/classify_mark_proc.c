/* classify_mark_proc.c (bibop only): bibop_classify may be called from a
 * mark procedure, with static and foreign ranges registered — the collector
 * holds the allocation lock then, so classify must not take it. A custom
 * kind's mark procedure classifies its two fields (a heap object, a static
 * word) and pushes only the heap one; collections run before and after a
 * registration (a watchdog alarm turns a hang into a failure), and the
 * object the procedure pushes survives with its contents. */
#include <gc.h>
#include <gc/gc_mark.h>
#include <bibop.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static char static_area[4096];
static char foreign_area[4096];
static volatile int classified_static, classified_foreign;

static struct GC_ms_entry *proc(GC_word *addr, struct GC_ms_entry *top, struct GC_ms_entry *lim,
                                GC_word env) {
  (void)env;
  for (int i = 0; i < 3; i++) {
    bibop_addr_class c = bibop_classify((void *)addr[i]);
    if (c == BIBOP_ADDR_HEAP_OBJECT) top = GC_mark_and_push((void *)addr[i], top, lim, (void **)&addr[i]);
    else if (c == BIBOP_ADDR_STATIC) classified_static++;
    else if (c == BIBOP_ADDR_FOREIGN) classified_foreign++;
  }
  return top;
}

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "FAIL: a collection hung (bibop_classify in a mark procedure)\n";
  (void)!write(2, msg, sizeof msg - 1);
  _exit(1);
}

int main(void) {
  signal(SIGALRM, on_alarm);
  alarm(30);
  GC_INIT();
  int kind = (int)GC_new_kind(GC_new_free_list(), GC_MAKE_PROC(GC_new_proc(proc), 0), 0, 1);
  void **obj = GC_generic_malloc(3 * sizeof(void *), kind);
  CHECK(obj != NULL);
  char *payload = GC_malloc_atomic(64);
  memset(payload, 0x5a, 64);
  obj[0] = payload;
  obj[1] = static_area + 100;
  obj[2] = foreign_area + 200;
  payload = NULL;
  GC_gcollect();
  CHECK_EQ(bibop_register_static(static_area, sizeof static_area), 0);
  CHECK_EQ(bibop_register_foreign(foreign_area, sizeof foreign_area), 0);
  for (int i = 0; i < 5; i++) {
    GC_gcollect();
    for (int j = 0; j < 1000; j++) GC_malloc(64);   /* reuse what a wrong free would free */
  }
  CHECK(classified_static > 0);
  CHECK(classified_foreign > 0);
  for (int i = 0; i < 64; i++) CHECK_EQ((unsigned char)((char *)obj[0])[i], 0x5a);
  CHECK_EQ(bibop_unregister_range(static_area), 0);
  CHECK_EQ(bibop_unregister_range(foreign_area), 0);
  GC_gcollect();
  printf("classify_mark_proc: classify works inside mark procedures with ranges registered\n");
  return 0;
}
