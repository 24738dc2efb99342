[+ AutoGen5 template h c +]
[+ CASE (suffix) +][+ == h +]/* [+ (dne " * " "/* ") +]*/
enum table_item {
[+ FOR item "," +]  [+ (string-upcase (get "name")) +] = [+ value +][+ ENDFOR +]
};
[+ == c +]#include "table.h"
/* groups, sorted by the sum of their values */
[+ (let* ((names (stack "item.name")) (values (map string->number (stack "item.value")))
          (groups (stack "item.group")) (table (make-hash-table)))
     (for-each (lambda (g v) (hash-set! table g (+ v (hash-ref table g 0)))) groups values)
     (string-join (map (lambda (p) (format #f "/* ~a: ~a */" (car p) (cdr p)))
                       (sort (hash-map->list cons table) (lambda (a b) (< (cdr a) (cdr b)))))
                  "\n")) +]
static const char *docs[] = {
[+ FOR item +]  [+ (c-string (string-append (get "doc") " / " (string-reverse (get "name")))) +],
[+ ENDFOR +]};
[+ (let loop ((i 0) (acc '())) (if (= i 200000) (format #f "/* churn: ~a strings, ~a chars */" (length acc) (apply + (map string-length acc))) (loop (+ i 1) (if (= 0 (modulo i 1000)) '() (cons (number->string (* i i)) acc))))) +]
[+ ESAC +]
