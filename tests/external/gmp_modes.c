/*
 * gmp_modes.c: runs the GMP example (examples/gmp) with the small
 * parameters (-s) and checks that every mode of the garbage-collected
 * binding prints the same checksum as the plain C reference (listing 6 for
 * listing 2, and its plain-C counterparts for listings 1 and 3):
 *   gmp_bibop none | account | hooks | heap, gmp_stock none | heap (if built).
 * Also checks that each run exits 0 and prints one result line.
 *
 * usage: external_gmp_modes GMP_PLAIN GMP_BIBOP [GMP_STOCK] [--selfcheck]
 *   --selfcheck: the collected runs get one squaring more than the
 *   reference: every comparison must FAIL.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static int failures;

/* Run "'exe' args", return the checksum printed (0 and a failure if none). */
static unsigned long long run(const char *exe, const char *args, char *line, size_t len) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' %s", exe, args);
  FILE *f = popen(cmd, "r");
  if (!f) {
    fprintf(stderr, "FAIL: popen(%s)\n", cmd);
    failures++;
    return 0;
  }
  line[0] = 0;
  int lines = 0;
  char buf[1024];
  while (fgets(buf, sizeof buf, f)) {
    if (strstr(buf, "checksum=")) {
      snprintf(line, len, "%s", buf);
      lines++;
    }
  }
  int status = pclose(f);
  const char *p = strstr(line, "checksum=");
  unsigned long long ck = 0;
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || lines != 1 || !p ||
      sscanf(p, "checksum=%llx", &ck) != 1) {
    fprintf(stderr, "FAIL: %s: status %d, %d result lines, line \"%s\"\n", cmd, status, lines, line);
    failures++;
    return 0;
  }
  line[strcspn(line, "\n")] = 0;
  return ck;
}

int main(int argc, char **argv) {
  int selfcheck = 0;
  if (argc > 1 && !strcmp(argv[argc - 1], "--selfcheck")) selfcheck = 1, argc--;
  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: %s GMP_PLAIN GMP_BIBOP [GMP_STOCK] [--selfcheck]\n", argv[0]);
    return 2;
  }
  const char *plain = argv[1], *bibop = argv[2], *stock = argc > 3 ? argv[3] : NULL;
  static const char *const bibop_modes[] = { "none", "account", "hooks", "heap" };
  static const char *const stock_modes[] = { "none", "heap" };
  const char *extra = selfcheck ? " -p squarings=13" : "";
  char line[1024], args[256];
  int compared = 0;

  for (int listing = 1; listing <= 3; listing++) {
    snprintf(args, sizeof args, "%d -s", listing);
    unsigned long long ref = run(plain, args, line, sizeof line);
    printf("%s\n", line);
    if (!ref) continue;
    for (int v = 0; v < 2; v++) {
      const char *exe = v ? stock : bibop;
      const char *const *modes = v ? stock_modes : bibop_modes;
      int nmodes = v ? 2 : 4;
      if (!exe) continue;
      for (int m = 0; m < nmodes; m++) {
        snprintf(args, sizeof args, "%s %d -s%s", modes[m], listing, extra);
        unsigned long long ck = run(exe, args, line, sizeof line);
        printf("%s\n", line);
        if (!ck) continue;
        compared++;
        if (ck != ref) {
          fprintf(stderr, "FAIL: listing %d, %s mode %s: checksum %016llx, plain C %016llx\n",
                  listing, v ? "stock" : "bibop", modes[m], ck, ref);
          failures++;
        }
      }
    }
  }
  if (compared < 12) {
    fprintf(stderr, "FAIL: only %d comparisons made (want 12 with bibop alone)\n", compared);
    failures++;
  }
  if (failures) {
    fprintf(stderr, "external.gmp_modes: %d failure(s)\n", failures);
    return 1;
  }
  printf("external.gmp_modes: ok (%d comparisons)\n", compared);
  return 0;
}
