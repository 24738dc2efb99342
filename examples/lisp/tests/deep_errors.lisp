; deep_errors: recursion past the interpreter's limit (100,000 nested
; evaluations) is an error, not a crash, and an error deep in a recursion
; unwinds thousands of frames and their roots at once.
(define roots-before (boxroots))
(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))
(count 1000000)
(define (deep-error n) (if (= n 0) (car 'oops) (cons n (deep-error (- n 1)))))
(deep-error 20000)
(define roots-after (boxroots))
(print (= roots-before roots-after))
(print (count 90000))
