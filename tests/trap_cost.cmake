# The start-up trap timing: its advice (unit) and, as root, the measurement itself.
add_criterion_test(trap_cost_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/trap_cost_unit.c
	LIBS tracer_core
	LABELS unit)
target_link_libraries(trap_cost_unit PRIVATE m)

add_criterion_test(trap_cost_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/trap_cost_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(trap_cost_e2e PRIVATE TRACER_BIN="$<TARGET_FILE:tracer>")
add_dependencies(trap_cost_e2e tracer)
tracer_test_timeout(trap_cost_e2e 300)
