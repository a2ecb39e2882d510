/* test_graph.c - graphs of several inputs (clvid/graph.h): the parser
 * (every form of ffmpeg's syntax, every mistake with its place), the sizes,
 * the timing, and every graph filter on the device equal to the reference
 * graph bit for bit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "harness.h"

/* Parses text over `inputs` inputs and checks its formatted form. */
static void expect_graph(const char *text, int inputs, const char *output, const char *want)
{
    clv_graph_desc *desc = NULL;
    clv_msg msg = {{0}};
    int err = clv_graph_parse(text, inputs, output, &desc, &msg);
    CHECK(err == 0, "'%s' refused: %s", text, msg.text);
    if (err)
        return;
    char got[4096];
    clv_graph_format(desc, got, sizeof got);
    CHECK(strcmp(got, want) == 0, "'%s'\n   got: %s\n  want: %s", text, got, want);
    /* What it writes reads back as the same graph. */
    clv_graph_desc *again = NULL;
    err = clv_graph_parse(got, inputs, NULL, &again, &msg);
    CHECK(err == 0, "'%s' (formatted from '%s') refused: %s", got, text, msg.text);
    if (!err) {
        char twice[4096];
        clv_graph_format(again, twice, sizeof twice);
        CHECK_EQ_STR(twice, got);
    }
    clv_graph_desc_destroy(again);
    clv_graph_desc_destroy(desc);
}

/* The first line of the message is want; the excerpt's caret stands under
 * character `at` of the text. */
static void expect_graph_error(const char *text, int inputs, const char *output, const char *want,
                               int at)
{
    clv_graph_desc *desc = NULL;
    clv_msg msg = {{0}};
    int err = clv_graph_parse(text, inputs, output, &desc, &msg);
    CHECK(err == CLV_EPARSE, "'%s': got %d (%s), want CLV_EPARSE", text, err, msg.text);
    CHECK(desc == NULL, "'%s': a failed parse gave a description", text);
    size_t first = strcspn(msg.text, "\n");
    /* A want ending in "..." is the message's start (a list of filters
     * that grows with the registry). */
    size_t wl = strlen(want);
    int prefix = wl >= 3 && !strcmp(want + wl - 3, "...");
    CHECK(prefix ? wl - 3 <= first && !strncmp(msg.text, want, wl - 3)
                 : wl == first && !strncmp(msg.text, want, first),
          "'%s'\n   got: %s\n  want: %s", text, msg.text, want);
    /* "\n  TEXT\n  <spaces>^": the caret's column is the place (texts
     * here are short: no "..." before). */
    const char *caret = strrchr(msg.text, '^');
    const char *line = caret ? caret : msg.text;
    while (line > msg.text && line[-1] != '\n')
        line--;
    /* Beyond character 30 the excerpt starts 30 before it, after "...". */
    int col = at > 30 ? 33 : at;
    CHECK(caret && caret - line - 2 == col, "'%s': the caret stands at %d, want %d:\n%s", text,
          caret ? (int)(caret - line - 2) : -1, col, msg.text);
    clv_graph_desc_destroy(desc);
}

int test_graph_parse(void)
{
    /* Labels of inputs in every form; a chain's filters joined by ','. */
    expect_graph("[0][1]hstack", 2, NULL, "[0][1]hstack=inputs=2:shortest=0");
    /* ffmpeg's boolean words and its numbers for named values */
    expect_graph("[0][1]hstack=shortest=true", 2, NULL, "[0][1]hstack=inputs=2:shortest=1");
    expect_graph("[0][1]overlay=shortest=true:repeatlast=false", 2, NULL,
                 "[0][1]overlay=x=0:y=0:eof_action=repeat:eval=frame:shortest=1:format=yuv420:"
                 "repeatlast=0:alpha=straight");
    expect_graph("[0][1]overlay=eof_action=1:format=1:eval=0:alpha=1", 2, NULL,
                 "[0][1]overlay=x=0:y=0:eof_action=endall:eval=init:shortest=0:format=yuv420p10:"
                 "repeatlast=1:alpha=premultiplied");
    expect_graph("[0][1]xfade=transition=1", 2, NULL,
                 "[0][1]xfade=transition=wipeleft:duration=1:offset=0");
    expect_graph("[0][1]blend=all_mode=1:c0_mode=37", 2, NULL,
                 "[0][1]blend=c0_mode=stain:c1_mode=normal:c2_mode=normal:c3_mode=normal:"
                 "all_mode=addition:c0_opacity=1:c1_opacity=1:c2_opacity=1:c3_opacity=1:"
                 "all_opacity=1:eof_action=repeat:shortest=0:repeatlast=1");
    expect_graph("[0][1]blend=all_mode=-1:eof_action=2", 2, NULL,
                 "[0][1]blend=c0_mode=normal:c1_mode=normal:c2_mode=normal:c3_mode=normal:"
                 "all_mode=unset:c0_opacity=1:c1_opacity=1:c2_opacity=1:c3_opacity=1:"
                 "all_opacity=1:eof_action=pass:shortest=0:repeatlast=1");
    expect_graph("[0:v][1:v:0]vstack", 2, NULL, "[0][1]vstack=inputs=2:shortest=0");
    expect_graph("[1]hflip[a];[0][a]hstack,vflip", 2, NULL,
                 "[1]hflip[n0p0];[0][n0p0]hstack=inputs=2:shortest=0[n1p0];[n1p0]vflip");
    /* Unlabelled inputs take the inputs no label names, in order. */
    expect_graph("hstack", 2, NULL, "[0][1]hstack=inputs=2:shortest=0");
    expect_graph("[1]hflip[a];[a]hstack", 2, NULL,
                 "[1]hflip[n0p0];[n0p0][0]hstack=inputs=2:shortest=0");
    expect_graph("hflip[a];[a][1]vstack", 2, NULL,
                 "[0]hflip[n0p0];[n0p0][1]vstack=inputs=2:shortest=0");
    /* A label used before the output that gives it; blanks and newlines. */
    expect_graph("[a][1] hstack ;\n [0] vflip [a]", 2, NULL,
                 "[0]vflip[n0p0];[n0p0][1]hstack=inputs=2:shortest=0");
    /* split, its outputs used twice. */
    expect_graph("[0]split[a][b];[a]hflip[c];[b][c]hstack", 1, NULL,
                 "[0]split=outputs=2[n0p0][n0p1];[n0p0]hflip[n1p0];[n0p1][n1p0]hstack=inputs=2:"
                 "shortest=0");
    expect_graph(
        "split=3[a][b][c];[a][b][c]hstack=inputs=3:shortest=1", 1, NULL,
        "[0]split=outputs=3[n0p0][n0p1][n0p2];[n0p0][n0p1][n0p2]hstack=inputs=3:shortest=1");
    /* The input read twice without split (ffmpeg allows it). */
    expect_graph("[0][0]vstack", 1, NULL, "[0][0]vstack=inputs=2:shortest=0");
    /* The output picked by its label; values as chains give them. */
    expect_graph("[0][1]hstack[out]", 2, "out", "[0][1]hstack=inputs=2:shortest=0");
    expect_graph("[0]scale=w=32:h=-2,crop=16:8[x];[1]scale=16:8[y];[x][y]vstack[v]", 2, "v",
                 "[0]scale=w=32:h=-2:flags=bicubic:param0=123456:param1=123456:force_original_"
                 "aspect_ratio=disable:force_divisible_by=1[n0p0];[n0p0]crop=w=16:h=8:x=(in_w-out_"
                 "w)/2:y=(in_h-out_h)/2:keep_aspect=0:exact=0[n1p0];[1]scale=w=16:h=8:flags="
                 "bicubic:param0=123456:param1=123456:force_original_aspect_ratio=disable:force_"
                 "divisible_by=1[n2p0];[n1p0][n2p0]vstack=inputs=2:shortest=0");
    /* An input not read. */
    expect_graph("[1]gray", 3, NULL, "[1]gray");
    return 0;
}

int test_graph_errors(void)
{
    expect_graph_error("[0][1]hstak", 2, NULL,
                       "graph: filter #1 at character 6: unknown filter 'hstak'; did you mean "
                       "'hstack'? (filters: convolution, sharpen, emboss, ...",
                       6);
    expect_graph_error("[0]hflip;[1]gray,hstack=inputs=17", 2, NULL,
                       "graph: filter #3 at character 17: filter 'hstack' parameter 'inputs': 17 "
                       "is out of range (allowed: 2 to 16)",
                       31);
    expect_graph_error("[0][1]hstack;[x]vflip", 2, NULL,
                       "graph: unknown label '[x]' at character 13 (input 0 of filter 'vflip' (#2 "
                       "in the graph, at character 16)): no output has it, and it is no input "
                       "(\"[0]\", \"[1:v]\")",
                       13);
    expect_graph_error("[0]split[a][b];[a]hflip[c];[c][b]hstack[out];[b]vflip", 1, "out",
                       "graph: the label '[b]' (at character 45) is read twice; an output goes "
                       "to one input (split it: \"split[a][b]\")",
                       45);
    expect_graph_error("[0]split[a][b];[a]hflip", 1, NULL,
                       "graph: more than one output: '[b]' at character 11 (output 1 of filter "
                       "'split' (#1 in the graph, at character 3)) is not used, besides output 0 "
                       "of filter #2",
                       11);
    expect_graph_error("[0]split[a][b];[a]hflip;[b]vflip", 1, NULL,
                       "graph: more than one output: output 0 of filter 'vflip' (#3 in the graph, "
                       "at character 27) is not connected",
                       27);
    expect_graph_error("[0]hflip[a];[0]vflip[a];[a][1]hstack", 2, NULL,
                       "graph: the label '[a]' (at character 20) names two outputs; a label "
                       "names one",
                       20);
    expect_graph_error("[0][2]hstack", 2, NULL,
                       "graph: '[2]' at character 3: there is no input 2 (2 inputs, from 0)", 3);
    expect_graph_error("[0][1:a]hstack", 2, NULL,
                       "graph: '[1:a]' at character 3: a graph takes the video of its inputs "
                       "(\"[N]\", \"[N:v]\" or \"[N:v:0]\")",
                       3);
    expect_graph_error("[0]hstack", 1, NULL,
                       "graph: input 1 of filter 'hstack' (#1 in the graph, at character 3) is "
                       "not connected: no label names it and every one of the 1 input is taken "
                       "(give a label: \"[0]\")",
                       3);
    expect_graph_error("[0][a]hstack[b];[b]split[a][out]", 1, NULL,
                       "graph: a cycle: filter 'hstack' (#1 in the graph, at character 6) is fed, "
                       "through its inputs, by its own output",
                       6);
    /* A cycle that takes the graph's only output: the cycle is the news. */
    expect_graph_error("[0][a]hstack[b];[b]hflip[a]", 1, NULL,
                       "graph: a cycle: filter 'hstack' (#1 in the graph, at character 6) is fed, "
                       "through its inputs, by its own output",
                       6);
    expect_graph_error("[0]hflip[a][b]", 1, NULL,
                       "graph: filter 'hflip' (#1 in the graph, at character 3) has 1 output; the "
                       "label '[b]' at character 11 is one too many",
                       11);
    expect_graph_error("[0][1]hflip", 2, NULL,
                       "graph: filter 'hflip' (#1 in the graph, at character 6) takes 1 input; "
                       "more are given (at character 3)",
                       3);
    expect_graph_error("[0]hstack[out]", 2, "main",
                       "graph: no output is labelled '[main]' (the output to take)", 14);
    expect_graph_error("[0][1]hstack[o];[0]vflip[p]", 2, "o",
                       "graph: the label '[p]' at character 24 (output 0 of filter 'vflip' (#2 in "
                       "the graph, at character 19)) is not used: a graph has one output ('[o]')",
                       24);
    expect_graph_error("[0]hflip[", 1, NULL, "graph: a label's '[' at character 8 has no ']'", 8);
    expect_graph_error("[0]hflip[]", 1, NULL,
                       "graph: a bad label at character 8 (empty, or holding '[', ';', ',' or a "
                       "blank)",
                       8);
    expect_graph_error(" ", 1, NULL, "graph: the text is empty", 0);
    expect_graph_error("[0]hflip]", 1, NULL,
                       "graph: unexpected ']' at character 8 (filters are separated by ',' and "
                       "chains by ';')",
                       8);
    expect_graph_error("[0]yadif[a];[a][0]hstack", 1, NULL,
                       "graph: filter 'yadif' (#1 in the graph, at character 3) holds frames "
                       "back: it runs in a graph that is one chain only (-vf)",
                       3);
    /* A chain refuses the graphs' filters. */
    clv_chain_desc *chain = NULL;
    clv_msg msg = {{0}};
    CHECK(clv_chain_parse("hflip,hstack", &chain, &msg) == CLV_EPARSE && !chain,
          "a chain took hstack");
    CHECK(!strncmp(msg.text, "hstack takes 2 inputs: give it in a graph (-filter_complex)\n", 60),
          "%s", msg.text);
    CHECK(clv_chain_parse("vstack=inputs=3", &chain, &msg) == CLV_EPARSE, "a chain took vstack");
    CHECK(!strncmp(msg.text, "vstack takes 3 inputs: give", 27), "%s", msg.text);
    CHECK(clv_chain_parse("split", &chain, &msg) == CLV_EPARSE, "a chain took split");
    CHECK(!strncmp(msg.text, "split gives 2 outputs: give it in a graph", 41), "%s", msg.text);
    /* The API's lists: one-input filters, and the graphs' apart. */
    for (int i = 0; i < clv_filter_count(); i++)
        CHECK(clv_filter_inputs(clv_filter_at(i)) == 1 && clv_filter_outputs(clv_filter_at(i)) == 1,
              "%s in the chains' list", clv_filter_name(clv_filter_at(i)));
    CHECK(clv_graph_filter_count() >= 3, "%d graph filters", clv_graph_filter_count());
    CHECK(clv_filter_find("hstack") && clv_filter_inputs(clv_filter_find("hstack")) == 2 &&
              clv_filter_outputs(clv_filter_find("split")) == 2,
          "hstack or split not found");
    return 0;
}

/* The graph's output size for inputs of sizes (w, h) pairs, or its error. */
static void expect_size(const char *text, int inputs, const int *wh, int want_w, int want_h,
                        const char *want_error)
{
    clv_graph_desc *desc = NULL;
    clv_msg msg = {{0}};
    int err = clv_graph_parse(text, inputs, NULL, &desc, &msg);
    CHECK(err == 0, "'%s' refused: %s", text, msg.text);
    if (err)
        return;
    clv_size in[CLV_GRAPH_INPUTS] = {{0}}, out = {0};
    for (int i = 0; i < inputs; i++) {
        in[i].width = wh[2 * i];
        in[i].height = wh[2 * i + 1];
        in[i].sar_num = in[i].sar_den = 1;
    }
    err = clv_graph_desc_output_size(desc, in, &out, &msg);
    if (want_error) {
        CHECK(err == CLV_ERANGE, "'%s': got %d, want CLV_ERANGE", text, err);
        CHECK_EQ_STR(msg.text, want_error);
    } else {
        CHECK(err == 0, "'%s': %s", text, msg.text);
        CHECK(out.width == want_w && out.height == want_h, "'%s': %dx%d, want %dx%d", text,
              out.width, out.height, want_w, want_h);
    }
    clv_graph_desc_destroy(desc);
}

int test_graph_sizes(void)
{
    expect_size("[0][1]hstack", 2, (const int[]){3, 2, 5, 2}, 8, 2, NULL);
    expect_size("[0][1]vstack", 2, (const int[]){3, 2, 3, 7}, 3, 9, NULL);
    expect_size("[0]split[a][b];[a]transpose[c];[b]transpose[d];[c][d]hstack", 1,
                (const int[]){17, 9}, 18, 17, NULL);
    expect_size("[1]scale=8:-1[s];[0][s]vstack", 3, (const int[]){8, 3, 16, 4, 0, 0}, 8, 5, NULL);
    expect_size("[0]hflip[a];[1]vflip[b];[a][b]hstack", 2, (const int[]){3, 2, 4, 5}, 0, 0,
                "filter 'hstack' (#3 in the graph) on inputs of 3x2, 4x5: input 1 is 4x5 and "
                "input 0 3x2: their heights must match");
    expect_size("[0][1]vstack=inputs=2", 2, (const int[]){3, 2, 4, 5}, 0, 0,
                "filter 'vstack' (#1 in the graph) on inputs of 3x2, 4x5: input 1 is 4x5 and "
                "input 0 3x2: their widths must match");
    expect_size("[0]crop=w=20[a];[a][1]hstack", 2, (const int[]){10, 2, 4, 2}, 0, 0,
                "filter 'crop' (#1 in the graph) on 10x2 frames: a crop of 20x2 (out_w '20', out_h "
                "'ih') out of 10x2 frames: each side must be from 1 to the input's");
    expect_size("[0][1]hstack", 2, (const int[]){9000, 2, 9000, 2}, 0, 0,
                "filter 'hstack' (#1 in the graph) on inputs of 9000x2, 9000x2: the widths of 2 "
                "inputs add up to 18000 (at most 16384)");
    /* Uses, the chain, the depth. */
    clv_graph_desc *desc = NULL;
    clv_msg msg = {{0}};
    CHECK(clv_graph_parse("[1]hflip,gray", 3, NULL, &desc, &msg) == 0, "%s", msg.text);
    CHECK(desc && clv_graph_desc_inputs(desc) == 3 && !clv_graph_desc_uses(desc, 0) &&
              clv_graph_desc_uses(desc, 1) && !clv_graph_desc_uses(desc, 2),
          "uses");
    clv_chain_desc *chain = desc ? clv_graph_desc_chain(desc) : NULL;
    CHECK(chain == NULL, "a chain over input 1");
    clv_chain_desc_destroy(chain);
    clv_graph_desc_destroy(desc);
    CHECK(clv_graph_parse("hflip,gray", 1, NULL, &desc, &msg) == 0, "%s", msg.text);
    chain = desc ? clv_graph_desc_chain(desc) : NULL;
    char text[256] = "";
    if (chain)
        clv_chain_format(chain, text, sizeof text);
    CHECK_EQ_STR(text, "hflip,gray");
    clv_chain_desc_destroy(chain);
    CHECK(desc && clv_graph_desc_deep(desc, NULL) == 0, "hflip,gray is deep");
    clv_graph_desc_destroy(desc);
    CHECK(clv_graph_parse("[0]split[a][b];[a]quantize[c];[c][b]hstack", 1, NULL, &desc, &msg) == 0,
          "%s", msg.text);
    CHECK(desc && clv_graph_desc_chain(desc) == NULL, "split is no chain");
    clv_graph_desc_destroy(desc);
    CHECK(clv_graph_parse("[0]lut3d=file=a.cube[a];[a][1]hstack", 2, NULL, &desc, &msg) == 0, "%s",
          msg.text);
    const char *files[4] = {0};
    CHECK(desc && clv_graph_desc_files(desc, files, 4) == 1 && !strcmp(files[0], "a.cube"),
          "files");
    clv_graph_desc_destroy(desc);
    return 0;
}

/* Input `index`'s timing in the graph. */
static void expect_sync(const char *text, int inputs, int index, double offset, double drive_from,
                        double drive_until, clv_eof_action eof, int wait_first)
{
    clv_graph_desc *desc = NULL;
    clv_msg msg = {{0}};
    CHECK(clv_graph_parse(text, inputs, NULL, &desc, &msg) == 0, "'%s': %s", text, msg.text);
    if (!desc)
        return;
    clv_graph_sync s;
    int err = clv_graph_desc_sync(desc, index, &s);
    CHECK(err == 0, "'%s' input %d: %d", text, index, err);
    if (!err)
        CHECK(s.offset == offset && s.drive_from == drive_from && s.drive_until == drive_until &&
                  s.eof_action == eof && s.wait_first == wait_first,
              "'%s' input %d: offset %g, drives [%g, %g), eof %d, wait %d", text, index, s.offset,
              s.drive_from, s.drive_until, s.eof_action, s.wait_first);
    clv_graph_desc_destroy(desc);
}

int test_graph_sync(void)
{
    expect_sync("[0]hflip", 1, 0, 0, 0, INFINITY, CLV_EOF_ENDALL, 1);
    expect_sync("[0][1]hstack", 2, 0, 0, 0, INFINITY, CLV_EOF_ENDALL, 1);
    expect_sync("[0][1]hstack", 2, 1, 0, 0, 0, CLV_EOF_REPEAT, 1);
    expect_sync("[0][1]hstack=shortest=1", 2, 1, 0, 0, 0, CLV_EOF_ENDALL, 1);
    /* Nested: input 1 ends input 0 of the outer stack, which ends all. */
    expect_sync("[1]hflip[a];[a][0]vstack=shortest=1[b];[2][b]vstack", 3, 1, 0, 0, 0,
                CLV_EOF_REPEAT, 1);
    expect_sync("[1]hflip[a];[a][0]vstack=shortest=1[b];[b][2]vstack", 3, 1, 0, 0, 0,
                CLV_EOF_ENDALL, 1);
    expect_sync("[1]hflip[a];[a][0]vstack=shortest=1[b];[b][2]vstack", 3, 0, 0, 0, INFINITY,
                CLV_EOF_ENDALL, 1);
    /* Input 1 first in a stack: not the output's timeline (input 0's), so
     * its last frame repeats, as in ffmpeg's stacks, unless shortest. */
    expect_sync("[1][0]hstack", 2, 1, 0, 0, 0, CLV_EOF_REPEAT, 1);
    expect_sync("[1][0]hstack", 2, 0, 0, 0, INFINITY, CLV_EOF_REPEAT, 1);
    expect_sync("[1][0]hstack=shortest=1", 2, 1, 0, 0, 0, CLV_EOF_ENDALL, 1);
    expect_sync("[1]scale=8:8[a];[a]hflip[b];[b][0]vstack", 2, 1, 0, 0, 0, CLV_EOF_REPEAT, 1);
    /* Through split: both paths. */
    expect_sync("[0]split[a][b];[a][b]hstack", 1, 0, 0, 0, INFINITY, CLV_EOF_ENDALL, 1);
    clv_graph_desc *desc = NULL;
    clv_graph_sync s;
    CHECK(clv_graph_parse("[1]hflip", 2, NULL, &desc, NULL) == 0, "parse");
    CHECK(desc && clv_graph_desc_sync(desc, 0, &s) == CLV_EINVAL, "input 0 is not read");
    clv_graph_desc_destroy(desc);
    return 0;
}

/* ---- Every graph filter on the device equals the reference ------------ */

/* Graphs for a filter of the registry, by name; a filter not here gets
 * "[0][1]...NAME" for its inputs and the generic graphs of
 * graph_texts. At most 3 each; "%s" nowhere. */
static const struct {
    const char *filter;
    int inputs; /* the graphs' inputs */
    const char *text[3];
} graph_table[] = {
    {"split",
     1,
     {"[0]split[a][b];[a]hflip[c];[b][c]vstack", "[0]split=3[a][b][c];[c][a][b]hstack=3",
      "[0]split=1"}},
    {"hstack",
     3,
     {"[0][1]hstack", "[0][1][2]hstack=inputs=3:shortest=1", "[2]vflip[a];[a][0]hstack,hflip"}},
    {"vstack", 2, {"[0][1]vstack", "[1]transpose,transpose=2[a];[0][a]vstack=inputs=2,hflip"}},
};

/* The graphs filter f is checked in: its table's, else "[0][1]NAME" and,
 * around it, one-input filters before and after and split used twice
 * (inputs of one size: every filter of several inputs takes them). */
static int graph_texts(const clv_filter *f, char texts[][256], int *inputs)
{
    const char *name = clv_filter_name(f);
    for (size_t i = 0; i < sizeof graph_table / sizeof graph_table[0]; i++) {
        if (strcmp(graph_table[i].filter, name))
            continue;
        int n = 0;
        for (; n < 3 && graph_table[i].text[n]; n++)
            snprintf(texts[n], 256, "%s", graph_table[i].text[n]);
        *inputs = graph_table[i].inputs;
        return n;
    }
    int n = clv_filter_inputs(f);
    char pads[128] = "", split_pads[128] = "";
    for (int k = 0; k < n; k++) {
        snprintf(pads + strlen(pads), sizeof pads - strlen(pads), "[%d]", k);
        snprintf(split_pads + strlen(split_pads), sizeof split_pads - strlen(split_pads), "[s%d]",
                 k);
    }
    *inputs = n;
    snprintf(texts[0], 256, "%s%s", pads, name);
    /* input 1 flipped (the inputs after it as they are), the output
     * flipped after; the first input through split, one branch gray */
    snprintf(texts[1], 256, "[1]hflip[x];[0][x]%s%s,vflip", n > 2 ? pads + 6 : "", name);
    snprintf(texts[2], 256, "[0]split=%d%s;[s0]gray[g];[g]%s%s,hflip", n, split_pads,
             split_pads + 4, name);
    return 3;
}

/* Runs text over `inputs` inputs of w x h (noise, one seed each) for
 * `frames` frames on ctx and with the reference; returns the frames that
 * differ (a failed check each). absent: input 1 is absent from the second
 * frame on (a filter that passes its first input then). */
static int compare_graph(clv_context *ctx, const char *text, int inputs, int w, int h, int depth,
                         int frames, int absent)
{
    clv_msg msg = {{0}};
    clv_graph_desc *desc = NULL;
    clv_graph *graph = NULL;
    clv_ref_graph *ref = NULL;
    clv_image img[CLV_GRAPH_INPUTS] = {{0}}, got = {0}, want = {0};
    clv_frame frame[CLV_GRAPH_INPUTS] = {{0}}, dst = {0};
    int bad = 0, err = clv_graph_parse(text, inputs, NULL, &desc, &msg);
    CHECK(err == 0, "'%s': %s", text, msg.text);
    if (!err)
        err = clv_graph_create(ctx, desc, depth, &graph, &msg);
    CHECK(err == 0, "'%s' at %d bits: %s", text, depth, msg.text);
    if (!err)
        err = clv_ref_graph_create(desc, &ref);
    CHECK(err == 0, "'%s': reference %d", text, err);
    clv_size in[CLV_GRAPH_INPUTS] = {{0}}, out = {0};
    for (int k = 0; k < inputs && !err; k++) {
        in[k] = (clv_size){.width = w, .height = h, .sar_den = 1};
        err = clv_image_alloc_depth(&img[k], w, h, depth);
        if (!err) {
            test_fill(&img[k], CONTENT_NOISE, 17u * (uint32_t)k + (uint32_t)w);
            err = clv_frame_create_depth(ctx, w, h, depth, &frame[k], &msg);
        }
        if (!err)
            err = clv_frame_upload(ctx, &frame[k], &img[k]);
    }
    if (!err)
        err = clv_graph_output_size(graph, in, &out, &msg);
    CHECK(err == 0, "'%s' on %dx%d: %s", text, w, h, msg.text);
    if (!err && !(err = clv_image_alloc_depth(&got, out.width, out.height, depth)) &&
        !(err = clv_image_alloc_depth(&want, out.width, out.height, depth)))
        err = clv_frame_create_depth(ctx, out.width, out.height, depth, &dst, &msg);
    if (!err) {
        clv_graph_set_frame_rate(graph, 30, 1);
        clv_ref_graph_set_frame_rate(ref, 30, 1);
    }
    for (int n = 0; n < frames && !err; n++) {
        const clv_frame *fin[CLV_GRAPH_INPUTS];
        const clv_image *iin[CLV_GRAPH_INPUTS];
        for (int k = 0; k < inputs; k++) {
            fin[k] = absent && k == 1 && n > 0 ? NULL : &frame[k];
            iin[k] = absent && k == 1 && n > 0 ? NULL : &img[k];
        }
        double t = n / 30.0;
        err = clv_graph_run(graph, fin, &dst, (uint64_t)n, t, NULL, NULL, &msg);
        CHECK(err == 0, "'%s' frame %d: %s", text, n, msg.text);
        if (!err)
            err = clv_frame_download(ctx, &dst, &got);
        if (!err)
            err = clv_ref_graph_run(ref, iin, &want, (uint64_t)n, t);
        CHECK(err == 0, "'%s' frame %d: %d", text, n, err);
        if (err)
            break;
        int px = depth == 16 ? 8 : 4, differ = 0;
        for (int y = 0; y < out.height && !differ; y++)
            differ = memcmp(got.pixels + (size_t)y * got.stride,
                            want.pixels + (size_t)y * want.stride, (size_t)out.width * px) != 0;
        CHECK(!differ, "'%s' on %dx%d at %d bits, frame %d: device != reference", text, w, h, depth,
              n);
        bad += differ;
    }
    bad += err != 0;
    for (int k = 0; k < inputs; k++) {
        clv_frame_destroy(&frame[k]);
        clv_image_free(&img[k]);
    }
    clv_frame_destroy(&dst);
    clv_image_free(&got);
    clv_image_free(&want);
    clv_ref_graph_destroy(ref);
    clv_graph_destroy(graph);
    clv_graph_desc_destroy(desc);
    return bad;
}

int test_graph_filters(void)
{
    static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {641, 359}};
    for (int shape = 1; shape <= 2; shape++) {
        clv_context *ctx = test_context(shape);
        if (!ctx)
            return 1;
        int runs = 0, bad = 0;
        for (int i = 0; i < clv_graph_filter_count(); i++) {
            const clv_filter *f = clv_graph_filter_at(i);
            char texts[3][256];
            int inputs = 1, count = graph_texts(f, texts, &inputs);
            for (int depth = 8; depth <= (clv_filter_deep(f) ? 16 : 8); depth += 8) {
                for (int t = 0; t < count; t++) {
                    /* The big size once a filter, at 8 bits, in its first graph. */
                    for (int s = 0; s < 4; s++) {
                        if (s == 3 && (t || depth == 16))
                            continue;
                        bad += compare_graph(ctx, texts[t], inputs, sizes[s][0], sizes[s][1], depth,
                                             s == 3 ? 1 : 2, 0);
                        runs++;
                    }
                    /* An input that ends: a filter that passes its first
                     * input then. */
                    clv_graph_desc *desc = NULL;
                    clv_graph_sync sync = {0};
                    if (inputs > 1 && !clv_graph_parse(texts[t], inputs, NULL, &desc, NULL) &&
                        clv_graph_desc_uses(desc, 1) && !clv_graph_desc_sync(desc, 1, &sync) &&
                        sync.eof_action == CLV_EOF_PASS) {
                        bad += compare_graph(ctx, texts[t], inputs, 17, 9, depth, 3, 1);
                        runs++;
                    }
                    clv_graph_desc_destroy(desc);
                }
            }
        }
        printf("  %s shape on %s: %d graph filters, %d runs, %d mismatching\n",
               shape == 1 ? "row" : "gpu", clv_context_device(ctx)->name, clv_graph_filter_count(),
               runs, bad);
        clv_context_destroy(ctx);
    }
    return 0;
}

/* One graph over frames of changing sizes (its frames made again), and
 * the device run's errors. */
int test_graph_run(void)
{
    clv_context *ctx = test_context(0);
    if (!ctx)
        return 1;
    const char *text =
        "[0]split[a][b];[a]gblur=sigma=2[c];[c][b]hstack[d];[1]hflip[e];[d][e]vstack";
    clv_msg msg = {{0}};
    clv_graph_desc *desc = NULL;
    clv_graph *graph = NULL;
    clv_ref_graph *ref = NULL;
    CHECK(clv_graph_parse(text, 2, NULL, &desc, &msg) == 0, "%s", msg.text);
    CHECK(desc && clv_graph_create(ctx, desc, 8, &graph, &msg) == 0, "%s", msg.text);
    CHECK(desc && clv_ref_graph_create(desc, &ref) == 0, "reference");
    static const int sizes[][2] = {{17, 9}, {3, 2}, {17, 9}, {1, 1}};
    for (int s = 0; graph && ref && s < 4; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        clv_image img[2] = {{0}}, got = {0}, want = {0};
        clv_frame frame[2] = {{0}}, dst = {0};
        for (int k = 0; k < 2; k++) {
            clv_image_alloc(&img[k], k ? 2 * w : w, h);
            test_fill(&img[k], CONTENT_NOISE, (uint32_t)(s * 2 + k));
            clv_frame_create(ctx, img[k].width, h, &frame[k], NULL);
            clv_frame_upload(ctx, &frame[k], &img[k]);
        }
        clv_size in[2] = {{w, h, 0, 1, 0, 0, 0}, {2 * w, h, 0, 1, 0, 0, 0}}, out;
        int err = clv_graph_output_size(graph, in, &out, &msg);
        CHECK(err == 0 && out.width == 2 * w && out.height == 2 * h, "%dx%d: %s", w, h, msg.text);
        clv_image_alloc(&got, out.width, out.height);
        clv_image_alloc(&want, out.width, out.height);
        clv_frame_create(ctx, out.width, out.height, &dst, NULL);
        const clv_frame *fin[2] = {&frame[0], &frame[1]};
        const clv_image *iin[2] = {&img[0], &img[1]};
        err = clv_graph_run(graph, fin, &dst, (uint64_t)s, s / 25.0, NULL, NULL, &msg);
        CHECK(err == 0, "%dx%d: %s", w, h, msg.text);
        CHECK(clv_frame_download(ctx, &dst, &got) == 0, "download");
        CHECK(clv_ref_graph_run(ref, iin, &want, (uint64_t)s, s / 25.0) == 0, "reference");
        int differ = 0;
        for (int y = 0; y < out.height; y++)
            differ |= memcmp(got.pixels + (size_t)y * got.stride,
                             want.pixels + (size_t)y * want.stride, (size_t)out.width * 4) != 0;
        CHECK(!differ, "%dx%d: device != reference", w, h);
        /* Input 1 of another width: the stack's error, with its place. */
        if (s == 0) {
            clv_frame odd = {0};
            clv_frame_create(ctx, 2 * w + 1, h, &odd, NULL);
            const clv_frame *bad[2] = {&frame[0], &odd};
            err = clv_graph_run(graph, bad, &dst, 0, 0, NULL, NULL, &msg);
            CHECK(err == CLV_ERANGE, "got %d", err);
            CHECK_EQ_STR(msg.text, "filter 'vstack' (#5 in the graph) on inputs of 34x9, 35x9: "
                                   "input 1 is 35x9 and input 0 34x9: their widths must match");
            clv_frame_destroy(&odd);
            /* the destination of another size */
            err = clv_graph_run(graph, fin, &frame[1], 0, 0, NULL, NULL, &msg);
            CHECK(err == CLV_EINVAL, "got %d", err);
        }
        for (int k = 0; k < 2; k++) {
            clv_frame_destroy(&frame[k]);
            clv_image_free(&img[k]);
        }
        clv_frame_destroy(&dst);
        clv_image_free(&got);
        clv_image_free(&want);
    }
    clv_ref_graph_destroy(ref);
    clv_graph_destroy(graph);
    /* An input absent from the first frame: no size to go by. */
    graph = NULL;
    if (desc && clv_graph_create(ctx, desc, 8, &graph, &msg) == 0) {
        clv_frame one = {0}, dst = {0};
        clv_frame_create(ctx, 4, 4, &one, NULL);
        clv_frame_create(ctx, 8, 8, &dst, NULL);
        const clv_frame *fin[2] = {&one, NULL};
        CHECK(clv_graph_run(graph, fin, &dst, 0, 0, NULL, NULL, &msg) == CLV_EINVAL, "absent");
        CHECK_EQ_STR(msg.text,
                     "graph run: input 1 is absent from the first frame (its size is not known)");
        clv_frame_destroy(&one);
        clv_frame_destroy(&dst);
    }
    clv_graph_destroy(graph);
    clv_graph_desc_destroy(desc);
    clv_context_destroy(ctx);
    return 0;
}
