; closures: environments captured by closures survive many collections,
; with garbage made in between; every result is computed two ways.
(define (make-counter start)
  (let ((n start))
    (lambda () (set! n (+ n 1)) n)))
(define c1 (make-counter 0))
(define c2 (make-counter 100))
(c1) (c1) (c2)
(gc)
(print (list (c1) (c2)))

; a list of 2000 adders, each closing over its own frame
(define (make-adders i acc)
  (if (= i 0) acc
      (make-adders (- i 1) (cons (let ((k i)) (lambda (x) (+ x k))) acc))))
(define adders (make-adders 2000 nil))

(define (churn n) (if (= n 0) 'done (begin (list 1 2 3 4 5 6 7 8) (churn (- n 1)))))
(define (sum-apply fs x acc)
  (if (null? fs) acc (sum-apply (cdr fs) x (+ acc ((car fs) x)))))
(define before (gc-count))
(define (rounds r acc)
  (if (= r 0) acc
      (begin (churn 20000) (gc)
             (rounds (- r 1) (cons (sum-apply adders 1 0) acc)))))
; sum over k=1..2000 of (1 + k) = 2000 + 2001000 = 2003000, five times
(print (rounds 5 nil))
(print (> (gc-count) (+ before 5)))

; closures capturing a big list and a string
(define (iota n acc) (if (= n 0) acc (iota (- n 1) (cons n acc))))
(define (sum l acc) (if (null? l) acc (sum (cdr l) (+ acc (car l)))))
(define holder
  (let ((big (iota 50000 nil)) (name (string-append "held-" (number->string 7))))
    (lambda (what) (if (eq? what 'sum) (sum big 0) name))))
(churn 50000)
(gc)
(print (holder 'sum))
(print (holder 'name))

; closures returned through several levels, composed
(define (compose f g) (lambda (x) (f (g x))))
(define (twice f) (compose f f))
(define add4 (twice (twice (lambda (x) (+ x 1)))))
(churn 20000)
(gc)
(print (add4 10))
(print ((twice add4) 0))
(print (c1))
