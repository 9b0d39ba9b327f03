# Root safety (tests/security/, docs/RELIABILITY.md "Root safety"): what the tracer opens,
# writes and prints because of the program it traces, and how it treats hostile input.
# security_unit: no tracing (some cases need root: chown, setfsuid; they skip otherwise).
# security_e2e: the tracer binary against a hostile target (root + BTF: label bpf).
set(SEC_SRC ${CMAKE_CURRENT_SOURCE_DIR}/security)
set(SEC_DIR ${CMAKE_CURRENT_BINARY_DIR}/security)

# named_alloc: a function named with terminal escapes; named_alloc_linked: stripped, its
# DWARF in named_alloc.debug, found through .gnu_debuglink (name "named_alloc.debug").
add_executable(sec_named_alloc ${SEC_SRC}/data/named_alloc.c)
target_compile_options(sec_named_alloc PRIVATE -g -O1 -fno-omit-frame-pointer -Wall -Werror)
set_target_properties(sec_named_alloc PROPERTIES OUTPUT_NAME named_alloc
	RUNTIME_OUTPUT_DIRECTORY ${SEC_DIR})
add_custom_command(
	OUTPUT ${SEC_DIR}/named_alloc.debug ${SEC_DIR}/named_alloc_linked
	COMMAND ${CMAKE_OBJCOPY} --only-keep-debug $<TARGET_FILE:sec_named_alloc>
		${SEC_DIR}/named_alloc.debug
	COMMAND ${CMAKE_OBJCOPY} --strip-all --add-gnu-debuglink=${SEC_DIR}/named_alloc.debug
		$<TARGET_FILE:sec_named_alloc> ${SEC_DIR}/named_alloc_linked
	DEPENDS sec_named_alloc
	COMMENT "Security fixtures: stripped copy with a debuglink"
	VERBATIM)
add_custom_target(sec_fixtures DEPENDS ${SEC_DIR}/named_alloc_linked)

add_criterion_test(security_unit
	SOURCES ${SEC_SRC}/security_unit.c ${SEC_SRC}/sec_util.c
	LIBS tracer_core
	LABELS unit)
target_compile_definitions(security_unit PRIVATE SEC_DIR="${SEC_DIR}"
	OBJCOPY="${CMAKE_OBJCOPY}")
add_dependencies(security_unit sec_fixtures)
tracer_test_timeout(security_unit 300)

add_criterion_test(security_e2e
	SOURCES ${SEC_SRC}/security_e2e.c ${SEC_SRC}/sec_util.c
		${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(security_e2e PRIVATE SEC_DIR="${SEC_DIR}"
	TRACER_BIN="$<TARGET_FILE:tracer>" GO_ALLOCS_BIN="$<TARGET_FILE:host_go_allocs>")
add_dependencies(security_e2e tracer sec_fixtures host_go_allocs)
tracer_test_timeout(security_e2e 600)
