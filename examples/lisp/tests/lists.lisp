; lists: big lists built and dropped over many collections; every round's
; results are checked against closed forms computed independently.
(define (iota n acc) (if (= n 0) acc (iota (- n 1) (cons n acc))))
(define (sum l acc) (if (null? l) acc (sum (cdr l) (+ acc (car l)))))
(define (rev-map f l acc) (if (null? l) acc (rev-map f (cdr l) (cons (f (car l)) acc))))
(define (map f l) (reverse (rev-map f l nil)))
(define (filter p l acc)
  (if (null? l) (reverse acc)
      (filter p (cdr l) (if (p (car l)) (cons (car l) acc) acc))))
(define (nth l i) (if (= i 0) (car l) (nth (cdr l) (- i 1))))

(define n 20000)
(define (check-round r)
  (let ((l (map (lambda (x) (* x r)) (iota n nil))))
    (let ((evens (filter (lambda (x) (= (remainder x 2) 0)) l nil)))
      (and (= (length l) n)
           (= (sum l 0) (* r (quotient (* n (+ n 1)) 2)))
           (= (nth l 4999) (* r 5000))
           (= (length evens) (if (= (remainder r 2) 0) n (quotient n 2)))))))

(define start (gc-count))
(define (rounds r failures)
  (if (> r 10) failures
      (rounds (+ r 1) (if (check-round r) failures (cons r failures)))))
(print (rounds 1 nil))
(print (> (gc-count) (+ start 10)))

; one list kept across all of that: still intact
(define kept (iota 1000 nil))
(define (drop-many k) (if (= k 0) 'done (begin (iota 10000 nil) (drop-many (- k 1)))))
(drop-many 40)
(print (sum kept 0))
(print (nth kept 999))

; nested structure: a list of lists
(define (table i acc) (if (= i 0) acc (table (- i 1) (cons (iota i nil) acc))))
(define t300 (table 300 nil))
(drop-many 50)
(print (sum (map (lambda (row) (sum row 0)) t300) 0))
