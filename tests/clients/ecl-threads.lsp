;;; ecl.sh, part 3: 4 mp:process-run-function workers, each building a
;;; 500,000-element list (plus a vector and strings) while the others
;;; allocate, one of them collecting explicitly from its own thread;
;;; checksums collected with mp:process-join; three rounds of fresh
;;; workers, then the same work recomputed serially.
(defun work (k)
  (let ((acc '()))
    (loop for i from 0 below 500000 do (push (+ (* i (1+ k)) k) acc))
    (when (= k 2) (si:gc t))
    (let ((v (coerce acc 'vector))
          (strs (loop for x in acc repeat 1000 collect (princ-to-string x))))
      (list k (length acc) (reduce #'+ acc)
            (length (apply #'concatenate 'string strs))
            (aref v 0) (reduce #'+ v)))))

(defun run-workers (round)
  (let ((procs (loop for k below 4
                     collect (let ((k k))
                               (mp:process-run-function (format nil "worker-~d-~d" round k)
                                                        (lambda () (work k)))))))
    (mapcar #'mp:process-join procs)))

(defvar *results* (run-workers 0))
(dolist (r *results*)
  (format t "worker ~d: length ~d sum ~d strlen ~d first ~d vector-sum-ok ~a~%"
          (first r) (second r) (third r) (fourth r) (fifth r) (= (third r) (sixth r))))
(format t "total sum ~d~%" (reduce #'+ (mapcar #'third *results*)))
(format t "rounds 1 and 2 equal to round 0: ~a~%"
        (every (lambda (round) (equal (run-workers round) *results*)) '(1 2)))
(format t "matches serial: ~a~%" (equal *results* (loop for k below 4 collect (work k))))
