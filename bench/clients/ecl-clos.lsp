;;; ecl-clos.lsp: the ecl-clos workload of bench/run-clients.sh.  A
;;; CLOS-heavy simulation: a class hierarchy with slots and initforms,
;;; generic functions dispatching on one and two arguments, :before,
;;; :after and :around methods, CALL-NEXT-METHOD chains, EQL specializers,
;;; INITIALIZE-INSTANCE methods, SLOT-VALUE and accessors, PRINT-OBJECT
;;; into string streams, and CHANGE-CLASS.  Prints a deterministic summary.
(defpackage :bench-clos (:use :cl))
(in-package :bench-clos)

(defclass shape () ((id :initarg :id :reader shape-id)
                    (tags :initform nil :accessor shape-tags)
                    (visits :initform 0 :accessor shape-visits)))
(defclass point (shape) ((x :initarg :x :accessor x) (y :initarg :y :accessor y)))
(defclass circle (point) ((r :initarg :r :accessor r)))
(defclass rect (point) ((w :initarg :w :accessor w) (h :initarg :h :accessor h)))
(defclass square (rect) ())
(defclass polygon (shape) ((vertices :initarg :vertices :accessor vertices)))
(defclass labelled-mixin () ((label :initform "" :accessor label)))
(defclass labelled-circle (labelled-mixin circle) ())

(defmethod initialize-instance :after ((s shape) &key)
  (push :new (shape-tags s)))
(defmethod initialize-instance :after ((s labelled-mixin) &key)
  (setf (label s) (format nil "L~D" (shape-id s))))

(defgeneric area (s))
(defmethod area ((s shape)) 0)
(defmethod area ((c circle)) (* 3 (r c) (r c)))
(defmethod area ((r rect)) (* (w r) (h r)))
(defmethod area ((p polygon))
  (let ((v (vertices p)) (sum 0))
    (loop for (a b) on (append v (list (first v))) while b
          do (incf sum (- (* (x a) (y b)) (* (x b) (y a)))))
    (floor (abs sum) 2)))
(defmethod area :before ((s shape)) (incf (shape-visits s)))
(defmethod area :around ((s square))
  (let ((a (call-next-method))) (if (> a 100) (- a 1) a)))

(defgeneric describe-shape (s stream))
(defmethod describe-shape ((s shape) stream) (format stream "#~D" (shape-id s)))
(defmethod describe-shape ((p point) stream)
  (call-next-method) (format stream "@(~D,~D)" (x p) (y p)))
(defmethod describe-shape ((c circle) stream)
  (call-next-method) (format stream "r~D" (r c)))
(defmethod describe-shape ((r rect) stream)
  (call-next-method) (format stream "[~Dx~D]" (w r) (h r)))
(defmethod describe-shape ((l labelled-mixin) stream)
  (format stream "~A:" (label l)) (call-next-method))
(defmethod describe-shape :after ((s square) stream) (write-string "sq" stream))

(defmethod print-object ((s shape) stream)
  (print-unreadable-object (s stream :type t) (describe-shape s stream)))

(defgeneric collide (a b))
(defmethod collide ((a shape) (b shape)) :miss)
(defmethod collide ((a point) (b point))
  (if (and (= (x a) (x b)) (= (y a) (y b))) :hit (call-next-method)))
(defmethod collide ((a circle) (b circle))
  (let ((dx (- (x a) (x b))) (dy (- (y a) (y b))) (rr (+ (r a) (r b))))
    (if (<= (+ (* dx dx) (* dy dy)) (* rr rr)) :overlap (call-next-method))))
(defmethod collide ((a rect) (b circle)) (collide b a))
(defmethod collide ((a circle) (b rect))
  (if (and (<= (x b) (x a) (+ (x b) (w b))) (<= (y b) (y a) (+ (y b) (h b)))) :inside :miss))

(defgeneric scale (s factor))
(defmethod scale ((s shape) (factor (eql 1))) s)
(defmethod scale ((p point) factor) (setf (x p) (* (x p) factor) (y p) (* (y p) factor)) p)
(defmethod scale ((c circle) factor) (setf (r c) (* (r c) factor)) c)
(defmethod scale ((r rect) factor) (setf (w r) (* (w r) factor) (h r) (* (h r) factor)) r)
(defmethod scale ((p polygon) factor)
  (dolist (v (vertices p) p) (setf (x v) (* (x v) factor) (y v) (* (y v) factor))))

(defvar *seed* 12345)
(defvar *kept* nil)   ; every generation's shapes stay live: the heap grows
(defun rnd (n) (setf *seed* (mod (* *seed* 16807) 2147483647)) (mod *seed* n))

(defun make-random-shape (id)
  (case (rnd 6)
    (0 (make-instance 'point :id id :x (rnd 100) :y (rnd 100)))
    (1 (make-instance 'circle :id id :x (rnd 100) :y (rnd 100) :r (1+ (rnd 10))))
    (2 (make-instance 'rect :id id :x (rnd 100) :y (rnd 100) :w (1+ (rnd 20)) :h (1+ (rnd 20))))
    (3 (make-instance 'square :id id :x (rnd 100) :y (rnd 100) :w 12 :h 12))
    (4 (make-instance 'labelled-circle :id id :x (rnd 100) :y (rnd 100) :r (1+ (rnd 5))))
    (t (make-instance 'polygon :id id
                      :vertices (loop repeat (+ 3 (rnd 4))
                                      collect (make-instance 'point :id -1 :x (rnd 50) :y (rnd 50)))))))

(defun generation (g n)
  (let* ((shapes (loop for i below n collect (make-random-shape (+ (* g n) i))))
         (vec (coerce shapes 'vector))
         (total-area 0) (hits (make-hash-table)) (text-length 0))
    (dolist (s shapes) (incf total-area (area s)))
    (dotimes (k (* 4 n))
      (let ((r (collide (aref vec (rnd n)) (aref vec (rnd n)))))
        (incf (gethash r hits 0))))
    (dolist (s shapes) (scale s (1+ (rnd 2))))
    (dolist (s shapes) (incf total-area (area s)))
    (dolist (s shapes)
      (incf text-length (length (with-output-to-string (o) (print-object s o)))))
    ;; every tenth circle becomes a square, keeping its slots' shared names
    (loop for s in shapes for i from 0
          when (and (zerop (mod i 10)) (typep s 'circle) (not (typep s 'labelled-mixin)))
            do (change-class s 'square :w 3 :h 4)
               (incf total-area (area s)))
    (push shapes *kept*)
    (list total-area text-length
          (sort (loop for k being the hash-keys of hits using (hash-value v) collect (cons k v))
                #'string< :key (lambda (p) (symbol-name (car p)))))))

(let ((results (loop for g below 24 collect (generation g 4000))))
  (format t "generations ~D~%" (length results))
  (format t "area ~D text ~D~%" (reduce #'+ results :key #'first) (reduce #'+ results :key #'second))
  (format t "kept ~D shapes~%" (reduce #'+ *kept* :key #'length))
  (format t "first ~S~%last ~S~%" (third (first results)) (third (car (last results)))))
