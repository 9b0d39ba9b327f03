# Privilege safety: the DHAT writer as root in sticky world-writable directories (unit; the
# ownership cases need root), and the tracer under sudo (bpf: root + BTF).
add_criterion_test(privilege_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/privilege_unit.c
	LIBS tracer_core dhat_fixture
	LABELS unit)

add_criterion_test(privilege_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/privilege_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(privilege_e2e PRIVATE TRACER_BIN="$<TARGET_FILE:tracer>")
add_dependencies(privilege_e2e tracer)
tracer_test_timeout(privilege_e2e 300)
