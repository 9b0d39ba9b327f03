# py_sites: where the loader probes pymalloc's inlined copies (user/trace/py_sites.c): the
# slow-path walk on hand-encoded bytes, and Debian's python3.11 checked against objdump.
add_criterion_test(py_sites_unit SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/py_sites_unit.c
	LIBS tracer_core LABELS unit)
