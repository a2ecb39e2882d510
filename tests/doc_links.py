#!/usr/bin/env python3
"""doc_links.py - the documentation's relative links lead somewhere: every
link and image in README.md and docs/*.md that is not a URL names a file or
folder that exists, and a #anchor after a Markdown file names one of its
headings (GitHub's anchors). README.md stays a front door: at most 400 lines.

    python3 tests/doc_links.py SOURCE_DIR
"""
import os
import re
import sys

README_MAX_LINES = 400

# [text](target "title") and ![alt](target); the text may hold code spans.
INLINE = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
# [label]: target
DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def prose_lines(text):
    """The lines outside fenced code blocks, with their numbers."""
    inside = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            if inside is None:
                inside = m.group(1)
            elif m.group(1) == inside:
                inside = None
            continue
        if inside is None:
            yield number, line


def slug(heading):
    """GitHub's anchor of a heading: lower case, markup and punctuation
    dropped (hyphens and underscores kept), spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, seen = set(), {}
        with open(path, encoding="utf-8") as f:
            for _, line in prose_lines(f.read()):
                m = re.match(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
                if not m:
                    continue
                base = slug(m.group(1))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else "%s-%d" % (base, n))
        cache[path] = found
    return cache[path]


def check(source_dir):
    docs = os.path.join(source_dir, "docs")
    pages = [os.path.join(source_dir, "README.md")]
    if os.path.isdir(docs):
        pages += sorted(os.path.join(docs, n) for n in os.listdir(docs) if n.endswith(".md"))
    problems, links = [], 0
    for page in pages:
        with open(page, encoding="utf-8") as f:
            text = f.read()
        name = os.path.relpath(page, source_dir)
        if page.endswith("README.md") and os.path.dirname(page) == source_dir:
            count = len(text.splitlines())
            if count > README_MAX_LINES:
                problems.append("%s: %d lines; the front door keeps to %d (move the rest "
                                "into docs/)" % (name, count, README_MAX_LINES))
        for number, line in prose_lines(text):
            line = CODE_SPAN.sub("", line)
            targets = [m.group(1) for m in INLINE.finditer(line)]
            m = DEFINITION.match(line)
            if m:
                targets.append(m.group(1))
            for target in targets:
                if not target or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                    continue  # a URL (https:, mailto:): not checked here
                links += 1
                path, _, anchor = target.partition("#")
                where = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path \
                    else page
                if not os.path.exists(where):
                    problems.append("%s:%d: '%s': no such file (%s)" % (
                        name, number, target, os.path.relpath(where, source_dir)))
                elif anchor and where.endswith(".md") and anchor not in anchors(where):
                    problems.append("%s:%d: '%s': %s has no heading with that anchor" % (
                        name, number, target, os.path.relpath(where, source_dir)))
    for p in problems:
        print(p, file=sys.stderr)
    print("doc_links: %d pages, %d relative links, %d problems" % (len(pages), links,
                                                                   len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(check(sys.argv[1] if len(sys.argv) > 1 else
                   os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")))
