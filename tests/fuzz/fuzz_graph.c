/* fuzz_graph.c - libFuzzer target for the graph parser: any text over 3
 * inputs is parsed without a crash or a hang, a graph that parses prints
 * back to text that parses to the same graph, and its sizes and timing are
 * asked for without a crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    clv_graph_desc *desc = NULL, *again = NULL;
    clv_msg msg = {{0}};
    if (clv_graph_parse(text, 3, NULL, &desc, &msg) == 0) {
        static char printed[65536], twice[65536];
        clv_graph_format(desc, printed, sizeof printed);
        if (clv_graph_parse(printed, 3, NULL, &again, &msg) != 0) {
            fprintf(stderr, "'%s' printed as '%s', which does not parse: %s\n", text, printed,
                    msg.text);
            abort();
        }
        clv_graph_format(again, twice, sizeof twice);
        if (strcmp(printed, twice) != 0) {
            fprintf(stderr, "'%s' -> '%s' -> '%s'\n", text, printed, twice);
            abort();
        }
        clv_size in[3] = {{17, 9, 1, 1, 0, 0, 0}, {17, 9, 1, 1, 0, 0, 0}, {5, 3, 1, 1, 0, 0, 0}};
        clv_size out;
        clv_graph_desc_output_size(desc, in, &out, &msg);
        for (int k = 0; k < 3; k++) {
            clv_graph_sync sync;
            if (clv_graph_desc_uses(desc, k))
                clv_graph_desc_sync(desc, k, &sync);
        }
        clv_graph_desc_destroy(again);
        clv_graph_desc_destroy(desc);
    } else if (!msg.text[0]) {
        fprintf(stderr, "'%s' was refused without a message\n", text);
        abort();
    }
    free(text);
    return 0;
}
