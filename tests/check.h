/* check.h - CHECK(cond, format, ...): a check that says where it failed
 * (file, line, the condition and a message) and counts the failure in
 * test_failures, which each test program defines. */
#ifndef CLVID_TEST_CHECK_H
#define CLVID_TEST_CHECK_H

#include <stdio.h>

extern int test_failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            test_failures++;                                                                       \
        }                                                                                          \
    } while (0)

#endif
