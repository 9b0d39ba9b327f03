# The start-up trap timing: its advice (unit) and, as root, the measurement itself.
add_criterion_test(trap_cost_test
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/trap_cost_test.c
	LIBS tracer_core
	LABELS unit)
target_link_libraries(trap_cost_test PRIVATE m)
