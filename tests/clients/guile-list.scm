;; guile.sh, part 2: a 3,000,000-element list: length, sum, reversal,
;; squares, order; one explicit (gc) while it is all live.
(use-modules (srfi srfi-1))

(define n 3000000)
(define lst (let loop ((i n) (acc '())) (if (= i 0) acc (loop (- i 1) (cons i acc)))))
(format #t "length ~a~%" (length lst))
(format #t "sum ~a (expected ~a)~%" (fold + 0 lst) (/ (* n (+ n 1)) 2))
(define rev (reverse lst))
(gc)
(format #t "reversed first ~a last ~a~%" (car rev) (last rev))
(define sq (map (lambda (x) (* x x)) lst))
(format #t "sum of squares ~a~%" (fold + 0 sq))
(format #t "ordered ~a~%"
        (let loop ((l lst) (prev 0))
          (cond ((null? l) #t)
                ((<= (car l) prev) #f)
                (else (loop (cdr l) (car l))))))
(format #t "list still intact after the other lists: length ~a sum ~a~%"
        (length lst) (fold + 0 lst))
