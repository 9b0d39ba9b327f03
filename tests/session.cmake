# The session (window routing) and frames (stack -> frame list) modules, without BPF.
add_criterion_test(session_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/session_unit.c
	LIBS tracer_core
	LABELS unit)
