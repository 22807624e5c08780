;; Loops forever: only fuel or a timeout stops it.
(module
  (func (export "_start") (loop $forever (br $forever))))
