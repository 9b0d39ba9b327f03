# Readable program points, end to end (root + BTF: label bpf): the report's rows for a
# Python one-liner and a Rust program name user-level functions with no two rows alike, and
# a program leaking at one site is named in the summary's still-live section; C++ calls that
# end their blocks (-O2) are named at their own lines.
# -fno-sanitize=all: the programs are traced, not tested.
add_executable(sites_leak_prog ${CMAKE_CURRENT_SOURCE_DIR}/data/sites/leak.c)
target_compile_options(sites_leak_prog PRIVATE -O0 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(sites_leak_prog PRIVATE -fno-sanitize=all)

# Heavy C++ STL names (std::map<std::string, std::vector<std::string>>), -O0: not inlined.
add_executable(sites_stl_prog ${CMAKE_CURRENT_SOURCE_DIR}/data/sites/stl_map.cc)
target_compile_options(sites_stl_prog PRIVATE -O0 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(sites_stl_prog PRIVATE -fno-sanitize=all)

# Calls that end their blocks, -O2: each return address is the line after the call's.
add_executable(sites_block_calls_prog ${CMAKE_CURRENT_SOURCE_DIR}/data/sites/block_calls.cc)
target_compile_options(sites_block_calls_prog PRIVATE -O2 -g -fno-omit-frame-pointer
	-fno-sanitize=all)
target_link_options(sites_block_calls_prog PRIVATE -fno-sanitize=all)

add_criterion_test(sites_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/sites_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(sites_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	LEAK_PROG_BIN="$<TARGET_FILE:sites_leak_prog>"
	STL_PROG_BIN="$<TARGET_FILE:sites_stl_prog>"
	BLOCK_CALLS_BIN="$<TARGET_FILE:sites_block_calls_prog>"
	BLOCK_CALLS_SRC="${CMAKE_CURRENT_SOURCE_DIR}/data/sites/block_calls.cc")
add_dependencies(sites_e2e tracer sites_leak_prog sites_stl_prog sites_block_calls_prog)
tracer_test_timeout(sites_e2e 600)

# The Rust program, built by rustc as tests/dwarf.cmake does (rustup's ~/.cargo/bin is not
# always on PATH). Without rustc the Rust test skips, and fails under CI=true.
find_program(RUSTC_EXECUTABLE rustc HINTS $ENV{HOME}/.cargo/bin /root/.cargo/bin)
if(RUSTC_EXECUTABLE)
	set(SITES_RS_BIN ${CMAKE_CURRENT_BINARY_DIR}/e2e-sites/rs_sites)
	add_custom_command(
		OUTPUT ${SITES_RS_BIN}
		COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/e2e-sites
		COMMAND ${CMAKE_COMMAND} -E env --unset=MAKEFLAGS --unset=MFLAGS
			${RUSTC_EXECUTABLE} -O -g --crate-name rs_sites -o ${SITES_RS_BIN}
			${CMAKE_CURRENT_SOURCE_DIR}/data/sites/rs_sites.rs
		DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/data/sites/rs_sites.rs
		COMMENT "sites e2e fixture: rustc -O -g rs_sites"
		VERBATIM)
	add_custom_target(sites_rs_prog DEPENDS ${SITES_RS_BIN})
	add_dependencies(sites_e2e sites_rs_prog)
	target_compile_definitions(sites_e2e PRIVATE SITES_RS_BIN="${SITES_RS_BIN}")
endif()
