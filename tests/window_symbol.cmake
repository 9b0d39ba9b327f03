# --start-at/--stop-at names: "PATH:NAME" splitting and demangled names resolved to ELF
# symbols (user/trace/window_symbol.c), on the C++ fixture and, with rustc, the Rust one.
add_criterion_test(window_symbol_unit
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/window_symbol_unit.c
	LIBS tracer_core
	LABELS unit)
target_compile_definitions(window_symbol_unit PRIVATE
	CXX_BIN="$<TARGET_FILE:symfix_cxx>")
add_dependencies(window_symbol_unit symfix_cxx)
if(SITES_RS_BIN)
	target_compile_definitions(window_symbol_unit PRIVATE RS_BIN="${SITES_RS_BIN}")
	add_dependencies(window_symbol_unit sites_rs_prog)
endif()
