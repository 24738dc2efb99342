;; guile.sh, part 1: par-map and n-par-map over 8 workers, each building a
;; 400,000-element list (plus a vector and strings) while the others
;; allocate; prints per-worker lengths, sums and checks.
;; The workers build their lists with tail-recursive loops (and fold,
;; list->vector): no deep non-tail recursion such as `map' over a long list
;; in a worker thread.  Guile 3.0.8 grows a thread's VM stack in
;; vm_expand_stack, which sets vp->sp only after GC_call_with_alloc_lock
;; returns; a collection in that window makes the thread's mark procedure
;; scan the freed old stack ("madvise failed: Cannot allocate memory",
;; SIGSEGV).  That happens on stock libgc1 (see guile.sh), so it is kept
;; out of this comparison; string-concatenate rather than (apply
;; string-append ...) of 1,000 arguments keeps the workers' stacks small.
(use-modules (ice-9 threads) (srfi srfi-1))

(define n 400000)

(define (build k)
  (let loop ((i (- n 1)) (acc '()))
    (if (< i 0) acc (loop (- i 1) (cons (+ (* i (+ k 1)) k) acc)))))

(define (work k)
  (let* ((lst (build k))
         (len (length lst))
         (sum (fold + 0 lst))
         (vec (list->vector lst))
         (strs (let loop ((l lst) (i 0) (acc '()))
                 (if (= i 1000)
                     acc
                     (loop (cdr l) (+ i 1) (cons (number->string (car l)) acc)))))
         (dbl (fold (lambda (x acc) (+ acc (* 2 x))) 0 lst)))
    (list k len sum (string-length (string-concatenate strs))
          (vector-ref vec (- n 1)) (= dbl (* 2 sum)))))

(define (show tag rs)
  (for-each
   (lambda (r)
     (format #t "~a worker ~a: length ~a sum ~a strlen ~a last ~a doubled-ok ~a~%"
             tag (list-ref r 0) (list-ref r 1) (list-ref r 2) (list-ref r 3)
             (list-ref r 4) (list-ref r 5)))
   rs))

(define r1 (par-map work (iota 8)))
(show "par-map" r1)
(define r2 (n-par-map 8 work (iota 8)))
(format #t "n-par-map 8 threads equal to par-map: ~a~%" (equal? r1 r2))
(format #t "total sum ~a~%" (fold + 0 (map third r2)))
