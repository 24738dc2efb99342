;;; Guile filter that GNU Mailutils' MH inc runs on every message it
;;; incorporates (tests/clients/mailutils.sh): reads the headers and the
;;; body, builds and drops a list of 2,000 strings, counts words in a hash
;;; table and prints a line per message.
(define count 0)
(define words (make-hash-table))
(define (tally-words line)
  (for-each (lambda (w)
              (unless (string-null? w)
                (hash-set! words w (+ 1 (hash-ref words w 0)))))
            (string-split line #\space)))
(define (mailutils-check-message msg)
  (set! count (+ count 1))
  (let* ((subj (mu-message-get-header msg "Subject"))
         (from (mu-message-get-header msg "From"))
         (body (mu-message-get-body msg))
         (junk (let loop ((i 0) (acc '()))
                 (if (< i 2000)
                     (loop (+ i 1) (cons (string-append subj " " (number->string i)) acc))
                     acc))))
    (let loop ((n 1))
      (let ((line (mu-body-read-line body)))
        (unless (eof-object? line)
          (tally-words line)
          (loop (+ n 1)))))
    (display (string-append "filter " (number->string count) ": " from " / " subj
                            " / " (number->string (length junk))
                            " / distinct words so far " (number->string (hash-count (const #t) words))))
    (newline)))
