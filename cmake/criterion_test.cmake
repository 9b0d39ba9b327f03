# add_criterion_test(NAME SOURCES src... [LIBS lib...] [LABELS label...]): one Criterion
# binary registered with ctest. Shared by tests/ and kernel-under-test/tests/.
# LABELS: "unit" (no root) or "bpf" (root + BTF; must not skip under CI=true).
include_guard(GLOBAL)

# GLOBAL: the imported target is needed in every directory that declares tests.
pkg_check_modules(CRITERION REQUIRED IMPORTED_TARGET GLOBAL criterion)

function(add_criterion_test name)
	cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
	add_executable(${name} ${T_SOURCES})
	target_compile_options(${name} PRIVATE ${TRACER_WARNINGS})
	target_compile_definitions(${name} PRIVATE
		TESTS_SRC_DIR="${CMAKE_CURRENT_SOURCE_DIR}"
		TESTS_BIN_DIR="${CMAKE_CURRENT_BINARY_DIR}")
	target_link_libraries(${name} PRIVATE PkgConfig::CRITERION ${T_LIBS})
	add_test(NAME ${name} COMMAND ${name} --verbose=0 -j1)
	if(T_LABELS)
		set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}")
	endif()
endfunction()
