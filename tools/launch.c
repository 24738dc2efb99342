/*
 * launch.c: running a program and measuring it — its environment, the
 * drop-in library directory, wall time and peak RSS (wait4's rusage), and
 * which libgc.so.1 the dynamic loader would give it (ldd). Knows nothing of
 * traces.
 */
#include "tool.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool holds_dropin(const char *dir) {
  char lib[PATH_MAX];
  return snprintf(lib, sizeof lib, "%s/libgc.so.1", dir) < (int)sizeof lib && is_file(lib);
}

/* BIBOP_DROPIN_FROM_BINDIR is the installed layout (bindir to the private
   library directory, relative); BIBOP_BUILD_BINDIR and BIBOP_BUILD_DROPIN_DIR
   are the build tree's, used only when this binary is the build tree's. */
const char *dropin_dir(void) {
  static char found[PATH_MAX];
  if (found[0]) return found;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return NULL;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash) return NULL;
  *slash = '\0';
  char candidate[PATH_MAX];
  if (snprintf(candidate, sizeof candidate, "%s/%s", exe, BIBOP_DROPIN_FROM_BINDIR) <
          (int)sizeof candidate &&
      holds_dropin(candidate) && realpath(candidate, found))
    return found;
  char build_bin[PATH_MAX];
  if (realpath(BIBOP_BUILD_BINDIR, build_bin) && strcmp(build_bin, exe) == 0 &&
      holds_dropin(BIBOP_BUILD_DROPIN_DIR) && realpath(BIBOP_BUILD_DROPIN_DIR, found))
    return found;
  found[0] = '\0';
  return NULL;
}

static bool env_name_is(const char *entry, const char *name) {
  size_t len = strlen(name);
  return strncmp(entry, name, len) == 0 && entry[len] == '=';
}

char **env_with(const char *const *names, const char *const *values, int count) {
  size_t n = 0;
  while (environ[n]) n++;
  char **env = calloc(n + (size_t)count + 1, sizeof *env);
  if (!env) return NULL;
  size_t out = 0;
  for (size_t k = 0; k < n; k++) {
    bool replaced = false;
    for (int s = 0; s < count; s++) replaced |= env_name_is(environ[k], names[s]);
    if (!replaced) env[out++] = strdup(environ[k]);
  }
  for (int s = 0; s < count; s++) {
    if (!values[s]) continue;
    size_t len = strlen(names[s]) + strlen(values[s]) + 2;
    env[out] = malloc(len);
    if (env[out]) snprintf(env[out], len, "%s=%s", names[s], values[s]);
    out++;
  }
  env[out] = NULL;
  return env;
}

void env_release(char **env) {
  if (!env) return;
  for (size_t k = 0; env[k]; k++) free(env[k]);
  free(env);
}

static bool redirect(posix_spawn_file_actions_t *fa, int fd, const char *path) {
  if (!path) return true;
  return posix_spawn_file_actions_addopen(fa, fd, path, O_WRONLY | O_CREAT | O_TRUNC, 0644) == 0;
}

int launch(char *const *argv, char **env, const char *stdout_path, const char *stderr_path,
           struct launch_result *out) {
  memset(out, 0, sizeof *out);
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  redirect(&fa, STDOUT_FILENO, stdout_path);
  redirect(&fa, STDERR_FILENO, stderr_path);
  /* The program gets the default dispositions; the command ignores the
     terminal's interrupt while it waits, as system(3) does, so that it can
     still report on a program stopped with ^C. */
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  struct sigaction ignore = { .sa_handler = SIG_IGN }, old_int, old_quit;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);

  uint64_t start = now_ns();
  pid_t pid;
  int error = posix_spawnp(&pid, argv[0], &fa, &attr, argv, env);
  if (error == 0) {
    struct rusage usage;
    int status;
    pid_t got;
    do got = wait4(pid, &status, 0, &usage);
    while (got < 0 && errno == EINTR);
    out->wall_ns = now_ns() - start;
    if (got == pid) {
      out->wait_status = status;
      out->max_rss_kib = usage.ru_maxrss;
    } else {
      error = errno;
    }
  }
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGQUIT, &old_quit, NULL);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  return error;
}

int launch_exit_code(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

bool temp_file(char *buf, size_t len, const char *tag) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  if (snprintf(buf, len, "%s/bibop-%s.XXXXXX", dir, tag) >= (int)len) return false;
  int fd = mkstemp(buf);
  if (fd < 0) return false;
  close(fd);
  return true;
}

/* ldd prints "libgc.so.1 => /path (0x...)" for each library it resolves,
   "libgc.so.1 => not found" for one it cannot. */
enum libgc_use libgc_dependency(const char *program, char **env, char *where, size_t where_len) {
  char listing[PATH_MAX];
  if (!temp_file(listing, sizeof listing, "ldd")) return LIBGC_UNKNOWN;
  char *argv[] = { "ldd", (char *)program, NULL };
  struct launch_result r;
  enum libgc_use use = LIBGC_UNKNOWN;
  if (launch(argv, env, listing, "/dev/null", &r) == 0) {
    FILE *f = fopen(listing, "r");
    char line[PATH_MAX + 64];
    use = LIBGC_NONE;
    while (f && fgets(line, sizeof line, f)) {
      char name[256], path[PATH_MAX];
      if (sscanf(line, " %255s => %4095s", name, path) != 2) continue;
      if (strncmp(name, "libgc.so", 8) != 0) continue;
      if (strcmp(path, "not") == 0) snprintf(path, sizeof path, "(not found)");
      snprintf(where, where_len, "%s", path);
      const char *ours = dropin_dir();
      char real[PATH_MAX];
      bool is_ours = ours && realpath(path, real) && strncmp(real, ours, strlen(ours)) == 0 &&
                     real[strlen(ours)] == '/';
      use = is_ours ? LIBGC_BIBOP : LIBGC_OTHER;
    }
    if (f) fclose(f);
  }
  unlink(listing);
  return use;
}
