/*
 * main.c: the REPL, errors, and the interpreter's thread.
 *
 * usage: lisp [FILE]   — evaluates FILE (or standard input). On a terminal
 * it prompts and prints each result; otherwise only what the program
 * prints. An error prints "error: ..." on standard output, abandons the
 * current top-level form and goes on; the exit status is 1 if any error
 * happened, 0 otherwise.
 *
 * The interpreter runs on a thread of its own, started with
 * GC_pthread_create (so bibop registers it) with a large stack for deep
 * recursion; that thread turns on bibop's precise mode, since every value
 * it holds is in a boxroot (lisp.h). Errors unwind with longjmp to the
 * top level, which deletes the roots made since (roots_release). The main
 * thread waits for it in a blocking section (GC_do_blocking).
 */
#define GC_THREADS
#include <gc/gc.h>
#include <bibop.h>

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "lisp.h"

#define INTERPRETER_STACK_BYTES ((size_t)512 << 20)   /* MAX_DEPTH nested evals, UBSan frames */

static jmp_buf top_level;

void lisp_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("error: ", stdout);
  vprintf(fmt, ap);
  putchar('\n');
  va_end(ap);
  longjmp(top_level, 1);
}

struct session {
  FILE *in;
  int interactive;
  int errors;
};

static void repl(struct session *s) {
  root form = root_new(NIL), result = root_new(NIL), global_env = root_new(NIL);
  size_t top_mark = roots_mark();
  static volatile int reading;
  for (;;) {
    if (setjmp(top_level)) {          /* an error unwound to here */
      s->errors++;
      roots_release(top_mark);
      eval_reset_depth();
      if (reading) {                  /* a syntax error: drop the rest of the line */
        int c;
        while ((c = getc(s->in)) != '\n' && c != EOF) {}
      }
    }
    if (s->interactive) {
      fputs("> ", stdout);
      fflush(stdout);
    }
    reading = 1;
    int got = read_datum(s->in, form);
    reading = 0;
    if (!got) break;
    eval(form, global_env, result);
    if (s->interactive) {
      print_value(stdout, get(result), 1);
      putchar('\n');
    }
  }
}

static void *interpreter_main(void *arg) {
  struct session *s = arg;
  if (bibop_set_precise_stack(1) < 0) {
    fprintf(stderr, "lisp: the interpreter thread is not registered with the collector\n");
    exit(2);
  }
  memory_init();
  symbols_init();
  eval_init();
  builtins_init();
  repl(s);
  fflush(stdout);
  return NULL;
}

/* The main thread only waits: in a blocking section collections neither
   signal nor wait for it (its stack is still scanned, up to here). */
static void *join_interpreter(void *thread) {
  pthread_join(*(pthread_t *)thread, NULL);
  return NULL;
}

int main(int argc, char **argv) {
  GC_INIT();
  struct session s = { stdin, 0, 0 };
  if (argc > 2) {
    fprintf(stderr, "usage: %s [FILE]\n", argv[0]);
    return 2;
  }
  if (argc == 2) {
    s.in = fopen(argv[1], "r");
    if (!s.in) {
      perror(argv[1]);
      return 2;
    }
  } else {
    s.interactive = isatty(0);
  }
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, INTERPRETER_STACK_BYTES);
  pthread_t thread;
  int r = GC_pthread_create(&thread, &attr, interpreter_main, &s);
  pthread_attr_destroy(&attr);
  if (r != 0) {
    fprintf(stderr, "lisp: cannot start the interpreter thread (error %d)\n", r);
    return 2;
  }
  GC_do_blocking(join_interpreter, &thread);
  return s.errors ? 1 : 0;
}
