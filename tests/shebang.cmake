# shebang (user/util/shebang.c): a script's "#!" line read as the kernel reads it, and the
# interpreter a chain of scripts ends in (what `--unwind auto` chooses from).
add_criterion_test(shebang_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/shebang_unit.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS unit)
