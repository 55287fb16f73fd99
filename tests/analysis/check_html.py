#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks that report.html is well formed and self-contained.

    check_html.py report.html

Parses the page with html.parser and fails (exit status 1, the problems on
stderr) when a start tag is not closed by its own end tag, an end tag has
no start, a tag loads or links anything outside the page (src/href with
http:, https:, //, or any scheme but "#" fragments), or a <link> or a
<script src> is present; when an element has an event-handler attribute
(onclick, onerror: what a name that escaped its escaping would bring), a
script is of another type than JavaScript or application/json, a JSON
block does not parse, or a script calls eval, Function or document.write,
or sets innerHTML/outerHTML (names must go in as text).  Exit status 0 and
"ok" otherwise.
"""
import json
import re
import sys
from html.parser import HTMLParser

# Ways a script turns text into code or markup.
UNSAFE_SCRIPT = re.compile(r"\beval\s*\(|\bFunction\s*\(|document\.write|\.(?:inner|outer)HTML\b|"
                           r"insertAdjacentHTML|setTimeout\s*\(\s*[\"']")

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# SVG elements that may be written as <x/>; html.parser reports them through handle_startendtag.


class Checker(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.problems = []
        self.tags = 0
        self.script = None  # (type, where) of the <script> being read
        self.script_text = []

    def where(self):
        line, column = self.getpos()
        return f"line {line}, column {column}"

    def check_attributes(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href", "xlink:href", "action", "data", "poster", "srcset"):
                v = (value or "").strip().lower()
                if v.startswith(("http:", "https:", "//")) or ("://" in v) or (v and not v.startswith("#")):
                    self.problems.append(f"{self.where()}: <{tag} {name}={value!r}> refers outside the page")
            if name == "style" and "url(" in (value or ""):
                self.problems.append(f"{self.where()}: <{tag}> style loads a url()")
            if name.startswith("on"):
                self.problems.append(f"{self.where()}: <{tag} {name}=...> is an event handler")
        if tag == "link":
            self.problems.append(f"{self.where()}: <link> loads an external resource")
        if tag == "script" and any(name == "src" for name, _ in attrs):
            self.problems.append(f"{self.where()}: <script src> loads an external script")
        if tag == "script":
            kind = dict(attrs).get("type", "") or ""
            if kind not in ("", "text/javascript", "application/json"):
                self.problems.append(f"{self.where()}: <script type={kind!r}>")
            self.script = (kind, self.where())
            self.script_text = []

    def handle_data(self, data):
        if self.script is not None:
            self.script_text.append(data)

    def end_script(self):
        kind, opened = self.script
        text = "".join(self.script_text)
        self.script = None
        if kind == "application/json":
            try:
                json.loads(text)
            except ValueError as error:
                self.problems.append(f"the JSON block opened at {opened} does not parse: {error}")
        elif UNSAFE_SCRIPT.search(text):
            self.problems.append(f"the script opened at {opened} turns text into code or markup: "
                                 f"{UNSAFE_SCRIPT.search(text).group(0)!r}")

    def handle_starttag(self, tag, attrs):
        self.tags += 1
        self.check_attributes(tag, attrs)
        if tag not in VOID:
            self.stack.append((tag, self.where()))

    def handle_startendtag(self, tag, attrs):
        self.tags += 1
        self.check_attributes(tag, attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            self.problems.append(f"{self.where()}: end tag of the void element <{tag}>")
            return
        if not self.stack:
            self.problems.append(f"{self.where()}: </{tag}> without a start tag")
            return
        open_tag, opened = self.stack.pop()
        if tag == "script" and self.script is not None:
            self.end_script()
        if open_tag != tag:
            self.problems.append(f"{self.where()}: </{tag}> closes <{open_tag}> opened at {opened}")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    checker = Checker()
    checker.feed(text)
    checker.close()
    problems = checker.problems
    for tag, opened in checker.stack:
        problems.append(f"<{tag}> opened at {opened} is never closed")
    if not text.startswith("<!DOCTYPE html>"):
        problems.append("the page does not start with <!DOCTYPE html>")
    if "url(" in text:
        problems.append("the page loads something with url()")
    if checker.tags < 20:
        problems.append(f"only {checker.tags} tags: not a report")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
