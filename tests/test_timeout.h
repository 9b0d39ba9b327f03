/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Timeouts in tests guard against a hang, never measure speed: a test asserts behaviour.
 *
 * TEST_TIMEOUT(s) takes a guard sized for an ordinary build on the slowest host of this
 * machine kind seen so far (at least 10x the test's time there) and scales it by
 * TEST_TIME_SCALE, which CMake sets from TRACER_TEST_TIME_SCALE (10 under the sanitizers,
 * whose traps and shadow memory make system calls and deep recursion several times slower).
 * ctest's per-binary TIMEOUT is scaled by the same factor (tracer_test_timeout() in
 * tests/CMakeLists.txt).
 */
#ifndef TESTS_TEST_TIMEOUT_H
#define TESTS_TEST_TIMEOUT_H

#ifndef TEST_TIME_SCALE
#define TEST_TIME_SCALE 1
#endif

#define TEST_TIMEOUT(seconds) ((double)(seconds) * (TEST_TIME_SCALE))

#endif
