;; guile.sh, part 3: a weak-key hash table churned 2,000,000 times: fresh
;; keys inserted and dropped at once, every 1000th kept, (gc) every
;; 200,000 insertions and three times at the end.  How many dropped keys a
;; conservative collector still finds alive depends on timing (it differs
;; between two runs of stock libgc), so only bounds are printed.
(define n 2000000)
(define t (make-weak-key-hash-table))
(define kept '())

(let loop ((i 0))
  (when (< i n)
    (let ((k (list 'key i)))
      (hashq-set! t k (* i 3))
      (when (= 0 (modulo i 1000)) (set! kept (cons k kept))))
    (when (= 0 (modulo i 200000)) (gc))
    (loop (+ i 1))))
(gc) (gc) (gc)

(define live (hash-fold (lambda (k v acc) (+ acc 1)) 0 t))
(format #t "inserted ~a, kept ~a~%" n (length kept))
(format #t "kept keys all present with right values: ~a~%"
        (let loop ((l kept))
          (cond ((null? l) #t)
                ((not (eqv? (hashq-ref t (car l)) (* 3 (cadr (car l))))) #f)
                (else (loop (cdr l))))))
(format #t "live entries >= kept: ~a~%" (>= live (length kept)))
(format #t "live entries < 1% of ~a: ~a~%" n (< live (quotient n 100)))
(format #t "a fresh key is absent: ~a~%" (not (hashq-ref t (list 'key 0))))
