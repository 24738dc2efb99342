/*
 * builtins.c: the primitive procedures. Each is fn(args, out): args is a
 * rooted list, the result goes to out. A primitive that allocates keeps
 * whatever it still needs in roots (see (reverse) and (string-append)).
 * The (gc...) primitives expose bibop's statistics to the tests.
 */
#include "lisp.h"

#include <stdlib.h>
#include <string.h>

#include <bibop.h>
#include <gc/gc.h>

static unsigned long count_args(val args) {
  unsigned long n = 0;
  for (; args != NIL; args = cdr(args)) n++;
  return n;
}

static void expect_args(root args, unsigned long min, unsigned long max, const char *who) {
  unsigned long n = count_args(get(args));
  if (n < min || n > max) lisp_error("%s: wrong number of arguments (%lu)", who, n);
}

static val arg(root args, unsigned long n) {
  val l = get(args);
  while (n--) l = cdr(l);
  return car(l);
}

static intptr_t int_arg(val v, const char *who) {
  if (!is_fixnum(v)) lisp_error("%s: not an integer", who);
  return fixnum_value(v);
}

static val fixnum_checked(intptr_t n, int overflow, const char *who) {
  if (overflow || n > FIXNUM_MAX || n < FIXNUM_MIN) lisp_error("%s: integer overflow", who);
  return make_fixnum(n);
}

val check_type(val v, enum type t, const char *who) {
  if (type_of(v) != t) lisp_error("%s: wrong type of argument", who);
  return v;
}

static val boolean(int b) { return b ? sym_t : NIL; }

/* ---- arithmetic ----------------------------------------------------------------- */

enum arith { ADD, SUB, MUL };

static void arithmetic(root args, root out, enum arith op, const char *who) {
  val l = get(args);
  intptr_t acc = op == MUL ? 1 : 0;
  if (op == SUB && l != NIL && cdr(l) != NIL) {   /* (- a b ...) subtracts from a */
    acc = int_arg(car(l), who);
    l = cdr(l);
  }
  for (; l != NIL; l = cdr(l)) {
    intptr_t x = int_arg(car(l), who);
    int over = op == ADD ? __builtin_add_overflow(acc, x, &acc)
             : op == SUB ? __builtin_sub_overflow(acc, x, &acc)
                         : __builtin_mul_overflow(acc, x, &acc);
    (void)fixnum_checked(acc, over, who);   /* stay within fixnums at each step */
  }
  set(out, fixnum_checked(acc, 0, who));
}

static void p_add(root args, root out) { arithmetic(args, out, ADD, "+"); }
static void p_sub(root args, root out) { arithmetic(args, out, SUB, "-"); }
static void p_mul(root args, root out) { arithmetic(args, out, MUL, "*"); }

static void division(root args, root out, int want_remainder, const char *who) {
  expect_args(args, 2, 2, who);
  intptr_t a = int_arg(arg(args, 0), who), b = int_arg(arg(args, 1), who);
  if (b == 0) lisp_error("%s: division by zero", who);
  set(out, fixnum_checked(want_remainder ? a % b : a / b, 0, who));   /* no overflow: 62-bit */
}

static void p_quotient(root args, root out) { division(args, out, 0, "quotient"); }
static void p_remainder(root args, root out) { division(args, out, 1, "remainder"); }

enum compare { EQ, LT, GT, LE, GE };

static void comparison(root args, root out, enum compare op, const char *who) {
  expect_args(args, 2, (unsigned long)-1, who);
  int result = 1;
  for (val l = get(args); cdr(l) != NIL; l = cdr(l)) {
    intptr_t a = int_arg(car(l), who), b = int_arg(car(cdr(l)), who);
    result &= op == EQ ? a == b : op == LT ? a < b : op == GT ? a > b : op == LE ? a <= b : a >= b;
  }
  set(out, boolean(result));
}

static void p_eq_num(root args, root out) { comparison(args, out, EQ, "="); }
static void p_lt(root args, root out) { comparison(args, out, LT, "<"); }
static void p_gt(root args, root out) { comparison(args, out, GT, ">"); }
static void p_le(root args, root out) { comparison(args, out, LE, "<="); }
static void p_ge(root args, root out) { comparison(args, out, GE, ">="); }

/* ---- lists ------------------------------------------------------------------------ */

static void p_cons(root args, root out) {
  expect_args(args, 2, 2, "cons");
  size_t mark = roots_mark();
  root a = root_new(arg(args, 0)), d = root_new(arg(args, 1));
  make_cons(a, d, out);
  roots_release(mark);
}

static void cons_field(root args, root out, int want_cdr, const char *who) {
  expect_args(args, 1, 1, who);
  val c = check_type(arg(args, 0), T_CONS, who);
  set(out, want_cdr ? cdr(c) : car(c));
}

static void p_car(root args, root out) { cons_field(args, out, 0, "car"); }
static void p_cdr(root args, root out) { cons_field(args, out, 1, "cdr"); }

static void p_list(root args, root out) { set(out, get(args)); }   /* a fresh list already */

static void p_length(root args, root out) {
  expect_args(args, 1, 1, "length");
  intptr_t n = 0;
  for (val l = arg(args, 0); l != NIL; l = cdr(check_type(l, T_CONS, "length"))) n++;
  set(out, make_fixnum(n));
}

static void p_reverse(root args, root out) {
  expect_args(args, 1, 1, "reverse");
  size_t mark = roots_mark();
  root rest = root_new(arg(args, 0)), acc = root_new(NIL), item = root_new(NIL);
  for (; get(rest) != NIL; set(rest, cdr(get(rest)))) {
    set(item, car(check_type(get(rest), T_CONS, "reverse")));
    make_cons(item, acc, acc);
  }
  set(out, get(acc));
  roots_release(mark);
}

static void p_nullp(root args, root out) {
  expect_args(args, 1, 1, "null?");
  set(out, boolean(arg(args, 0) == NIL));
}

static void p_pairp(root args, root out) {
  expect_args(args, 1, 1, "pair?");
  set(out, boolean(type_of(arg(args, 0)) == T_CONS));
}

static void p_eqp(root args, root out) {
  expect_args(args, 2, 2, "eq?");
  set(out, boolean(arg(args, 0) == arg(args, 1)));
}

static void p_not(root args, root out) {
  expect_args(args, 1, 1, "not");
  set(out, boolean(arg(args, 0) == NIL));
}

static void p_apply(root args, root out) {
  expect_args(args, 2, 2, "apply");
  size_t mark = roots_mark();
  root fn = root_new(arg(args, 0)), list = root_new(arg(args, 1));
  apply(fn, list, out);
  roots_release(mark);
}

/* ---- output ----------------------------------------------------------------------- */

static void p_display(root args, root out) {
  expect_args(args, 1, 1, "display");
  print_value(stdout, arg(args, 0), 0);
  set(out, NIL);
}

static void p_print(root args, root out) {
  expect_args(args, 1, 1, "print");
  print_value(stdout, arg(args, 0), 1);
  putchar('\n');
  set(out, arg(args, 0));
}

static void p_newline(root args, root out) {
  expect_args(args, 0, 0, "newline");
  putchar('\n');
  set(out, NIL);
}

/* ---- strings (bytes in malloc, counted as external memory) ------------------------ */

static void p_string_length(root args, root out) {
  expect_args(args, 1, 1, "string-length");
  set(out, make_fixnum((intptr_t)AS(string, check_type(arg(args, 0), T_STRING, "string-length"))->length));
}

static void p_string_append(root args, root out) {
  size_t total = 0;
  for (val l = get(args); l != NIL; l = cdr(l))
    total += AS(string, check_type(car(l), T_STRING, "string-append"))->length;
  make_string_filled(total, 0, out);                /* args stay rooted meanwhile */
  char *dst = AS(string, get(out))->bytes;
  for (val l = get(args); l != NIL; l = cdr(l)) {
    memcpy(dst, AS(string, car(l))->bytes, AS(string, car(l))->length);
    dst += AS(string, car(l))->length;
  }
}

static void p_make_string(root args, root out) {
  expect_args(args, 1, 1, "make-string");
  intptr_t n = int_arg(arg(args, 0), "make-string");
  if (n < 0 || n > (intptr_t)1 << 28) lisp_error("make-string: bad length");   /* 256 MiB at most */
  make_string_filled((size_t)n, '.', out);
}

static void p_number_to_string(root args, root out) {
  expect_args(args, 1, 1, "number->string");
  char buf[32];
  int n = snprintf(buf, sizeof buf, "%ld", (long)int_arg(arg(args, 0), "number->string"));
  make_string(buf, (size_t)n, out);
}

/* ---- the collector, seen from Lisp ------------------------------------------------ */

static void p_gc(root args, root out) {
  expect_args(args, 0, 0, "gc");
  GC_gcollect();
  set(out, NIL);
}

enum statistic { GC_COUNT, HEAP_SIZE, LIVE_BYTES, EXTERNAL_BYTES, EXTERNAL_PEAK, BOXROOTS };

static void statistic(root args, root out, enum statistic which, const char *who) {
  expect_args(args, 0, 0, who);
  struct bibop_gc_stats gs;
  struct bibop_external_stats es;
  struct boxroot_stats bs;
  size_t value = 0;
  switch (which) {
    case GC_COUNT: value = GC_get_gc_no(); break;
    case HEAP_SIZE: value = GC_get_heap_size(); break;
    case LIVE_BYTES: bibop_get_gc_stats(&gs); value = gs.live_bytes; break;
    case EXTERNAL_BYTES: bibop_get_external_stats(&es); value = es.live_bytes; break;
    case EXTERNAL_PEAK: value = memory_external_peak(); break;
    case BOXROOTS: boxroot_get_stats(&bs); value = bs.live; break;
  }
  set(out, make_fixnum((intptr_t)value));
}

static void p_gc_count(root args, root out) { statistic(args, out, GC_COUNT, "gc-count"); }
static void p_heap_size(root args, root out) { statistic(args, out, HEAP_SIZE, "heap-size"); }
static void p_live_bytes(root args, root out) { statistic(args, out, LIVE_BYTES, "live-bytes"); }
static void p_external_bytes(root args, root out) {
  statistic(args, out, EXTERNAL_BYTES, "external-bytes");
}
static void p_external_peak(root args, root out) {
  statistic(args, out, EXTERNAL_PEAK, "external-peak");
}
static void p_boxroots(root args, root out) { statistic(args, out, BOXROOTS, "boxroots"); }

static const struct { const char *name; primitive_fn fn; } builtins[] = {
    {"+", p_add}, {"-", p_sub}, {"*", p_mul}, {"quotient", p_quotient},
    {"remainder", p_remainder}, {"=", p_eq_num}, {"<", p_lt}, {">", p_gt}, {"<=", p_le},
    {">=", p_ge}, {"cons", p_cons}, {"car", p_car}, {"cdr", p_cdr}, {"list", p_list},
    {"length", p_length}, {"reverse", p_reverse}, {"null?", p_nullp}, {"pair?", p_pairp},
    {"eq?", p_eqp}, {"not", p_not}, {"apply", p_apply}, {"display", p_display},
    {"print", p_print}, {"newline", p_newline}, {"string-length", p_string_length},
    {"string-append", p_string_append}, {"make-string", p_make_string},
    {"number->string", p_number_to_string}, {"gc", p_gc}, {"gc-count", p_gc_count},
    {"heap-size", p_heap_size}, {"live-bytes", p_live_bytes},
    {"external-bytes", p_external_bytes}, {"external-peak", p_external_peak},
    {"boxroots", p_boxroots},
};

void builtins_init(void) {
  size_t mark = roots_mark();
  root prim = root_new(NIL);
  for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
    set(prim, make_primitive(builtins[i].name, builtins[i].fn));
    val sym = intern(builtins[i].name, strlen(builtins[i].name));   /* may collect: prim is rooted */
    AS(symbol, sym)->global = get(prim);
  }
  roots_release(mark);
}
