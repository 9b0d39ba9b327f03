# Where traced profiles go (user/cli/profile_output.c): the -o checks made before tracing,
# and --workload all -o DIR creating DIR. Unit: no root, no tracing.
add_criterion_test(profile_output_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/profile_output_unit.c
	LIBS tracer_core
	LABELS unit)
