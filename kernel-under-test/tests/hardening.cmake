# The shell kernel under hostile input (limits, nesting, huge inputs, the symlink-swap race
# against the sandbox): unit, no root.
add_criterion_test(kernel_hardening_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernel_hardening_unit.c ${CMAKE_CURRENT_SOURCE_DIR}/kernel_harness.c
	LIBS kaish Threads::Threads
	LABELS unit)
tracer_test_timeout(kernel_hardening_unit 600)
