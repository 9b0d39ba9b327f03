# python: CPython read from outside (user/python/, issue #32).
#  - python_unit: line-table decoders against each interpreter's own line numbers, the layout
#    table (no root);
#  - python_live_unit: detection, layouts, the userspace frame walk and the frame namer on
#    live interpreters blocked in a known call chain. Labelled unit: the interpreters are its
#    own children (process_vm_readv needs no root) and no BPF is involved.
# python_util.c: the pyenv interpreters both run (each skipped, saying so, when absent).
add_criterion_test(python_unit SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/python_unit.c
	${CMAKE_CURRENT_SOURCE_DIR}/python_util.c
	LIBS tracer_core LABELS unit)
add_criterion_test(python_live_unit SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/python_live_unit.c
	${CMAKE_CURRENT_SOURCE_DIR}/python_util.c
	LIBS tracer_core LABELS unit)
