; recursion: deep non-tail recursion (tens of thousands of nested calls,
; each holding roots), tail calls in constant space, mutual recursion.
(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))
(print (count 50000))

; a list built by non-tail recursion, 30000 deep, collected meanwhile
(define (build n) (if (= n 0) nil (cons n (build (- n 1)))))
(define (sum l) (if (null? l) 0 (+ (car l) (sum (cdr l)))))
(print (sum (build 30000)))

(define (loop n acc) (if (= n 0) acc (loop (- n 1) (+ acc 2))))
(print (loop 1000000 0))

(define (even? n) (if (= n 0) t (odd? (- n 1))))
(define (odd? n) (if (= n 0) nil (even? (- n 1))))
(print (list (even? 100001) (odd? 100001)))

(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
(print (fib 20))

(define (ack m n)
  (if (= m 0) (+ n 1)
      (if (= n 0) (ack (- m 1) 1)
          (ack (- m 1) (ack m (- n 1))))))
(print (ack 2 3))

; the roots of finished calls are all released
(define base (boxroots))
(count 20000)
(define after (boxroots))
(print (= after base))
