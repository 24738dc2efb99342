;;; guile-interp.scm: the guile-interp workload of bench/run-clients.sh.
;;; An interpreter-style program: a small Lisp (numbers, strings, symbols,
;;; lambda, if, define, set!, begin, let) read by a tokenizer from string
;;; ports, environments as chains of hash tables, closures as records
;;; holding their environment, primitives in a hash table, and output
;;; written to string ports.  It runs a fixed program text several times
;;; (fib, list building and sorting, string building, an association
;;; counter) and prints a deterministic summary.
(use-modules (ice-9 rdelim) (srfi srfi-9))

;; --- reader: characters from a string port into tokens, then data ---
(define (tokenize port)
  (let loop ((tokens '()))
    (let ((c (peek-char port)))
      (cond
       ((eof-object? c) (reverse tokens))
       ((char-whitespace? c) (read-char port) (loop tokens))
       ((char=? c #\;) (read-line port) (loop tokens))
       ((memv c '(#\( #\))) (read-char port) (loop (cons (string c) tokens)))
       ((char=? c #\")
        (read-char port)
        (let ((out (open-output-string)))
          (let sloop ()
            (let ((d (read-char port)))
              (if (char=? d #\")
                  (loop (cons (list 'str (get-output-string out)) tokens))
                  (begin (write-char d out) (sloop)))))))
       (else
        (let ((out (open-output-string)))
          (let aloop ()
            (let ((d (peek-char port)))
              (if (or (eof-object? d) (char-whitespace? d) (memv d '(#\( #\))))
                  (loop (cons (get-output-string out) tokens))
                  (begin (write-char (read-char port) out) (aloop)))))))))))

(define (parse tokens)
  ;; returns (datum . rest)
  (let ((t (car tokens)))
    (cond
     ((pair? t) (cons (cadr t) (cdr tokens)))
     ((string=? t "(")
      (let loop ((rest (cdr tokens)) (acc '()))
        (if (equal? (car rest) ")")
            (cons (reverse acc) (cdr rest))
            (let ((r (parse rest)))
              (loop (cdr r) (cons (car r) acc))))))
     ((string->number t) => (lambda (n) (cons n (cdr tokens))))
     (else (cons (string->symbol t) (cdr tokens))))))

(define (read-program text)
  (let loop ((tokens (tokenize (open-input-string text))) (forms '()))
    (if (null? tokens)
        (reverse forms)
        (let ((r (parse tokens)))
          (loop (cdr r) (cons (car r) forms))))))

;; --- environments and closures ---
(define-record-type <env> (make-env table parent) env? (table env-table) (parent env-parent))
(define-record-type <closure> (make-closure params body env) closure?
  (params closure-params) (body closure-body) (env closure-env))

(define (env-lookup env name)
  (let loop ((e env))
    (if (not e)
        (error "unbound" name)
        (let ((h (hashq-get-handle (env-table e) name)))
          (if h (cdr h) (loop (env-parent e)))))))

(define (env-set! env name value)
  (let loop ((e env))
    (let ((h (hashq-get-handle (env-table e) name)))
      (if h (set-cdr! h value) (loop (env-parent e))))))

(define (extend env params args)
  (let ((t (make-hash-table 8)))
    (for-each (lambda (p a) (hashq-set! t p a)) params args)
    (make-env t env)))

;; --- evaluator ---
(define (evaluate x env)
  (cond
   ((symbol? x) (env-lookup env x))
   ((not (pair? x)) x)
   (else
    (case (car x)
      ((quote) (cadr x))
      ((if) (if (evaluate (cadr x) env)
                (evaluate (caddr x) env)
                (if (pair? (cdddr x)) (evaluate (cadddr x) env) #f)))
      ((define) (hashq-set! (env-table env) (cadr x) (evaluate (caddr x) env)) #f)
      ((set!) (env-set! env (cadr x) (evaluate (caddr x) env)) #f)
      ((lambda) (make-closure (cadr x) (cddr x) env))
      ((begin) (eval-body (cdr x) env))
      ((let) (let ((bindings (cadr x)))
               (eval-body (cddr x)
                          (extend env (map car bindings)
                                  (map (lambda (b) (evaluate (cadr b) env)) bindings)))))
      (else (apply-proc (evaluate (car x) env)
                        (map (lambda (a) (evaluate a env)) (cdr x))))))))

(define (eval-body body env)
  (if (null? (cdr body))
      (evaluate (car body) env)
      (begin (evaluate (car body) env) (eval-body (cdr body) env))))

(define (apply-proc f args)
  (if (closure? f)
      (eval-body (closure-body f) (extend (closure-env f) (closure-params f) args))
      (apply f args)))

;; --- primitives ---
(define (make-global out)
  (let ((t (make-hash-table 64)))
    (for-each (lambda (p) (hashq-set! t (car p) (cdr p)))
              `((+ . ,+) (- . ,-) (* . ,*) (< . ,<) (= . ,=) (quotient . ,quotient)
                (remainder . ,remainder) (cons . ,cons) (car . ,car) (cdr . ,cdr)
                (null? . ,null?) (pair? . ,pair?) (list . ,list) (not . ,not)
                (string-append . ,string-append) (number->string . ,number->string)
                (string-length . ,string-length) (eq? . ,eq?) (equal? . ,equal?)
                (display . ,(lambda (x) (display x out)))
                (newline . ,(lambda () (newline out)))
                (make-table . ,(lambda () (make-hash-table 16)))
                (table-ref . ,(lambda (h k d) (hash-ref h k d)))
                (table-set! . ,(lambda (h k v) (hash-set! h k v)))
                (table-count . ,(lambda (h) (hash-count (const #t) h)))))
    (make-env t #f)))

(define program "
; the interpreted program
(define fib (lambda (n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))))
(define iota (lambda (n acc) (if (= n 0) acc (iota (- n 1) (cons n acc)))))
(define map1 (lambda (f l) (if (null? l) (quote ()) (cons (f (car l)) (map1 f (cdr l))))))
(define filter (lambda (p l) (if (null? l) (quote ())
  (if (p (car l)) (cons (car l) (filter p (cdr l))) (filter p (cdr l))))))
(define append2 (lambda (a b) (if (null? a) b (cons (car a) (append2 (cdr a) b)))))
(define qsort (lambda (l) (if (null? l) l
  (let ((p (car l)) (rest (cdr l)))
    (append2 (qsort (filter (lambda (x) (< x p)) rest))
             (cons p (qsort (filter (lambda (x) (not (< x p))) rest))))))))
(define scramble (lambda (x) (remainder (* x 7919) 10007)))
(define sum (lambda (l acc) (if (null? l) acc (sum (cdr l) (+ acc (car l))))))
(define join (lambda (l acc) (if (null? l) acc
  (join (cdr l) (string-append acc \"<\" (number->string (car l)) \">\")))))
(define counter (make-table))
(define count-words (lambda (l) (if (null? l) 0
  (begin (table-set! counter (remainder (car l) 97)
                     (+ 1 (table-ref counter (remainder (car l) 97) 0)))
         (count-words (cdr l))))))
(define make-acc (lambda (n) (lambda (x) (begin (set! n (+ n x)) n))))
(define acc (make-acc 0))
(define run (lambda (k)
  (let ((l (map1 scramble (iota 1000 (quote ())))))
    (let ((s (qsort l)))
      (begin
        (count-words s)
        (acc (sum s 0))
        (display (fib 16)) (display \" \")
        (display (string-length (join s \"\"))) (display \" \")
        (display (car s)) (display \" \")
        (display (table-count counter)) (newline))))))
")

(define (main rounds)
  (let ((forms (read-program program))
        (total 0))
    (do ((r 0 (+ r 1))) ((= r rounds))
      (let* ((out (open-output-string))
             (g (make-global out)))
        (for-each (lambda (f) (evaluate f g)) forms)
        (evaluate '(run 1) g)
        (evaluate '(run 2) g)
        (let ((s (get-output-string out)))
          (set! total (+ total (string-length s)))
          (when (= r 0) (display s)))
        ;; re-read the program text every round, as an interpreter would
        (set! forms (read-program program))))
    (format #t "rounds ~a, output characters ~a~%" rounds total)))

(main 2)
