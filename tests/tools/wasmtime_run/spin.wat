;; Loops forever: only fuel stops it.
(module
  (func (export "_start") (loop $forever (br $forever))))
