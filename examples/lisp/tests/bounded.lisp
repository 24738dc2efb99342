; bounded: in precise mode a garbage-heavy loop keeps memory bounded.
; 100 lists of 20,000 conses (about 64 MB in all) are made and dropped;
; each lives only while the interpreter's roots hold it. If the interpreter
; leaked roots, or the collector kept dead lists, the heap would grow past
; the bounds below (one list is 640 KB; all of them 64 MB).
(define (iota n acc) (if (= n 0) acc (iota (- n 1) (cons n acc))))
(define (length-of-fresh-list n) (length (iota n nil)))
(define roots-before (boxroots))
(define (churn k ok)
  (if (= k 0) ok
      (churn (- k 1) (and ok (= (length-of-fresh-list 20000) 20000)))))
(print (churn 100 t))
(define roots-after (boxroots))
(print (= roots-before roots-after))
(print (< (heap-size) 16000000))
(gc)
(print (< (live-bytes) 2000000))

; strings: 200 strings of 1 MB in malloc, each dropped at once. Their bytes
; are reported as external memory, so collections keep pace with them: the
; most external memory live at once stays far below the 200 MB made.
(define (strings k ok)
  (if (= k 0) ok
      (strings (- k 1) (and ok (= (string-length (make-string 1000000)) 1000000)))))
(print (strings 200 t))
(print (< (external-peak) 64000000))
(gc)
(gc)
(print (< (external-bytes) 4000000))
