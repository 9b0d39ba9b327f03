# add_criterion_test(NAME SOURCES src... [LIBS lib...] [LABELS label...]): one Criterion
# binary registered with ctest. Shared by tests/ and kernel-under-test/tests/.
# LABELS: "unit" (no root) or "bpf" (root + BTF; must not skip under CI=true).
include_guard(GLOBAL)

# GLOBAL: the imported target is needed in every directory that declares tests.
pkg_check_modules(CRITERION REQUIRED IMPORTED_TARGET GLOBAL criterion)

# Timeouts guard against hangs, never measure speed (tests/test_timeout.h, the C side of
# this, is on every test's include path). The sanitizers make system calls, traps and deep
# recursion several times slower, so their guards are scaled; TRACER_TEST_TIME_SCALE can
# stretch them further on a slow host.
if(TRACER_SANITIZE)
	set(default_time_scale 10)
else()
	set(default_time_scale 1)
endif()
set(TRACER_TEST_TIME_SCALE ${default_time_scale} CACHE STRING
	"factor applied to every test timeout (Criterion .timeout and ctest TIMEOUT)")

# tracer_test_timeout(NAME SECONDS): ctest's guard for one test binary, scaled.
function(tracer_test_timeout name seconds)
	math(EXPR scaled "${seconds} * ${TRACER_TEST_TIME_SCALE}")
	set_tests_properties(${name} PROPERTIES TIMEOUT ${scaled})
endfunction()

function(add_criterion_test name)
	cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
	add_executable(${name} ${T_SOURCES})
	target_compile_options(${name} PRIVATE ${TRACER_WARNINGS})
	target_compile_definitions(${name} PRIVATE
		TESTS_SRC_DIR="${CMAKE_CURRENT_SOURCE_DIR}"
		TESTS_BIN_DIR="${CMAKE_CURRENT_BINARY_DIR}"
		TEST_TIME_SCALE=${TRACER_TEST_TIME_SCALE})
	target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
	target_link_libraries(${name} PRIVATE PkgConfig::CRITERION ${T_LIBS})
	add_test(NAME ${name} COMMAND ${name} --verbose=0 -j1)
	if(T_LABELS)
		set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}")
	endif()
endfunction()
