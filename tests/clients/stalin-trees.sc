;;; client_stalin's program, compiled by Stalin (whose compiler links
;;; libgc.so.1, as does the program it builds): binary trees built and
;;; checked, long lists, vectors of strings; prints checksums only.
(define (make d v)
  (if (= d 0) (cons v '()) (cons v (cons (make (- d 1) (* 2 v)) (make (- d 1) (+ (* 2 v) 1))))))
(define (check t)
  (if (null? (cdr t)) (car t) (+ (car t) (check (car (cdr t))) (check (cdr (cdr t))))))
(define (build n)
  (let loop ((i 0) (acc '()))
    (if (= i n) acc (loop (+ i 1) (cons (* i 3) acc)))))
(define (sum l) (let loop ((l l) (s 0)) (if (null? l) s (loop (cdr l) (+ s (car l))))))
(define long-lived (make 16 1))
(define total
  (let loop ((k 0) (s 0))
    (if (= k 40) s (loop (+ k 1) (+ s (check (make 12 (+ k 1))))))))
(define lists
  (let loop ((k 0) (s 0))
    (if (= k 20) s (loop (+ k 1) (+ s (sum (build 100000)))))))
(define strings
  (let ((v (make-vector 20000 "")))
    (do ((i 0 (+ i 1))) ((= i 20000))
      (vector-set! v i (make-string (+ 1 (remainder i 50)) #\x)))
    (let loop ((i 0) (n 0))
      (if (= i 20000) n (loop (+ i 1) (+ n (string-length (vector-ref v i))))))))
(display "long-lived tree: ") (display (check long-lived)) (newline)
(display "trees: ") (display total) (newline)
(display "lists: ") (display lists) (newline)
(display "strings: ") (display strings) (newline)
