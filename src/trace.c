/*
 * trace.c: the GC trace. When BIBOP_TRACE names a file, initialisation opens
 * it (truncated) and every collection appends one JSON line; an atexit
 * handler appends the final "exit" line. Times are CLOCK_MONOTONIC
 * nanoseconds since initialisation. Each line goes out in one write(2), so
 * a line is never split, and only the process that opened the file writes
 * to it (a forked child shares the descriptor but not the trace). An
 * unwritable path costs one warning and turns tracing off; the program
 * runs on. Reads collector state only under the allocation lock.
 */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TRACE_LINE_MAX 1024
/* How long the exit record waits for a collection in another thread to end
   before it reads the statistics without the lock. */
#define TRACE_EXIT_LOCK_TRIES 2000
#define TRACE_EXIT_LOCK_WAIT_NS 1000000L

static int trace_fd = -1;
static pid_t trace_pid;              /* the process that opened the trace */
static uint64_t trace_origin_ns;     /* time zero: initialisation */
static unsigned long trace_collections;
static size_t trace_peak_heap;

static uint64_t trace_since_origin(uint64_t t) {
  return t > trace_origin_ns ? t - trace_origin_ns : 0;
}

static bool trace_is_ours(void) {
  return trace_fd >= 0 && getpid() == trace_pid;
}

static void trace_write_line(const char *line, int len) {
  if (len <= 0) return;
  if (len >= TRACE_LINE_MAX) len = TRACE_LINE_MAX - 1;   /* cut, still one line */
  const char *p = line;
  size_t left = (size_t)len;
  while (left > 0) {
    ssize_t n = write(trace_fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;   /* disk full or gone: drop the line, never the program */
    p += n;
    left -= (size_t)n;
  }
}

/* Reasons are the collector's own literals; anything that would break the
   JSON string is replaced rather than escaped. */
static void trace_copy_reason(char *out, size_t cap, const char *reason) {
  size_t i = 0;
  for (; reason && reason[i] && i + 1 < cap; i++) {
    unsigned char c = (unsigned char)reason[i];
    out[i] = (c < 0x20 || c == '"' || c == '\\') ? '_' : (char)c;
  }
  out[i] = '\0';
}

void trace_collection(const struct trace_record *r) {
  if (!trace_is_ours()) return;
  char reason[64], line[TRACE_LINE_MAX];
  trace_copy_reason(reason, sizeof reason, r->reason);
  trace_collections++;
  if (r->heap_bytes > trace_peak_heap) trace_peak_heap = r->heap_bytes;
  uint64_t start = trace_since_origin(r->start_ns), end = trace_since_origin(r->end_ns);
  int len = snprintf(line, sizeof line,
      "{\"type\":\"gc\",\"gc\":%lu,\"start_ns\":%llu,\"end_ns\":%llu,\"pause_ns\":%llu,"
      "\"reason\":\"%s\",\"heap_bytes\":%zu,\"live_bytes\":%zu,\"external_bytes\":%zu,"
      "\"marked_objects\":%lu,\"marked_bytes\":%zu,\"candidates\":%llu,"
      "\"cand_not_ours\":%llu,\"cand_free\":%llu,\"cand_static\":%llu,\"cand_object\":%llu,"
      "\"mark_ns\":%llu}\n",
      r->gc, (unsigned long long)start, (unsigned long long)end,
      (unsigned long long)(end - start), reason, r->heap_bytes, r->live_bytes,
      r->external_bytes, r->marked_objects, r->marked_bytes,
      (unsigned long long)r->mark->candidates, (unsigned long long)r->mark->cand_not_ours,
      (unsigned long long)r->mark->cand_free, (unsigned long long)r->mark->cand_static,
      (unsigned long long)r->mark->cand_object, (unsigned long long)r->mark->mark_ns);
  trace_write_line(line, len);
}

/* Exit may be called while another thread collects; wait for it a while,
   but never forever (the exiting thread itself may hold the lock). */
static bool trace_lock_for_exit(void) {
  for (int i = 0; i < TRACE_EXIT_LOCK_TRIES; i++) {
    if (gc_trylock()) return true;
    struct timespec wait = { 0, TRACE_EXIT_LOCK_WAIT_NS };
    nanosleep(&wait, NULL);
  }
  return false;
}

static void trace_exit(void) {
  if (!trace_is_ours()) return;
  bool locked = trace_lock_for_exit();
  size_t heap = gc.heap_budget;
  size_t live = gc.live_ptr_bytes + gc.live_atomic_bytes;
  size_t external = atomic_load_explicit(&external_live, memory_order_relaxed);
  if (heap > trace_peak_heap) trace_peak_heap = heap;
  char line[TRACE_LINE_MAX];
  int len = snprintf(line, sizeof line,
      "{\"type\":\"exit\",\"end_ns\":%llu,\"collections\":%lu,\"heap_bytes\":%zu,"
      "\"live_bytes\":%zu,\"external_bytes\":%zu,\"peak_heap_bytes\":%zu}\n",
      (unsigned long long)trace_since_origin(os_now_ns()), trace_collections, heap, live,
      external, trace_peak_heap);
  trace_write_line(line, len);
  close(trace_fd);
  trace_fd = -1;
  if (locked) UNLOCK();
}

void trace_collection_end(void) {
  if (!trace_is_ours()) return;
  trace_collection(&(struct trace_record){ .gc = GC_gc_no, .start_ns = gc.last_start_ns,
      .end_ns = gc.last_start_ns + gc.last_pause_ns, .reason = gc.last_reason,
      .heap_bytes = arena_committed_bytes(),
      .live_bytes = gc.live_ptr_bytes + gc.live_atomic_bytes,
      .external_bytes = atomic_load(&external_live), .marked_objects = gc.marked_objects,
      .marked_bytes = gc.mark_stats.marked_bytes, .mark = &gc.mark_stats });
}

void trace_init(void) {
  trace_origin_ns = os_now_ns();
  const char *path = getenv("BIBOP_TRACE");
  if (!path || !*path) return;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    fprintf(stderr, "bibop: cannot write the GC trace BIBOP_TRACE=%s: %s; tracing is off\n",
            path, strerror(errno));
    return;
  }
  trace_fd = fd;
  trace_pid = getpid();
  atexit(trace_exit);
}
