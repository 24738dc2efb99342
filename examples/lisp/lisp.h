/*
 * lisp.h: a tiny Lisp on bibop — values, objects, roots, and the interface
 * between the interpreter's files (memory.c, read.c, eval.c, builtins.c,
 * main.c). Written as an example for language implementers: see
 * docs/EMBEDDING.md.
 *
 * VALUES are machine words: 0 is nil, an odd word is a fixnum (n << 1 | 1),
 * UNBOUND (2) marks an unset variable and never escapes to Lisp, and any
 * other word is the address of a heap object, 16-byte aligned. Every object
 * starts with a header word: its type in the low byte and, above it, how
 * many of the words that follow hold Lisp values (what the marker traces).
 *
 * THE ROOTING RULE. The interpreter runs in bibop's precise mode: its stack
 * and registers are never scanned. Every value it holds in C across a call
 * that may allocate (any GC_* allocation, hence any cons, eval or apply) is
 * in a boxroot. Functions take and fill roots (the caller-roots protocol of
 * the boxroot paper): eval(expr, env, out) reads expr and env from roots the
 * caller owns and stores its result into the caller's root out. A raw `val`
 * read with get() is valid until the next allocation only. Local roots are
 * made with root_new() and deleted together by roots_release(mark), which
 * is also how an error unwinds (longjmp) without leaking a root.
 */
#ifndef LISP_H
#define LISP_H

#include <stdint.h>
#include <stdio.h>

#include <boxroot.h>

typedef uintptr_t val;
typedef boxroot root;

#define NIL ((val)0)
#define UNBOUND ((val)2)
#define FIXNUM_MAX (INTPTR_MAX >> 1)
#define FIXNUM_MIN (INTPTR_MIN >> 1)

static inline int is_fixnum(val v) { return v & 1; }
static inline val make_fixnum(intptr_t n) { return ((uintptr_t)n << 1) | 1; }
static inline intptr_t fixnum_value(val v) { return (intptr_t)v >> 1; }   /* arithmetic shift */
static inline int is_object(val v) { return v != 0 && (v & 15) == 0; }

enum type { T_CONS = 1, T_SYMBOL, T_CLOSURE, T_PRIMITIVE, T_FRAME, T_STRING };

/* Header: type | traced-field count << 8. */
#define HEADER(type, traced) ((uintptr_t)(type) | ((uintptr_t)(traced) << 8))
static inline enum type header_type(uintptr_t h) { return (enum type)(h & 0xff); }
static inline unsigned header_traced(uintptr_t h) { return (unsigned)(h >> 8); }

struct cons { uintptr_t header; val car, cdr; };
struct symbol { uintptr_t header; val name; val global; };   /* name: a string */
struct closure { uintptr_t header; val params, body, env; };
struct frame { uintptr_t header; val parent, names, values; }; /* typed allocation */
struct string { uintptr_t header; char *bytes; size_t length; }; /* bytes: malloc */
typedef void (*primitive_fn)(root args, root out);
struct primitive { uintptr_t header; val name; primitive_fn fn; };

static inline enum type type_of(val v) {
  return is_object(v) ? header_type(*(uintptr_t *)v) : (enum type)0;
}
#define AS(T, v) ((struct T *)(v))
static inline val car(val v) { return AS(cons, v)->car; }
static inline val cdr(val v) { return AS(cons, v)->cdr; }

/* ---- memory.c: everything bibop ------------------------------------------ */

void memory_init(void);
/* Local roots: a stack of boxroots, released down to a mark. */
size_t roots_mark(void);
root root_new(val v);
void roots_release(size_t mark);
static inline val get(root r) { return (val)boxroot_get(r); }
static inline void set(root r, val v) { *boxroot_get_ref(r) = (void *)v; }
/* Allocation: each reads its arguments from roots after allocating. */
void make_cons(root car, root cdr, root out);
/* Append item's value to the list head..last (both nil when empty); item
   is overwritten with the new cell. */
void list_append(root head, root last, root item);
void make_closure(root params, root body, root env, root out);
void make_frame(root parent, root names, root values, root out);
val make_symbol_object(root name);
val make_primitive(const char *name, primitive_fn fn);
/* src must not be inside a collectable object (a string's bytes are fine:
   they are in malloc and stay while the string is rooted). */
void make_string(const char *src, size_t length, root out);
void make_string_filled(size_t length, char fill, root out);
/* Statistics for the (gc-...) builtins. */
size_t memory_external_peak(void);

/* ---- read.c: symbols, reader, printer -------------------------------------- */

void symbols_init(void);
val intern(const char *name, size_t length);
/* Read one datum into out; returns 0 at end of input. Syntax errors raise. */
int read_datum(FILE *in, root out);
void print_value(FILE *out, val v, int readably);

/* ---- eval.c ------------------------------------------------------------------- */

void eval(root expr, root env, root out);
void apply(root fn, root args, root out);
extern val sym_quote, sym_if, sym_define, sym_set, sym_lambda, sym_let, sym_begin, sym_and,
    sym_or, sym_t;
void eval_init(void);
void eval_reset_depth(void);   /* after an error unwound the evaluator */

/* ---- builtins.c ------------------------------------------------------------ */

void builtins_init(void);

/* ---- main.c: errors ------------------------------------------------------- */

_Noreturn void lisp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
val check_type(val v, enum type t, const char *who);

#endif
