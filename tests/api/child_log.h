/* child_log.h: for API tests that read the collector's log (GC_PRINT_STATS):
 * fork a child whose stderr is a pipe. In the child (NULL returned) the
 * caller sets the environment and runs the part that logs, then exits; in
 * the parent, the pipe's read end comes back as a FILE, and the child's
 * pid in *pid. Include after defining _GNU_SOURCE (fdopen). */
#ifndef BIBOP_TESTS_API_CHILD_LOG_H
#define BIBOP_TESTS_API_CHILD_LOG_H

#include <sys/wait.h>

#include "check.h"

static inline FILE *child_log_fork(pid_t *pid) {
  int fds[2];
  CHECK(pipe(fds) == 0);
  *pid = fork();
  CHECK(*pid >= 0);
  if (*pid == 0) {
    close(fds[0]);
    CHECK(dup2(fds[1], 2) == 2);
    return NULL;
  }
  close(fds[1]);
  FILE *log = fdopen(fds[0], "r");
  CHECK(log != NULL);
  return log;
}

#endif
