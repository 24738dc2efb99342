/* checked_pointers.c: the checked pointer operations of gc.h
 * (GC_same_obj, GC_is_visible, GC_is_valid_displacement) report a failed
 * check through their exported print procedures, which are never NULL:
 * the defaults print the pointers and abort, as bdwgc's do; a client's own
 * procedure is called instead. Each failing check runs in a child process.
 */
#include <gc.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static int calls;
static void count_pair(void *p, void *q) { (void)p, (void)q; calls++; }
static void count_one(void *p) { (void)p; calls++; }

/* Run fn in a child; return the signal that ended it, or 0. */
static int child_signal(void (*fn)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        fn();
        _exit(0);
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void different_objects(void)
{
    char *p = GC_MALLOC(64), *q = GC_MALLOC(64);
    GC_same_obj(p, q);
}

static void misaligned_visible(void)
{
    char *p = GC_MALLOC(64);
    GC_is_visible(p + 1);
}

int main(void)
{
    GC_INIT();
    CHECK(GC_same_obj_print_proc != NULL);
    CHECK(GC_is_visible_print_proc != NULL);
    CHECK(GC_is_valid_displacement_print_proc != NULL);

    char *p = GC_MALLOC(64);
    CHECK(GC_same_obj(p + 8, p) == p + 8);
    CHECK(GC_is_visible(p) == p);
    CHECK(GC_is_valid_displacement(p + 8) == p + 8);

    CHECK_EQ(child_signal(different_objects), SIGABRT);
    CHECK_EQ(child_signal(misaligned_visible), SIGABRT);

    GC_same_obj_print_proc = count_pair;
    GC_is_visible_print_proc = count_one;
    different_objects();
    misaligned_visible();
    CHECK_EQ(calls, 2);
    printf("checked_pointers: defaults abort, client procedures called\n");
    return 0;
}
