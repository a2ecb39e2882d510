/* fuzz_chain.c - libFuzzer target for the chain parser: any text is parsed
 * without a crash, and a chain that parses prints back to text that parses
 * to the same chain (so messages and the HUD never show something else). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clvid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    clv_chain_desc *desc = NULL, *again = NULL;
    clv_msg msg = {{0}};
    if (clv_chain_parse(text, &desc, &msg) == 0) {
        char printed[8192];
        clv_chain_format(desc, printed, sizeof printed);
        if (clv_chain_parse(printed, &again, &msg) != 0) {
            fprintf(stderr, "'%s' printed as '%s', which does not parse: %s\n", text, printed,
                    msg.text);
            abort();
        }
        char twice[8192];
        clv_chain_format(again, twice, sizeof twice);
        if (strcmp(printed, twice) != 0) {
            fprintf(stderr, "'%s' -> '%s' -> '%s'\n", text, printed, twice);
            abort();
        }
        clv_chain_desc_destroy(again);
        clv_chain_desc_destroy(desc);
    } else if (!msg.text[0]) {
        fprintf(stderr, "'%s' was refused without a message\n", text);
        abort();
    }
    free(text);
    return 0;
}
