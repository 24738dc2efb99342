/*
 * read.c: the symbol table, the reader and the printer.
 *
 * The symbol table is a malloc'd array of boxroots, one per hash bucket,
 * each holding a Lisp list of symbols: a table in memory bibop never scans,
 * kept alive by roots. Symbols are never collected (a bucket holds them).
 * The reader builds lists front to back with the list's head and last cell
 * in roots, so a collection in the middle of a long list loses nothing.
 */
#include "lisp.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define SYMBOL_BUCKETS 256
#define MAX_TOKEN 256

static root *buckets;

void symbols_init(void) {
  buckets = malloc(SYMBOL_BUCKETS * sizeof *buckets);
  if (!buckets) abort();
  for (size_t i = 0; i < SYMBOL_BUCKETS; i++) {
    buckets[i] = boxroot_create((void *)NIL);   /* global: never released */
    if (!buckets[i]) abort();
  }
}

static size_t hash_name(const char *name, size_t length) {
  size_t h = 5381;
  for (size_t i = 0; i < length; i++) h = h * 33 + (unsigned char)name[i];
  return h % SYMBOL_BUCKETS;
}

/* name must not point into a collectable object: interning allocates. */
val intern(const char *name, size_t length) {
  root bucket = buckets[hash_name(name, length)];
  for (val l = get(bucket); l != NIL; l = cdr(l)) {
    struct string *s = AS(string, AS(symbol, car(l))->name);
    if (s->length == length && memcmp(s->bytes, name, length) == 0) return car(l);
  }
  size_t mark = roots_mark();
  root str = root_new(NIL), sym = root_new(NIL);
  make_string(name, length, str);
  set(sym, make_symbol_object(str));
  make_cons(sym, bucket, bucket);
  val result = get(sym);
  roots_release(mark);
  return result;
}

/* ---- reader --------------------------------------------------------------------- */

static int skip_space(FILE *in) {
  int c;
  for (;;) {
    c = getc(in);
    if (c == ';') {
      while (c != '\n' && c != EOF) c = getc(in);
    } else if (c == EOF || !isspace(c)) {
      return c;
    }
  }
}

static int is_delimiter(int c) {
  return c == EOF || isspace(c) || c == '(' || c == ')' || c == '\'' || c == '"' || c == ';';
}

static void read_string(FILE *in, root out) {
  size_t cap = 64, n = 0;
  char *buf = malloc(cap);
  if (!buf) abort();
  int c;
  while ((c = getc(in)) != '"') {
    if (c == EOF) {
      free(buf);
      lisp_error("unterminated string");
    }
    if (c == '\\') {
      c = getc(in);
      if (c == 'n') c = '\n';
      else if (c == EOF) continue;
    }
    if (n == cap) {
      char *bigger = realloc(buf, cap *= 2);
      if (!bigger) abort();
      buf = bigger;
    }
    buf[n++] = (char)c;
  }
  make_string(buf, n, out);
  free(buf);
}

/* An integer or a symbol. */
static void read_atom(FILE *in, int c, root out) {
  char tok[MAX_TOKEN];
  size_t n = 0;
  while (!is_delimiter(c)) {
    if (n + 1 == MAX_TOKEN) lisp_error("token too long");
    tok[n++] = (char)c;
    c = getc(in);
  }
  ungetc(c, in);
  tok[n] = 0;
  size_t digits = (tok[0] == '-' || tok[0] == '+') ? 1 : 0;
  int numeric = n > digits;
  for (size_t i = digits; i < n; i++) numeric &= isdigit((unsigned char)tok[i]) != 0;
  if (numeric) {
    char *end;
    long long v = strtoll(tok, &end, 10);
    if (v > FIXNUM_MAX || v < FIXNUM_MIN) lisp_error("integer %s out of range", tok);
    set(out, make_fixnum((intptr_t)v));
  } else if (strcmp(tok, "nil") == 0) {
    set(out, NIL);
  } else {
    set(out, intern(tok, n));
  }
}

static int read_item(FILE *in, int c, root out);

/* After '(': elements up to ')', appended at the tail; a dotted tail. */
static void read_list(FILE *in, root out) {
  size_t mark = roots_mark();
  root head = root_new(NIL), last = root_new(NIL), item = root_new(NIL);
  for (;;) {
    int c = skip_space(in);
    if (c == ')') break;
    if (c == EOF) lisp_error("unexpected end of input in a list");
    if (c == '.') {                          /* a dotted tail: (a b . c) */
      int next = getc(in);
      ungetc(next, in);
      if (is_delimiter(next)) {
        if (get(last) == NIL || !read_item(in, skip_space(in), item) || skip_space(in) != ')')
          lisp_error("bad dotted list");
        AS(cons, get(last))->cdr = get(item);
        break;
      }
    }
    read_item(in, c, item);
    list_append(head, last, item);
  }
  set(out, get(head));
  roots_release(mark);
}

static int read_item(FILE *in, int c, root out) {
  if (c == EOF) return 0;
  if (c == '(') {
    read_list(in, out);
  } else if (c == ')') {
    lisp_error("unexpected ')'");
  } else if (c == '\'') {
    size_t mark = roots_mark();
    root quoted = root_new(NIL), q = root_new(sym_quote), nil = root_new(NIL);
    int next = skip_space(in);
    if (!read_item(in, next, quoted)) lisp_error("unexpected end of input after '");
    make_cons(quoted, nil, quoted);
    make_cons(q, quoted, out);
    roots_release(mark);
  } else if (c == '"') {
    read_string(in, out);
  } else {
    read_atom(in, c, out);
  }
  return 1;
}

int read_datum(FILE *in, root out) { return read_item(in, skip_space(in), out); }

/* ---- printer ------------------------------------------------------------------- */

static void print_string(FILE *out, const struct string *s, int readably) {
  if (!readably) {
    fwrite(s->bytes, 1, s->length, out);
    return;
  }
  putc('"', out);
  for (size_t i = 0; i < s->length; i++) {
    char c = s->bytes[i];
    if (c == '"' || c == '\\') putc('\\', out);
    if (c == '\n') fputs("\\n", out);
    else putc(c, out);
  }
  putc('"', out);
}

/* Prints without allocating, so raw values are safe here. */
void print_value(FILE *out, val v, int readably) {
  if (v == NIL) {
    fputs("nil", out);
  } else if (is_fixnum(v)) {
    fprintf(out, "%ld", (long)fixnum_value(v));
  } else {
    switch (type_of(v)) {
      case T_CONS:
        putc('(', out);
        for (;;) {
          print_value(out, car(v), readably);
          v = cdr(v);
          if (v == NIL) break;
          if (type_of(v) != T_CONS) {
            fputs(" . ", out);
            print_value(out, v, readably);
            break;
          }
          putc(' ', out);
        }
        putc(')', out);
        break;
      case T_SYMBOL: print_string(out, AS(string, AS(symbol, v)->name), 0); break;
      case T_STRING: print_string(out, AS(string, v), readably); break;
      case T_CLOSURE: fputs("#<closure>", out); break;
      case T_PRIMITIVE:
        fputs("#<primitive ", out);
        print_string(out, AS(string, AS(primitive, v)->name), 0);
        putc('>', out);
        break;
      default: fprintf(out, "#<object %p>", (void *)v); break;
    }
  }
}
