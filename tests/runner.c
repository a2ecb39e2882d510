/* runner.c - runs one test by name (as ctest does) or all; `--list` prints
 * the names. Exit 0 pass, 1 fail, 77 skip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

int test_failures;

typedef struct test_entry {
    const char *name;
    int (*run)(void);
} test_entry;

static const test_entry tests[] = {
#define TEST_ENTRY(name, labels) {#name, test_##name},
    TEST_LIST(TEST_ENTRY)
#undef TEST_ENTRY
};
#define TEST_COUNT ((int)(sizeof tests / sizeof tests[0]))

static int run_one(const test_entry *t)
{
    test_failures = 0;
    int status = t->run();
    if (status == TEST_SKIP) {
        printf("SKIP %s\n", t->name);
        return TEST_SKIP;
    }
    if (status || test_failures) {
        printf("FAIL %s (%d failed checks)\n", t->name, test_failures);
        return 1;
    }
    printf("PASS %s\n", t->name);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (int i = 0; i < TEST_COUNT; i++)
            printf("%s\n", tests[i].name);
        return 0;
    }
    if (argc == 2) {
        for (int i = 0; i < TEST_COUNT; i++)
            if (!strcmp(tests[i].name, argv[1]))
                return run_one(&tests[i]);
        fprintf(stderr, "clvid-tests: no test '%s' (--list shows them)\n", argv[1]);
        return 2;
    }
    int failed = 0, passed = 0, skipped = 0;
    for (int i = 0; i < TEST_COUNT; i++) {
        int s = run_one(&tests[i]);
        failed += s == 1;
        passed += s == 0;
        skipped += s == TEST_SKIP;
    }
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
