;; The decoder leaves the instruction-level rules of function bodies to validation
;; (binary::DecodeOptions::defer_body_checks, api/module.cc) and checks them only
;; when validation or a later section fails: the error must stay the one the
;; decoder reported when it read every body first (messages and precedence
;; taken from weft at d9c2775, which did).

;; function 0 invalid (i32.add on an empty stack), function 1 malformed: the malformed body wins
(assert_malformed (module binary "\00\61\73\6d\01\00\00\00\01\04\01\60\00\00\03\03\02\00\00\0a\09\02\03\00\6a\0b\03\00\27\0b") "illegal opcode")
;; a valid body with a byte after its end
(assert_malformed (module binary "\00\61\73\6d\01\00\00\00\01\04\01\60\00\00\03\02\01\00\0a\05\01\03\00\0b\01") "section size mismatch")
;; a malformed body, then a malformed data section: the body comes first
(assert_malformed (module binary "\00\61\73\6d\01\00\00\00\01\04\01\60\00\00\03\02\01\00\05\03\01\00\01\0a\05\01\03\00\27\0b\0b\02\01\07") "illegal opcode")
;; memory.init with a data section but no data count section
(assert_malformed (module binary "\00\61\73\6d\01\00\00\00\01\04\01\60\00\00\03\02\01\00\05\03\01\00\01\0a\0e\01\0c\00\41\00\41\00\41\00\fc\08\00\00\0b\0b\03\01\01\00") "data count section required")
;; an invalid body, then a malformed data section: decoding fails first
(assert_malformed (module binary "\00\61\73\6d\01\00\00\00\01\04\01\60\00\00\03\02\01\00\05\03\01\00\01\0a\05\01\03\00\6a\0b\0b\02\01\07") "malformed data segment kind")
;; a body that stops short of its end, before another body
(assert_malformed (module binary "\00\61\73\6d\01\00\00\00\01\04\01\60\00\00\03\03\02\00\00\0a\07\02\02\00\01\02\00\0b") "END opcode expected")
;; else outside an if
(assert_malformed (module binary "\00\61\73\6d\01\00\00\00\01\04\01\60\00\00\03\02\01\00\0a\05\01\03\00\05\0b") "END opcode expected")
;; an invalid body, then a body whose locals are malformed
(assert_malformed (module binary "\00\61\73\6d\01\00\00\00\01\04\01\60\00\00\03\03\02\00\00\0a\14\02\03\00\6a\0b\0e\02\ff\ff\ff\ff\0f\7f\ff\ff\ff\ff\0f\7f\0b") "too many locals")
;; the same memory.init with its data count section: valid
(module binary "\00\61\73\6d\01\00\00\00\01\04\01\60\00\00\03\02\01\00\05\03\01\00\01\0c\01\01\0a\0e\01\0c\00\41\00\41\00\41\00\fc\08\00\00\0b\0b\03\01\01\00")
