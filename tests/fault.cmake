# Fault injection against the tracer binary (root + BTF: label bpf): a tiny ring buffer,
# killed targets and tracers, SIGTERM/SIGINT, attach races, two tracers, exec, and no probes
# left behind by a SIGKILLed tracer. See docs/RELIABILITY.md.
add_executable(fault_alloc_spin ${CMAKE_CURRENT_SOURCE_DIR}/data/fault/alloc_spin.c)
target_compile_options(fault_alloc_spin PRIVATE ${TRACER_WARNINGS} -O1 -g)
set_target_properties(fault_alloc_spin PROPERTIES OUTPUT_NAME alloc_spin
	RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fault)

add_executable(fault_many_maps ${CMAKE_CURRENT_SOURCE_DIR}/data/fault/many_maps.c)
target_compile_options(fault_many_maps PRIVATE ${TRACER_WARNINGS} -O1 -g)
set_target_properties(fault_many_maps PROPERTIES OUTPUT_NAME many_maps
	RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fault)

add_criterion_test(fault_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/fault_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(fault_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	EMBEDDER_BIN="$<TARGET_FILE:kaish-embedder>"
	SPIN_BIN="$<TARGET_FILE:fault_alloc_spin>"
	MANY_MAPS_BIN="$<TARGET_FILE:fault_many_maps>"
	DHVIEW_CHECK="${CMAKE_CURRENT_SOURCE_DIR}/tools/dhview_check.py")
add_dependencies(fault_e2e tracer kaish-embedder fault_alloc_spin fault_many_maps)
tracer_test_timeout(fault_e2e 1800)
