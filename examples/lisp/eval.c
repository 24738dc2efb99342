/*
 * eval.c: the evaluator — special forms, application, tail calls.
 *
 * eval(expr, env, out) follows the caller-roots protocol (lisp.h): it
 * copies expr and env into roots of its own first, so out may be the same
 * root as expr or env. Calls in tail position (the branch of an if, the
 * last expression of a body) loop instead of recursing, so a tail-recursive
 * Lisp loop runs in constant C stack and a constant number of roots.
 * Non-tail recursion is bounded by MAX_DEPTH (an error, not a crash).
 * Environments are frames {parent, names, values}; nil is the global
 * environment, whose values live in the symbols.
 */
#include "lisp.h"

#define MAX_DEPTH 100000

val sym_quote, sym_if, sym_define, sym_set, sym_lambda, sym_let, sym_begin, sym_and, sym_or,
    sym_t;
static unsigned long depth;

/* Symbols are held by the symbol table for good, and objects never move:
   keeping their addresses in these variables needs no root. */
void eval_init(void) {
  sym_quote = intern("quote", 5);
  sym_if = intern("if", 2);
  sym_define = intern("define", 6);
  sym_set = intern("set!", 4);
  sym_lambda = intern("lambda", 6);
  sym_let = intern("let", 3);
  sym_begin = intern("begin", 5);
  sym_and = intern("and", 3);
  sym_or = intern("or", 2);
  sym_t = intern("t", 1);
  AS(symbol, sym_t)->global = sym_t;   /* t evaluates to itself */
}

void eval_reset_depth(void) { depth = 0; }

static unsigned long list_length(val l) {
  unsigned long n = 0;
  for (; type_of(l) == T_CONS; l = cdr(l)) n++;
  return n;
}

/* Element n of form, which must have between min and max elements. */
static val form_ref(val form, unsigned long n) {
  while (n--) form = cdr(form);
  return car(form);
}

static void check_form(val form, unsigned long min, unsigned long max, const char *name) {
  unsigned long n = list_length(form);
  if (n < min || n > max) lisp_error("bad syntax in %s", name);
}

/* The place a variable's value is kept, or NULL if it is unbound. No
   allocation: the address stays valid until the next one. */
static val *variable_cell(val sym, val env) {
  for (val f = env; f != NIL; f = AS(frame, f)->parent) {
    val names = AS(frame, f)->names;
    val *values = &AS(frame, f)->values;       /* the slot holding the values still to match */
    for (; type_of(names) == T_CONS; names = cdr(names), values = &AS(cons, *values)->cdr)
      if (car(names) == sym) return &AS(cons, *values)->car;
    if (names == sym) return values;           /* rest parameter: the remaining values */
  }
  return AS(symbol, sym)->global == UNBOUND ? NULL : &AS(symbol, sym)->global;
}

static val lookup(val sym, val env) {
  val *cell = variable_cell(sym, env);
  if (!cell) {
    struct string *name = AS(string, AS(symbol, sym)->name);
    lisp_error("unbound variable %.*s", (int)name->length, name->bytes);
  }
  return *cell;
}

/* Evaluate every expression of the list exprs; the values, in order, go to out. */
static void eval_list(root exprs, root env, root out) {
  size_t mark = roots_mark();
  root rest = root_new(get(exprs)), head = root_new(NIL), last = root_new(NIL),
       item = root_new(NIL);
  for (; get(rest) != NIL; set(rest, cdr(get(rest)))) {
    set(item, car(get(rest)));
    eval(item, env, item);
    list_append(head, last, item);
  }
  set(out, get(head));
  roots_release(mark);
}

/* All but the last expression of body; the last one goes to tail (nil if
   the body is empty), for the caller to evaluate in place. */
static void eval_body(root body, root env, root tail) {
  size_t mark = roots_mark();
  root rest = root_new(get(body)), item = root_new(NIL);
  while (get(rest) != NIL && cdr(get(rest)) != NIL) {
    set(item, car(get(rest)));
    eval(item, env, item);
    set(rest, cdr(get(rest)));
  }
  set(tail, get(rest) == NIL ? NIL : car(get(rest)));
  roots_release(mark);
}

/* A new frame binding fn's parameters to args, below fn's environment. */
static void bind_arguments(root fn, root args, root frame_out) {
  val params = AS(closure, get(fn))->params, a = get(args);
  for (; type_of(params) == T_CONS; params = cdr(params), a = cdr(a))
    if (a == NIL) lisp_error("too few arguments");
  if (params == NIL && a != NIL) lisp_error("too many arguments");
  size_t mark = roots_mark();
  root parent = root_new(AS(closure, get(fn))->env), names = root_new(AS(closure, get(fn))->params);
  make_frame(parent, names, args, frame_out);
  roots_release(mark);
}

void apply(root fn, root args, root out) {
  switch (type_of(get(fn))) {
    case T_PRIMITIVE:
      AS(primitive, get(fn))->fn(args, out);
      return;
    case T_CLOSURE: {
      size_t mark = roots_mark();
      root env = root_new(NIL), body = root_new(AS(closure, get(fn))->body), last = root_new(NIL);
      bind_arguments(fn, args, env);
      eval_body(body, env, last);
      eval(last, env, out);
      roots_release(mark);
      return;
    }
    default:
      lisp_error("not a function");
  }
}

/* (define name expr) or (define (name . params) body...). */
static void eval_define(root x, root e, root a, root b) {
  val form = get(x);
  if (list_length(form) < 3) lisp_error("bad syntax in define");
  val target = form_ref(form, 1);
  if (type_of(target) == T_CONS) {          /* function shorthand */
    set(a, car(target));
    set(b, cdr(target));
    set(x, cdr(cdr(form)));
    make_closure(b, x, e, b);
  } else {
    if (type_of(target) != T_SYMBOL) lisp_error("bad syntax in define");
    check_form(form, 3, 3, "define");
    set(a, target);
    set(b, form_ref(form, 2));
    eval(b, e, b);
  }
  if (get(e) == NIL) {
    AS(symbol, get(a))->global = get(b);
    return;
  }
  /* Inside a body: a new binding in the innermost frame. */
  set(x, AS(frame, get(e))->names);
  make_cons(a, x, x);
  AS(frame, get(e))->names = get(x);
  set(x, AS(frame, get(e))->values);
  make_cons(b, x, x);
  AS(frame, get(e))->values = get(x);
}

/* (let ((name expr) ...) body...): a frame of the values, then the body. */
static void eval_let(root x, root e, root a, root b) {
  size_t mark = roots_mark();
  root names = root_new(NIL), values = root_new(NIL), item = root_new(NIL);
  if (list_length(get(x)) < 2) lisp_error("bad syntax in let");
  for (set(a, form_ref(get(x), 1)); get(a) != NIL; set(a, cdr(get(a)))) {
    val binding = car(get(a));
    if (type_of(binding) != T_CONS || list_length(binding) != 2 || type_of(car(binding)) != T_SYMBOL)
      lisp_error("bad syntax in let");
    set(item, car(binding));
    make_cons(item, names, names);
    set(item, form_ref(car(get(a)), 1));
    eval(item, e, item);
    make_cons(item, values, values);
  }
  make_frame(e, names, values, e);     /* order does not matter to lookup */
  set(b, cdr(cdr(get(x))));
  eval_body(b, e, x);
  roots_release(mark);
}

void eval(root expr, root env, root out) {
  if (++depth > MAX_DEPTH) lisp_error("recursion too deep");
  size_t mark = roots_mark();
  root x = root_new(get(expr)), e = root_new(get(env)), a = root_new(NIL), b = root_new(NIL);
  for (;;) {
    val v = get(x);
    enum type t = type_of(v);
    if (t == T_SYMBOL) {
      set(out, lookup(v, get(e)));
      break;
    }
    if (t != T_CONS) {                 /* nil, numbers, strings evaluate to themselves */
      set(out, v);
      break;
    }
    val op = car(v);
    if (op == sym_quote) {
      check_form(v, 2, 2, "quote");
      set(out, form_ref(v, 1));
      break;
    } else if (op == sym_if) {
      check_form(v, 3, 4, "if");
      set(a, form_ref(v, 1));
      eval(a, e, a);
      v = get(x);
      set(x, get(a) != NIL ? form_ref(v, 2) : list_length(v) == 4 ? form_ref(v, 3) : NIL);
    } else if (op == sym_define) {
      eval_define(x, e, a, b);
      set(out, get(a));
      break;
    } else if (op == sym_set) {
      check_form(v, 3, 3, "set!");
      set(a, form_ref(v, 1));
      if (type_of(get(a)) != T_SYMBOL) lisp_error("bad syntax in set!");
      set(b, form_ref(v, 2));
      eval(b, e, b);
      val *cell = variable_cell(get(a), get(e));
      if (!cell) lisp_error("set! of an unbound variable");
      *cell = get(b);
      set(out, get(b));
      break;
    } else if (op == sym_lambda) {
      if (list_length(v) < 3) lisp_error("bad syntax in lambda");
      set(a, form_ref(v, 1));
      set(b, cdr(cdr(v)));
      make_closure(a, b, e, out);
      break;
    } else if (op == sym_begin) {
      set(a, cdr(v));
      eval_body(a, e, x);
    } else if (op == sym_let) {
      eval_let(x, e, a, b);
    } else if (op == sym_and || op == sym_or) {
      /* All but the last operand here; the last one in tail position. */
      int is_and = op == sym_and;
      set(a, cdr(v));
      set(out, is_and ? sym_t : NIL);
      if (get(a) == NIL) break;
      while (cdr(get(a)) != NIL) {
        set(b, car(get(a)));
        eval(b, e, b);
        if ((get(b) == NIL) == is_and) break;
        set(a, cdr(get(a)));
      }
      if (cdr(get(a)) != NIL) {        /* decided early */
        set(out, get(b));
        break;
      }
      set(x, car(get(a)));
    } else {                            /* application */
      set(a, op);
      eval(a, e, a);
      set(b, cdr(get(x)));
      eval_list(b, e, b);
      if (type_of(get(a)) != T_CLOSURE) {
        apply(a, b, out);
        break;
      }
      bind_arguments(a, b, e);          /* tail call: the body runs in this loop */
      set(b, AS(closure, get(a))->body);
      eval_body(b, e, x);
    }
  }
  roots_release(mark);
  depth--;
}
