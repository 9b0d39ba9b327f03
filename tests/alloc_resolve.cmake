# Allocator resolution end to end (issue #15): jemalloc in the executable, mimalloc as the first
# DT_NEEDED, Rust global allocators (built by the test with rustc), and the warnings for an empty
# profile or a dlopen'd allocator. Root + BTF: label bpf. The fixtures are built without the
# sanitizers, whose runtime would be the allocator.
set(ALLOC_FIX ${CMAKE_CURRENT_SOURCE_DIR}/data/alloc)
set(ALLOC_FIX_FLAGS -O1 -g -fno-sanitize=all)
set(JEMALLOC_PIC /usr/lib/x86_64-linux-gnu/libjemalloc_pic.a)

add_executable(alloc_jemalloc_static ${ALLOC_FIX}/jemalloc_static.c)
add_executable(alloc_mallocx_only ${ALLOC_FIX}/mallocx_only.c)
foreach(t alloc_jemalloc_static alloc_mallocx_only)
	target_compile_options(${t} PRIVATE ${ALLOC_FIX_FLAGS})
	target_link_options(${t} PRIVATE -fno-sanitize=all)
	target_link_libraries(${t} PRIVATE ${JEMALLOC_PIC} Threads::Threads dl m)
endforeach()

# -Wl,--no-as-needed: libmimalloc stays the first DT_NEEDED though no mi_* symbol is used.
add_executable(alloc_mimalloc_prog ${ALLOC_FIX}/mimalloc_prog.c)
target_compile_options(alloc_mimalloc_prog PRIVATE ${ALLOC_FIX_FLAGS})
target_link_options(alloc_mimalloc_prog PRIVATE -fno-sanitize=all -Wl,--no-as-needed)
target_link_libraries(alloc_mimalloc_prog PRIVATE mimalloc)

add_executable(alloc_noalloc ${ALLOC_FIX}/noalloc.c)
add_executable(alloc_dlopen ${ALLOC_FIX}/dlopen_alloc.c)
foreach(t alloc_noalloc alloc_dlopen)
	target_compile_options(${t} PRIVATE ${ALLOC_FIX_FLAGS})
	target_link_options(${t} PRIVATE -fno-sanitize=all)
endforeach()
target_link_libraries(alloc_dlopen PRIVATE dl)

# Debian's rustc first (the one CI installs; the fixtures' figures were taken with it), else
# any on the PATH. Not found: the Rust tests fail and say so.
add_executable(alloc_cxx_new ${ALLOC_FIX}/cxx_new.cc)
target_compile_options(alloc_cxx_new PRIVATE ${ALLOC_FIX_FLAGS})
target_link_options(alloc_cxx_new PRIVATE -fno-sanitize=all)

find_program(ALLOC_RUSTC rustc PATHS /usr/bin NO_DEFAULT_PATH)
find_program(ALLOC_RUSTC rustc)
if(NOT ALLOC_RUSTC)
	set(ALLOC_RUSTC rustc)
endif()

add_criterion_test(alloc_resolve_e2e
	SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/alloc_resolve_e2e.c ${CMAKE_CURRENT_SOURCE_DIR}/e2e_util.c
	LIBS tracer_core
	LABELS bpf)
target_compile_definitions(alloc_resolve_e2e PRIVATE
	TRACER_BIN="$<TARGET_FILE:tracer>"
	RUSTC_BIN="${ALLOC_RUSTC}"
	JEMALLOC_STATIC_BIN="$<TARGET_FILE:alloc_jemalloc_static>"
	MIMALLOC_PROG_BIN="$<TARGET_FILE:alloc_mimalloc_prog>"
	MALLOCX_ONLY_BIN="$<TARGET_FILE:alloc_mallocx_only>"
	NOALLOC_BIN="$<TARGET_FILE:alloc_noalloc>"
	DLOPEN_ALLOC_BIN="$<TARGET_FILE:alloc_dlopen>"
	CXX_NEW_BIN="$<TARGET_FILE:alloc_cxx_new>")
add_dependencies(alloc_resolve_e2e tracer alloc_jemalloc_static alloc_mimalloc_prog
	alloc_mallocx_only alloc_noalloc alloc_dlopen alloc_cxx_new)
tracer_test_timeout(alloc_resolve_e2e 900)
