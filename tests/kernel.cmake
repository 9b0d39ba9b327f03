# The shell kernel's suites: one binary per module, all sharing kernel_harness.c (fixture,
# agent kernel, kaish_execute on a KAISH_RECOMMENDED_STACK_SIZE thread).
foreach(suite workloads lang builtins vfs)
	if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/kernel_${suite}.c)
		add_criterion_test(kernel_${suite}
			SOURCES kernel_${suite}.c kernel_harness.c
			LIBS kaish Threads::Threads
			LABELS unit)
	endif()
endforeach()
