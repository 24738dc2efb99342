;;; ecl.sh, part 2: weak-key hash tables churned 2,000,000 times in all:
;;; 20 rounds, each a fresh (:weakness :key) table receiving 100,000 fresh
;;; keys dropped at once except every 1000th, which is kept; collections
;;; every 25,000 insertions and twice at the end of a round.  How many
;;; dropped keys a conservative collector still finds alive depends on
;;; timing, so only bounds are printed.
;;; Why rounds of fresh, pre-sized tables: ECL 21.2 turns a dead entry into
;;; a tombstone only when a probe passes it, and never reuses or rehashes
;;; tombstones until the table grows, so one table churned 2,000,000 times
;;; fills with tombstones and every insertion scans all of it (25-75 s on
;;; stock libgc).  Why vectors as keys: ECL 21.2's weak pointers to conses
;;; are never cleared (on stock libgc too), so a cons key never dies.
(defvar *rounds* 20)
(defvar *per-round* 100000)
(defvar *kept-all* '())
(defvar *all-present* t)
(defvar *max-live* 0)
(defvar *tables* '())

(defun churn-round (r)
  (let ((table (make-hash-table :test #'eq :weakness :key :size (* 2 *per-round*)))
        (kept '()))
    (dotimes (i *per-round*)
      (let ((k (vector :key r i)))
        (setf (gethash k table) (+ (* 3 i) r))
        (when (zerop (mod i 1000)) (push k kept)))
      (when (zerop (mod i 25000)) (si:gc t)))
    (si:gc t) (si:gc t)
    (let ((live (hash-table-count table)))
      (setf *max-live* (max *max-live* live))
      (unless (>= live (length kept)) (setf *all-present* nil)))
    (unless (every (lambda (k) (eql (gethash k table) (+ (* 3 (aref k 2)) r))) kept)
      (setf *all-present* nil))
    (setf *kept-all* (append kept *kept-all*))
    (when (< r 2) (push table *tables*))    ; the first two tables stay alive
    (length kept)))

(format t "weakness ~s~%" (ext:hash-table-weakness (make-hash-table :weakness :key)))
(format t "keys kept per round: ~a~%" (loop for r below *rounds* collect (churn-round r)))
(format t "fresh keys inserted: ~d~%" (* *rounds* *per-round*))
(format t "kept keys all present with right values: ~a~%" *all-present*)
(format t "live entries per table after the churn: at most 2% of ~d: ~a~%"
        *per-round* (< *max-live* (floor *per-round* 50)))
(si:gc t) (si:gc t)
(format t "surviving tables: ~d, each still holding its 100 kept keys: ~a~%" (length *tables*)
        (every (lambda (tb) (>= (hash-table-count tb) 100)) *tables*))
(format t "total kept ~d, distinct ~d~%" (length *kept-all*)
        (length (remove-duplicates *kept-all* :test #'eq)))
